/// An `apns-push-type` header value.
///
/// Open so that any value a sender writes round-trips into the push log; the relay itself accepts
/// only `liveactivity` (device pushes and broadcasts alike).
package struct APNsPushType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent.
    package let rawValue: String

    /// Wraps any header value.
    package init(rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    /// ActivityKit pushes: the only type this relay accepts.
    package static let liveActivity = APNsPushType(rawValue: "liveactivity")
    /// Visible alerts.
    package static let alert = APNsPushType(rawValue: "alert")
    /// Silent content-available pushes.
    package static let background = APNsPushType(rawValue: "background")
    /// Location query pushes.
    package static let location = APNsPushType(rawValue: "location")
    /// VoIP (PushKit) pushes.
    package static let voip = APNsPushType(rawValue: "voip")
    /// watchOS complication pushes.
    package static let complication = APNsPushType(rawValue: "complication")
    /// File Provider pushes.
    package static let fileProvider = APNsPushType(rawValue: "fileprovider")
    /// Device-management pushes.
    package static let mdm = APNsPushType(rawValue: "mdm")
    /// Push to Talk pushes.
    package static let pushToTalk = APNsPushType(rawValue: "pushtotalk")
    /// Widget reload pushes.
    package static let widgets = APNsPushType(rawValue: "widgets")

    /// Push types Apple documents for device pushes.
    package static let documented: [APNsPushType] = [
        .alert, .background, .location, .voip, .complication, .fileProvider, .mdm, .liveActivity,
        .pushToTalk, .widgets,
    ]

    /// True for `liveactivity` in any letter case. Broadcast accepts any case because Apple's own
    /// documents spell it `liveactivity`, `Liveactivity` and `LiveActivity` in different places.
    package var isLiveActivityIgnoringCase: Bool {
        rawValue.utf8.count == 12 && APNsASCII.lowercased(rawValue) == Self.liveActivity.rawValue
    }
}
