/// A broadcast push (`POST /4/broadcasts/apps/<bundleId>`) that passed every check: what the
/// channel's subscribers receive.
public struct BroadcastPushRequest: Sendable, Hashable {
    /// The app, from the path (no suffix).
    package var bundleID: String
    /// `apns-channel-id`.
    package var channelID: BroadcastChannelID
    /// The channel's storage policy, as the store reported it.
    package var storagePolicy: MessageStoragePolicy
    /// `apns-push-type` as sent (some spelling of `liveactivity`).
    package var pushTypeHeader: APNsPushType
    /// `apns-priority` (required on broadcasts).
    package var priority: APNsPriority
    /// `apns-expiration`; nil when omitted.
    package var expiration: APNsExpiration?
    /// `apns-request-id` as sent; nil when omitted (the server generates one for the response).
    package var requestID: APNsMessageID?
    /// The typed body (`update` or `end`).
    package var payload: LiveActivityPayload

    /// A request from checked parts.
    package init(
        bundleID: String, channelID: BroadcastChannelID, storagePolicy: MessageStoragePolicy,
        pushTypeHeader: APNsPushType, priority: APNsPriority, expiration: APNsExpiration?,
        requestID: APNsMessageID?, payload: LiveActivityPayload
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.storagePolicy = storagePolicy
        self.pushTypeHeader = pushTypeHeader
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    /// Hints about likely sender mistakes.
    package var hints: [APNsHint] {
        var hints: [APNsHint] = []
        if let requestID, !requestID.isCanonicalLowercase { hints.append(.messageIDUppercase) }
        if priority == .low { hints.append(.priorityOneOnLiveActivity) }
        return hints + payload.hints
    }
}
