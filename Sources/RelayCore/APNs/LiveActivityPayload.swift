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
    public var event: LiveActivityEvent {
        get { members.value.event }
        set { members.value.event = newValue }
    }
    /// When the data was generated, Unix seconds. Apple requires it: the system shows only the
    /// newest push and ignores one older than the last it applied.
    public var timestamp: UnixSeconds? {
        get { members.value.timestamp }
        set { members.value.timestamp = newValue }
    }
    /// The new `ActivityAttributes.ContentState`, as the app would decode it.
    public var contentState: JSONObject? {
        get { members.value.contentState }
        set {
            members.value.contentState = newValue
            members.value.contentStateBytes = Self.bytes(of: newValue)
            members.value.contentStateShape = Self.shape(of: newValue)
        }
    }
    /// The compact JSON size of the content state the device would show (`{}` when there is none),
    /// the part of the size rule a push brings. Measured when the content state is set, that is
    /// when the request is validated, outside the emulator's lock, rather than when it is applied.
    var contentStateBytes: Int { members.value.contentStateBytes }
    /// `ContentStateShape.fingerprint` of the content state (of `{}` when there is none), also
    /// taken at validation, so that delivery compares shapes without reading the previous state.
    var contentStateShape: UInt64 { members.value.contentStateShape }
    /// When the activity becomes stale, Unix seconds.
    public var staleDate: UnixSeconds? {
        get { members.value.staleDate }
        set { members.value.staleDate = newValue }
    }
    /// For `end`: when to remove the activity (in the past: at once), Unix seconds.
    public var dismissalDate: UnixSeconds? {
        get { members.value.dismissalDate }
        set { members.value.dismissalDate = newValue }
    }
    /// Orders the app's own activities; higher is more prominent.
    public var relevanceScore: Double? {
        get { members.value.relevanceScore }
        set { members.value.relevanceScore = newValue }
    }
    /// The alert that lights the device; required on `start`.
    public var alert: LiveActivityAlert? {
        get { members.value.alert }
        set { members.value.alert = newValue }
    }
    /// `start` only: the `ActivityAttributes` type name.
    public var attributesType: String? {
        get { members.value.attributesType }
        set { members.value.attributesType = newValue }
    }
    /// `start` only: the static attributes.
    public var attributes: JSONObject? {
        get { members.value.attributes }
        set { members.value.attributes = newValue }
    }
    /// iOS 18 `input-push-token: 1`: the started activity gets an update push token.
    public var inputPushToken: Bool {
        get { members.value.inputPushToken }
        set { members.value.inputPushToken = newValue }
    }
    /// iOS 18 `input-push-channel`: the started activity subscribes to this broadcast channel.
    public var inputPushChannel: String? {
        get { members.value.inputPushChannel }
        set { members.value.inputPushChannel = newValue }
    }
    /// Other keys inside `aps`; APNs ignores custom keys there (kept for the push log and hints).
    public var otherAPSKeys: JSONObject {
        get { members.value.otherAPSKeys }
        set { members.value.otherAPSKeys = newValue }
    }
    /// Keys beside `aps` (the app's custom data), kept as sent.
    public var customKeys: JSONObject {
        get { members.value.customKeys }
        set { members.value.customKeys = newValue }
    }

    /// A payload built by the relay or a test.
    public init(
        event: LiveActivityEvent, timestamp: UnixSeconds?, contentState: JSONObject? = nil,
        staleDate: UnixSeconds? = nil, dismissalDate: UnixSeconds? = nil, relevanceScore: Double? = nil,
        alert: LiveActivityAlert? = nil, attributesType: String? = nil, attributes: JSONObject? = nil,
        inputPushToken: Bool = false, inputPushChannel: String? = nil, otherAPSKeys: JSONObject = [:],
        customKeys: JSONObject = [:]
    ) {
        members = CopyOnWrite(
            Members(
                event: event, timestamp: timestamp, contentState: contentState,
                contentStateBytes: Self.bytes(of: contentState), contentStateShape: Self.shape(of: contentState),
                staleDate: staleDate, dismissalDate: dismissalDate,
                relevanceScore: relevanceScore, alert: alert, attributesType: attributesType, attributes: attributes,
                inputPushToken: inputPushToken, inputPushChannel: inputPushChannel, otherAPSKeys: otherAPSKeys,
                customKeys: customKeys))
    }

    /// The stored members behind one box (see `CopyOnWrite`): a payload is copied with its request
    /// several times per push, and each copy of its JSON and strings cost a retain per member.
    private var members: CopyOnWrite<Members>

    private struct Members: Sendable, Hashable {
        var event: LiveActivityEvent
        var timestamp: UnixSeconds?
        var contentState: JSONObject?
        /// `contentState`'s size, kept with it by its setter and the initializer.
        var contentStateBytes: Int
        /// `contentState`'s fingerprint, kept with it like `contentStateBytes`.
        var contentStateShape: UInt64
        var staleDate: UnixSeconds?
        var dismissalDate: UnixSeconds?
        var relevanceScore: Double?
        var alert: LiveActivityAlert?
        var attributesType: String?
        var attributes: JSONObject?
        var inputPushToken: Bool
        var inputPushChannel: String?
        var otherAPSKeys: JSONObject
        var customKeys: JSONObject
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
