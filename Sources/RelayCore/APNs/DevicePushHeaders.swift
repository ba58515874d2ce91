/// The checked `apns-*` headers of a device push (`POST /3/device/<token>`).
package struct DevicePushHeaders: Sendable, Hashable {
    /// `apns-topic` as sent.
    package var topic: APNsTopic
    /// The bundle ID in front of `.push-type.liveactivity`.
    package var bundleID: String
    /// `apns-push-type` as sent; nil when omitted (then inferred from the topic).
    package var pushTypeHeader: APNsPushType?
    /// `apns-id` as sent; nil when omitted (the server generates one for the response).
    package var apnsID: APNsMessageID?
    /// `apns-priority` as sent; nil when omitted.
    package var priorityHeader: APNsPriority?
    /// `apns-expiration`; nil when omitted (APNs' storage policy applies).
    package var expiration: APNsExpiration?
    /// `apns-collapse-id`; nil when omitted or empty.
    package var collapseID: APNsCollapseID?

    /// Headers as checked by `LiveActivityPushRequest.checkHeaders`.
    package init(
        topic: APNsTopic, bundleID: String, pushTypeHeader: APNsPushType? = .liveActivity,
        apnsID: APNsMessageID? = nil, priorityHeader: APNsPriority? = nil, expiration: APNsExpiration? = nil,
        collapseID: APNsCollapseID? = nil
    ) {
        self.topic = topic
        self.bundleID = bundleID
        self.pushTypeHeader = pushTypeHeader
        self.apnsID = apnsID
        self.priorityHeader = priorityHeader
        self.expiration = expiration
        self.collapseID = collapseID
    }

    /// The push type in effect: always `liveactivity` once the headers passed the checks.
    package var pushType: APNsPushType { .liveActivity }

    /// The priority in effect: the header's, or 10 when omitted.
    package var priority: APNsPriority { priorityHeader ?? .default }

    /// Hints about the headers (missing push type, uppercase `apns-id`, priority 1).
    package var hints: [APNsHint] {
        var hints: [APNsHint] = []
        if pushTypeHeader == nil { hints.append(.pushTypeMissing) }
        if let apnsID, !apnsID.isCanonicalLowercase { hints.append(.messageIDUppercase) }
        if priorityHeader == .low { hints.append(.priorityOneOnLiveActivity) }
        return hints
    }
}
