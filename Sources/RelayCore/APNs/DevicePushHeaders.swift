/// The checked `apns-*` headers of a device push (`POST /3/device/<token>`).
public struct DevicePushHeaders: Sendable, Hashable {
    /// `apns-topic` as sent.
    public var topic: APNsTopic {
        get { members.topic }
        set { members.topic = newValue }
    }
    /// The bundle ID in front of `.push-type.liveactivity`.
    public var bundleID: String {
        get { members.bundleID }
        set { members.bundleID = newValue }
    }
    /// `apns-push-type` as sent; nil when omitted (then inferred from the topic).
    public var pushTypeHeader: APNsPushType? {
        get { members.pushTypeHeader }
        set { members.pushTypeHeader = newValue }
    }
    /// `apns-id` as sent; nil when omitted (the server generates one for the response).
    public var apnsID: APNsMessageID? {
        get { members.apnsID }
        set { members.apnsID = newValue }
    }
    /// `apns-priority` as sent; nil when omitted.
    public var priorityHeader: APNsPriority? {
        get { members.priorityHeader }
        set { members.priorityHeader = newValue }
    }
    /// `apns-expiration`; nil when omitted (APNs' storage policy applies).
    public var expiration: APNsExpiration? {
        get { members.expiration }
        set { members.expiration = newValue }
    }
    /// `apns-collapse-id`; nil when omitted or empty.
    public var collapseID: APNsCollapseID? {
        get { members.collapseID }
        set { members.collapseID = newValue }
    }

    /// Headers as checked by `LiveActivityPushRequest.checkHeaders`.
    public init(
        topic: APNsTopic, bundleID: String, pushTypeHeader: APNsPushType? = .liveActivity,
        apnsID: APNsMessageID? = nil, priorityHeader: APNsPriority? = nil, expiration: APNsExpiration? = nil,
        collapseID: APNsCollapseID? = nil
    ) {
        members = Members(
            topic: topic, bundleID: bundleID, pushTypeHeader: pushTypeHeader, apnsID: apnsID,
            priorityHeader: priorityHeader, expiration: expiration, collapseID: collapseID)
    }

    /// The stored members, inline: the headers travel inside a request, whose parts already
    /// share one box (a box of their own cost an allocation per push, 40M instructions in
    /// 100,000 pushes). Kept as one struct, which callgrind found cheaper to build and copy than
    /// seven stored properties of their own (70M in the same run).
    private var members: Members

    private struct Members: Sendable, Hashable {
        var topic: APNsTopic
        var bundleID: String
        var pushTypeHeader: APNsPushType?
        var apnsID: APNsMessageID?
        var priorityHeader: APNsPriority?
        var expiration: APNsExpiration?
        var collapseID: APNsCollapseID?
    }

    /// The push type in effect: always `liveactivity` once the headers passed the checks.
    public var pushType: APNsPushType { .liveActivity }

    /// The priority in effect: the header's, or 10 when omitted.
    public var priority: APNsPriority { priorityHeader ?? .default }

    /// Hints about the headers (missing push type, uppercase `apns-id`, priority 1).
    public var hints: [APNsHint] {
        var hints: [APNsHint] = []
        if pushTypeHeader == nil { hints.append(.pushTypeMissing) }
        if let apnsID, !apnsID.isCanonicalLowercase { hints.append(.messageIDUppercase) }
        if priorityHeader == .low { hints.append(.priorityOneOnLiveActivity) }
        return hints
    }
}
