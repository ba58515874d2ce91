// MARK: - Broadcast channels (iOS 18) and broadcast pushes

extension DeviceEmulator {
    /// Creates a channel for `bundleId` (`POST /1/apps/{bundleId}/channels`); at most
    /// `BroadcastChannel.maxChannelsPerApp` per app (`400 CannotCreateChannelConfig`).
    public mutating func createChannel(
        bundleId: String, policy: MessageStoragePolicy, at time: UnixSeconds
    ) -> Result<EmulatedChannel, APNsError> {
        let existing = channels.values.reduce(0) { $0 + ($1.bundleId == bundleId ? 1 : 0) }
        return createChannel(bundleId: bundleId, policy: policy, existingChannels: existing, at: time)
    }

    /// `createChannel` for an app whose channels are counted elsewhere: cluster mode keeps them
    /// in Redis, one record each, and counts them there.
    package mutating func createChannel(
        bundleId: String, policy: MessageStoragePolicy, existingChannels: Int, at time: UnixSeconds
    ) -> Result<EmulatedChannel, APNsError> {
        let now = arrive(at: time)
        if let error = BroadcastChannel.checkCapacity(existingChannels: existingChannels) { return .failure(error) }
        let id = BroadcastChannelID(randomBytes: ids.randomBytes(16)).rawValue
        let channel = EmulatedChannel(id: id, bundleId: bundleId, storagePolicy: policy.rawValue, createdAt: now)
        save(channel)
        return .success(channel)
    }

    /// Puts a channel kept elsewhere into this emulator without recording a write: cluster mode
    /// lends a device's command the channel it joins (read only; the device never stores it).
    package mutating func lend(_ channel: EmulatedChannel) {
        channels[channel.id] = channel
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
    /// under storage policy 1, keeps it (8 hours) for activities that join later: the three steps
    /// below in one command. Cluster mode runs them apart (the channel, then each subscribed
    /// device, then the record), with the same rules.
    public mutating func deliverBroadcast(
        _ push: BroadcastPushRequest, context: PushContext, at time: UnixSeconds
    ) -> PushResult {
        let now = arrive(at: time)
        var hints = push.hintNotes
        let outcome = storeBroadcast(push, hints: &hints, at: now).map { stored in
            stored.map {
                applyBroadcast($0, toSubscribersOf: push.channelID.rawValue, priority: push.priority.rawValue, at: now)
            }
        }
        return finishBroadcast(push, context: context, outcome: outcome, hints: hints, at: now)
    }

    /// Step 1 of a broadcast, on its channel (`hints` starts as `push.hintNotes`): the channel must still be the app's
    /// (`ChannelNotRegistered`); a payload issue that drops the push gives nil (with its hint);
    /// otherwise the message, which a policy-1 channel keeps.
    package mutating func storeBroadcast(
        _ push: BroadcastPushRequest, hints: inout [PushNote], at now: UnixSeconds
    ) -> Result<StoredBroadcast?, APNsError> {
        let channelId = push.channelID.rawValue
        guard var channel = channels[channelId], channel.bundleId == push.bundleID else {
            return .failure(BroadcastChannel.notRegistered(push.channelID, bundleID: push.bundleID))
        }
        let payload = push.payload
        if let dropped = payload.issues.first(where: \.dropsPush) {
            hints.append(.text(dropped.message))
            return .success(nil)
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
        return .success(stored)
    }

    /// Step 2: applies `message` to this emulator's running activities subscribed to `channelId`
    /// (only those started at or after `joinedSince`, when given), in id order.
    package mutating func applyBroadcast(
        _ message: StoredBroadcast, toSubscribersOf channelId: String, priority: Int,
        joinedSince: UnixSeconds? = nil, at time: UnixSeconds
    ) -> BroadcastDelivery {
        let now = arrive(at: time)
        let subscribers = activities.values.filter {
            $0.channelId == channelId && !$0.state.isOver && $0.startedAt >= (joinedSince ?? -.infinity)
        }.map(\.id).sorted()
        var delivery = BroadcastDelivery(subscribers: subscribers.count)
        for id in subscribers {
            guard var activity = activities[id] else { continue }
            if applyBroadcast(message, to: &activity, priority: priority, at: now) { delivery.applied += 1 }
        }
        return delivery
    }

    /// Step 3: the broadcast's push record (and its `push.received` event), from what steps 1
    /// and 2 did: a refusal, nil for a dropped push, or the delivery.
    package mutating func finishBroadcast(
        _ push: BroadcastPushRequest, context: PushContext, outcome: Result<BroadcastDelivery?, APNsError>,
        hints: [PushNote], at now: UnixSeconds
    ) -> PushResult {
        let record = PushRecord(
            apnsId: context.apnsId, uniqueId: context.uniqueId, receivedAt: now, channelId: push.channelID.rawValue,
            bundleId: push.bundleID, loggedHeaders: context.headers, loggedPayload: context.payload, outcome: .rejected)
        var hints = hints
        switch outcome {
        case .failure(let error):
            return finish(record, result: .failure(error), hints: hints, at: now)
        case .success(nil):
            return finish(record, result: .success(.dropped), hints: hints, at: now)
        case .success(let delivery?):
            hints.append(
                .text(
                    "delivered to \(delivery.subscribers) subscribed activities; \(delivery.applied) showed it at once"
                        + (delivery.applied < delivery.subscribers ? Self.clockNote(context.clockOffset) : "")))
            return finish(record, result: .success(.broadcast), hints: hints, at: now)
        }
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

/// What a broadcast did on the activities of one emulator (or, summed, of every subscribed
/// device): how many running activities were subscribed, and how many showed it at once.
package struct BroadcastDelivery: Sendable, Hashable {
    package var subscribers: Int
    package var applied: Int

    package init(subscribers: Int = 0, applied: Int = 0) {
        self.subscribers = subscribers
        self.applied = applied
    }

    /// Adds another device's delivery.
    package static func + (left: BroadcastDelivery, right: BroadcastDelivery) -> BroadcastDelivery {
        BroadcastDelivery(subscribers: left.subscribers + right.subscribers, applied: left.applied + right.applied)
    }
}

extension BroadcastPushRequest {
    /// The hints a broadcast's record starts with.
    package var hintNotes: [PushNote] { hints.map(\.note) }
}
