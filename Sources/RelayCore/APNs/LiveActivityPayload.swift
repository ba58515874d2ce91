public import RelayJSON

/// The body of a Live Activity push, typed: the `aps` dictionary's ActivityKit keys plus the
/// custom keys beside `aps`.
///
/// What the relay refuses and what it lets through (APNs' own checks on Live Activity payloads
/// are undocumented, so this split is the relay's choice):
/// - `400 BadRequestPayload`: the body is not a JSON object; `aps` is missing or not an object;
///   `event` is missing or not a string; a documented key has the wrong JSON type (a string
///   `timestamp`, an array `content-state`, ...). See `parse(_:)`.
/// - Accepted (`200`), then dropped or ignored by the emulated device, as iOS does with pushes it
///   cannot apply: a start without `alert`, `attributes-type` or `attributes`; a start or update
///   without `content-state`; no `timestamp`; an unknown `event`. See `issues`.
/// A `null` value counts as absent.
public struct LiveActivityPayload: Sendable, Hashable {
    /// `start`, `update` or `end`.
    package var event: LiveActivityEvent
    /// When the data was generated, Unix seconds. Apple requires it: the system shows only the
    /// newest push and ignores one older than the last it applied.
    package var timestamp: UnixSeconds?
    /// The new `ActivityAttributes.ContentState`, as the app would decode it.
    public var contentState: JSONObject? {
        didSet {
            contentStateBytes = Self.bytes(of: contentState)
            contentStateShape = Self.shape(of: contentState)
        }
    }
    /// The compact JSON size of the content state the device would show (`{}` when there is none),
    /// the part of the size rule a push brings. Measured when the content state is set, that is
    /// when the request is validated, outside the emulator's lock, rather than when it is applied.
    private(set) var contentStateBytes: Int
    /// `ContentStateShape.fingerprint` of the content state (of `{}` when there is none), also
    /// taken at validation, so that delivery compares shapes without reading the previous state.
    private(set) var contentStateShape: UInt64
    /// When the activity becomes stale, Unix seconds.
    package var staleDate: UnixSeconds?
    /// For `end`: when to remove the activity (in the past: at once), Unix seconds.
    package var dismissalDate: UnixSeconds?
    /// Orders the app's own activities; higher is more prominent.
    package var relevanceScore: Double?
    /// The alert that lights the device; required on `start`.
    package var alert: LiveActivityAlert?
    /// `start` only: the `ActivityAttributes` type name.
    package var attributesType: String?
    /// `start` only: the static attributes.
    package var attributes: JSONObject?
    /// iOS 18 `input-push-token: 1`: the started activity gets an update push token.
    package var inputPushToken: Bool
    /// iOS 18 `input-push-channel`: the started activity subscribes to this broadcast channel.
    package var inputPushChannel: String?
    /// Other keys inside `aps`; APNs ignores custom keys there (kept for the push log and hints).
    package var otherAPSKeys: JSONObject
    /// Keys beside `aps` (the app's custom data), kept as sent.
    package var customKeys: JSONObject

    /// A payload built by the relay or a test.
    package init(
        event: LiveActivityEvent, timestamp: UnixSeconds?, contentState: JSONObject? = nil,
        staleDate: UnixSeconds? = nil, dismissalDate: UnixSeconds? = nil, relevanceScore: Double? = nil,
        alert: LiveActivityAlert? = nil, attributesType: String? = nil, attributes: JSONObject? = nil,
        inputPushToken: Bool = false, inputPushChannel: String? = nil, otherAPSKeys: JSONObject = [:],
        customKeys: JSONObject = [:]
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.contentStateBytes = Self.bytes(of: contentState)
        self.contentStateShape = Self.shape(of: contentState)
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
        self.otherAPSKeys = otherAPSKeys
        self.customKeys = customKeys
    }

    /// The content this payload asks the device to show (a request keeps it, see
    /// `LiveActivityPushRequest.update`).
    var activityUpdate: ActivityUpdate {
        ActivityUpdate(
            contentState: .object(contentState ?? [:]), contentStateBytes: contentStateBytes,
            contentStateShape: contentStateShape, staleDate: staleDate, relevanceScore: relevanceScore,
            alert: alert?.json, timestamp: timestamp)
    }

    /// The compact JSON size of `contentState`, or of `{}` when it is nil (see `activityUpdate`).
    static func bytes(of contentState: JSONObject?) -> Int {
        contentState.map { ActivityDataSize.bytes(of: .object($0)) } ?? 2
    }

    /// The fingerprint of `contentState`, or of `{}` when it is nil, as `activityUpdate` shows it.
    static func shape(of contentState: JSONObject?) -> UInt64 {
        ContentStateShape.fingerprint(of: .object(contentState ?? [:]))
    }
}
