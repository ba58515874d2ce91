// MARK: - Broadcast channels (iOS 18) and broadcast pushes

extension DeviceEmulator {
    /// Creates a channel for `bundleId` (`POST /1/apps/{bundleId}/channels`); at most
    /// `BroadcastChannel.maxChannelsPerApp` per app (`400 CannotCreateChannelConfig`).
    public mutating func createChannel(
        bundleId: String, policy: MessageStoragePolicy, at time: UnixSeconds
    ) -> Result<EmulatedChannel, APNsError> {
        let now = arrive(at: time)
        let existing = channels.values.reduce(0) { $0 + ($1.bundleId == bundleId ? 1 : 0) }
        if let error = BroadcastChannel.checkCapacity(existingChannels: existing) { return .failure(error) }
        let id = BroadcastChannelID(randomBytes: ids.randomBytes(16)).rawValue
        let channel = EmulatedChannel(id: id, bundleId: bundleId, storagePolicy: policy.rawValue, createdAt: now)
        save(channel)
        return .success(channel)
    }

    /// The channel `id` of `bundleId`, or `400 ChannelNotRegistered`.
    package func channel(_ id: String, bundleId: String) -> Result<EmulatedChannel, APNsError> {
        guard let channel = channels[id], channel.bundleId == bundleId else {
            return .failure(BroadcastChannel.notRegistered(BroadcastChannelID(rawValue: id), bundleID: bundleId))
        }
        return .success(channel)
    }

    /// Deletes channel `id` of `bundleId`. Activities subscribed to it keep running but get no
    /// more broadcasts.
    package mutating func deleteChannel(_ id: String, bundleId: String, at time: UnixSeconds) -> Result<Void, APNsError>
    {
        _ = arrive(at: time)
        switch channel(id, bundleId: bundleId) {
        case .failure(let error): return .failure(error)
        case .success(let channel):
            save(channel, deleted: true)
            return .success(())
        }
    }

    /// The IDs of `bundleId`'s channels, sorted.
    package func channelIDs(bundleId: String) -> [String] {
        channels.values.filter { $0.bundleId == bundleId }.map(\.id).sorted()
    }

    /// Delivers a validated broadcast to every running activity subscribed to its channel and,
    /// under storage policy 1, keeps it (8 hours) for activities that join later.
    public mutating func deliverBroadcast(
        _ push: BroadcastPushRequest, context: PushContext, at time: UnixSeconds
    ) -> PushResult {
        let now = arrive(at: time)
        let channelId = push.channelID.rawValue
        let record = PushRecord(
            apnsId: context.apnsId, uniqueId: context.uniqueId, receivedAt: now, channelId: channelId,
            bundleId: push.bundleID, loggedHeaders: context.headers, loggedPayload: context.payload, outcome: .rejected)
        var hints = push.hints.map(\.note)
        guard var channel = channels[channelId], channel.bundleId == push.bundleID else {
            let error = BroadcastChannel.notRegistered(push.channelID, bundleID: push.bundleID)
            return finish(record, result: .failure(error), hints: hints, at: now)
        }
        let payload = push.payload
        if let dropped = payload.issues.first(where: \.dropsPush) {
            hints.append(.text(dropped.message))
            return finish(record, result: .success(.dropped), hints: hints, at: now)
        }
        let stored = StoredBroadcast(
            event: payload.event.rawValue,
            update: payload.activityUpdate,
            dismissalDate: payload.dismissalDate, receivedAt: now,
            expiresAt: now + MessageStoragePolicy.maxStorageSeconds)
        if channel.storagePolicy == MessageStoragePolicy.mostRecentMessageStored.rawValue {
            channel.storedMessage = stored
            save(channel)
        }
        let subscribers = activities.values.filter { $0.channelId == channelId && !$0.state.isOver }
            .map(\.id).sorted()
        var applied = 0
        for id in subscribers {
            guard var activity = activities[id] else { continue }
            if applyBroadcast(stored, to: &activity, priority: push.priority.rawValue, at: now) { applied += 1 }
        }
        hints.append(
            .text(
                "delivered to \(subscribers.count) subscribed activities; \(applied) showed it at once"
                    + (applied < subscribers.count ? Self.clockNote(context.clockOffset) : "")))
        return finish(record, result: .success(.broadcast), hints: hints, at: now)
    }

    /// Applies a broadcast (live or stored) to one subscribed activity; true when it showed at once.
    @discardableResult
    mutating func applyBroadcast(
        _ message: StoredBroadcast, to activity: inout LiveActivity, priority: Int, at now: UnixSeconds
    ) -> Bool {
        if message.event == LiveActivityEvent.end.rawValue {
            let outcome = activity.end(
                content: message.update.contentState,
                dismissalPolicy: .fromPush(dismissalDate: message.dismissalDate, at: now),
                timestamp: message.update.timestamp, rules: rules, at: now)
            guard case .ended = outcome else { return false }
            recordEnd(of: activity, at: now, cause: "broadcast")
            return true
        }
        let settings = devices[activity.deviceId]?.settings(activity.bundleId) ?? AppSettings()
        let outcome = activity.update(
            message.update, source: .push(priority: priority), frequentPushesEnabled: settings.frequentPushesEnabled,
            rules: rules, at: now)
        let snapshot = save(activity)
        switch outcome {
        case .deferred, .coalesced: noteFutureChanged(of: activity.deviceId)
        default: break
        }
        guard case .applied = outcome else { return false }
        emit(.activityUpdated, activity: snapshot, at: now, extra: ["cause": "broadcast"])
        return true
    }
}
