/// The size of widget asking for a timeline, as WidgetKit's `WidgetFamily` names it. It decides
/// how many items an entry carries and whether they carry their details.
package enum WidgetFamily: String, Sendable, Hashable, CaseIterable {
    case systemSmall
    case systemMedium
    case systemLarge
    case accessoryRectangular

    /// The most items an entry of this family carries: one for the small and the Lock Screen
    /// widget, four for medium, eight for large.
    package var maxItems: Int {
        switch self {
        case .systemSmall, .accessoryRectangular: 1
        case .systemMedium: 4
        case .systemLarge: 8
        }
    }

    /// Whether items carry their details (content state, attributes, presentation) beside the
    /// summary: medium and large have room for them.
    package var showsDetails: Bool {
        switch self {
        case .systemSmall, .accessoryRectangular: false
        case .systemMedium, .systemLarge: true
        }
    }
}
