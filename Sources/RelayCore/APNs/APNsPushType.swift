/// An `apns-push-type` header value.
///
/// Open so that any value a sender writes round-trips into the push log; the relay itself accepts
/// only `liveactivity` (device pushes and broadcasts alike).
public struct APNsPushType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent.
    public let rawValue: String

    /// Wraps any header value.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// ActivityKit pushes: the only type this relay accepts.
    public static let liveActivity = APNsPushType(rawValue: "liveactivity")
    /// Visible alerts.
    public static let alert = APNsPushType(rawValue: "alert")
    /// Silent content-available pushes.
    public static let background = APNsPushType(rawValue: "background")
    /// Location query pushes.
    public static let location = APNsPushType(rawValue: "location")
    /// VoIP (PushKit) pushes.
    public static let voip = APNsPushType(rawValue: "voip")
    /// watchOS complication pushes.
    public static let complication = APNsPushType(rawValue: "complication")
    /// File Provider pushes.
    public static let fileProvider = APNsPushType(rawValue: "fileprovider")
    /// Device-management pushes.
    public static let mdm = APNsPushType(rawValue: "mdm")
    /// Push to Talk pushes.
    public static let pushToTalk = APNsPushType(rawValue: "pushtotalk")
    /// Widget reload pushes.
    public static let widgets = APNsPushType(rawValue: "widgets")

    /// Push types Apple documents for device pushes.
    public static let documented: [APNsPushType] = [
        .alert, .background, .location, .voip, .complication, .fileProvider, .mdm, .liveActivity,
        .pushToTalk, .widgets,
    ]

    /// True for `liveactivity` in any letter case. Broadcast accepts any case because Apple's own
    /// documents spell it `liveactivity`, `Liveactivity` and `LiveActivity` in different places.
    public var isLiveActivityIgnoringCase: Bool {
        rawValue.utf8.count == 12 && APNsASCII.lowercased(rawValue) == Self.liveActivity.rawValue
    }
}
