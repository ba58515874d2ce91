package import RelayJSON

/// The emulated phones: every device, activity, alarm and channel, and what they do with each
/// request, push and tick of the clock. A pure value: time is an argument and identifiers come
/// from the `IdentifierGenerator` it was made with.
///
/// Each command first brings the emulator up to its time (`advance(to:)`), so timed transitions
/// are always applied before the request that follows them. Commands record what they changed;
/// the caller takes it with `takeEffects()`, makes it durable, then answers.
public struct DeviceEmulator: Sendable {
    /// The rules in force.
    package var rules: RelayRules
    package let ids: any IdentifierGenerator
    package internal(set) var devices: [String: EmulatedDevice] = [:]
    package internal(set) var activities = ActivityTable()
    package internal(set) var alarms: [String: Alarm] = [:]
    package internal(set) var channels: [String: EmulatedChannel] = [:]
    /// Push-to-start pushes dropped because the app's start budget was spent, since this
    /// emulator was made (a process-lifetime counter for metrics; not stored).
    package internal(set) var pushToStartBudgetExhaustions: UInt64 = 0
    /// Update and push-to-start tokens → what they address, with their burst limiters.
    var tokens: [TokenKey: TokenEntry] = [:]
    var deadlines = DeadlineQueue<TimedSubject>(denseIndex: \.position)
    /// The sequence number the next event gets.
    package internal(set) var nextSeq: UInt64
    /// The latest time the emulator has reached; it never goes back.
    package internal(set) var now: UnixSeconds
    var effects = EmulatorEffects()
    /// Where `advance(to:)` collects an activity's transitions, emptied after each use but kept
    /// with its room: a list of its own each time cost an allocation at most pushes' arrival.
    var transitionScratch: [ActivityTransition] = []
    /// Devices whose future a command changed since effects were last taken, in the order first
    /// changed: `takeEffects()` records a `timeline.reload` for each (see `noteFutureChanged`).
    var changedFutures: [String] = []
    /// True while `advance(to:)` applies timed transitions: those are the future a timeline
    /// already showed, so they do not make it stale.
    var advancing = false

    /// What a token addresses.
    enum TokenTarget: Sendable, Hashable {
        /// The activity at this position in `activities`.
        case activity(Int)
        /// Boxed: without its three strings inline, a token's entry (with its burst limiter)
        /// takes 48 bytes instead of 88, so a push's lookup mostly reads one cache line.
        indirect case pushToStart(deviceId: String, bundleId: String, attributesType: String)
    }

    /// An issued token: what it addresses and its burst limiter. One entry, so a push finds both
    /// with one lookup of its (long) token.
    struct TokenEntry: Sendable {
        var target: TokenTarget
        /// Full from the token's issue (or the relay's start): a full bucket answers the same
        /// whenever it was filled, and kept this way, not made at the first push, the entry has
        /// no optional's tag and is 48 bytes, not 56 (a lookup reads fewer cache lines). Kept in
        /// memory only: a restart forgives a burst.
        var burst: BurstLimiter

        init(_ target: TokenTarget, rules: RelayRules, at now: UnixSeconds) {
            self.target = target
            burst = BurstLimiter(rules: rules, at: now)
        }
    }

    /// The `extra` members of events, built once: an object literal per event costs an
    /// allocation.
    enum Cause {
        static let push: JSONObject = ["cause": "push"]
        static let deferredUpdateReleased: JSONObject = ["cause": "deferredUpdateReleased"]
        static let deferredUpdateDiscarded: JSONObject = ["cause": "deferredUpdateDiscarded"]
        static let lifetimeExceeded: JSONObject = ["cause": "lifetimeExceeded"]
    }

    /// Something with timed transitions.
    enum TimedSubject: Sendable, Hashable {
        /// The activity at this position in `activities`.
        case activity(Int)
        case alarm(String)

        /// The activity's position: its slot in `deadlines` is found without hashing.
        var position: Int? {
            if case .activity(let position) = self { position } else { nil }
        }
    }

    /// An empty emulator at `now`, whose first event will have sequence number `nextSeq`.
    public init(rules: RelayRules, ids: any IdentifierGenerator, now: UnixSeconds, nextSeq: UInt64 = 1) {
        self.rules = rules
        self.ids = ids
        self.now = now
        self.nextSeq = max(nextSeq, 1)
    }

    /// Hands over (and forgets) what the commands since the last call changed, ending with one
    /// `timeline.reload` for each device whose future they changed.
    public mutating func takeEffects() -> EmulatorEffects {
        recordTimelineReloads()
        defer { effects = EmulatorEffects() }
        return effects
    }

    // MARK: - Restoring

    /// Rebuilds the emulator from stored documents. Timed transitions that fell due while the
    /// relay was down are not applied here: call `advance(to:)` with the current time afterwards,
    /// which applies them in order, each with its own timestamp.
    package static func restore(
        rules: RelayRules, ids: any IdentifierGenerator, now: UnixSeconds, nextSeq: UInt64,
        documents: [(kind: DocumentKind, body: JSONValue)]
    ) throws(JSONFieldError) -> DeviceEmulator {
        var emulator = DeviceEmulator(rules: rules, ids: ids, now: now, nextSeq: nextSeq)
        for document in documents {
            switch document.kind {
            case .device:
                let device = try EmulatedDevice.fromJSON(document.body)
                emulator.devices[device.id] = device
                for token in device.pushToStartTokens {
                    emulator.tokens[TokenKey(token.token)] = TokenEntry(
                        .pushToStart(
                            deviceId: device.id, bundleId: token.bundleId, attributesType: token.attributesType),
                        rules: rules, at: now)
                }
            case .activity:
                let activity = try LiveActivity.fromJSON(document.body)
                let position = emulator.activities.store(activity)
                if let token = activity.pushToken {
                    emulator.tokens[TokenKey(token)] = TokenEntry(.activity(position), rules: rules, at: now)
                }
                emulator.deadlines.schedule(.activity(position), at: activity.nextDeadline)
            case .alarm:
                let alarm: Alarm
                do {
                    alarm = try Alarm.fromJSON(document.body)
                } catch {
                    throw JSONFieldError(key: "alarm", found: nil, message: error.message)
                }
                emulator.alarms[alarm.id] = alarm
                emulator.deadlines.schedule(.alarm(alarm.id), at: alarm.nextDeadline)
            case .channel:
                let channel = try EmulatedChannel.fromJSON(document.body)
                emulator.channels[channel.id] = channel
            }
        }
        return emulator
    }

    // MARK: - Recording

    /// Sequences and records an event (taken, not copied: each copy retains every string in it).
    mutating func emit(_ event: consuming RelayEvent) {
        event.seq = nextSeq
        nextSeq += 1
        effects.append(event)
    }

    /// Records an activity event carrying the activity as `save` just recorded it (`snapshot`),
    /// shared with its document rather than copied again.
    mutating func emit(
        _ type: RelayEventType, activity snapshot: ActivitySnapshot, at time: UnixSeconds, extra: JSONObject = [:]
    ) {
        if !advancing && type != .activityPushToken { noteFutureChanged(of: snapshot.deviceId) }
        emit(RelayEvent(type: type, at: time, activity: snapshot, extra: extra))
    }

    /// Records an alarm event carrying the alarm's current state.
    mutating func emit(_ type: RelayEventType, alarm: Alarm, at time: UnixSeconds) {
        if !advancing { noteFutureChanged(of: alarm.deviceId) }
        emit(
            RelayEvent(
                type: type, at: time, deviceId: alarm.deviceId, bundleId: alarm.bundleId, alarmId: alarm.id,
                subjectKey: "alarm", source: .alarm(alarm)))
    }

    /// Stores `activity` and reschedules its next deadline. Returns the state recorded for the
    /// document, for events about the same state to share.
    @discardableResult
    mutating func save(_ activity: LiveActivity) -> ActivitySnapshot {
        saveActivity(at: activities.store(activity))
    }

    /// Records the activity at `position` in `activities` (changed there in place) as `save` does.
    @discardableResult
    mutating func saveActivity(at position: Int) -> ActivitySnapshot {
        let snapshot = activities.snapshot(position: position)
        deadlines.schedule(.activity(position), at: snapshot.nextDeadline)
        effects.write(DocumentWrite(activity: snapshot))
        return snapshot
    }

    /// Stores `alarm` (or deletes it once removed) and reschedules its next deadline.
    mutating func save(_ alarm: Alarm) {
        if alarm.removedAt != nil {
            alarms[alarm.id] = nil
            deadlines.schedule(.alarm(alarm.id), at: nil)
            effects.write(.deletion(kind: .alarm, id: alarm.id, deviceId: alarm.deviceId))
            return
        }
        alarms[alarm.id] = alarm
        deadlines.schedule(.alarm(alarm.id), at: alarm.nextDeadline)
        effects.write(
            DocumentWrite(
                kind: .alarm, id: alarm.id, deviceId: alarm.deviceId, bundleId: alarm.bundleId,
                state: alarm.state.rawValue, source: .alarm(alarm)))
    }

    /// Stores `device`.
    mutating func save(_ device: EmulatedDevice) {
        devices[device.id] = device
        effects.write(DocumentWrite(kind: .device, id: device.id, deviceId: device.id, body: device.storedJSON))
    }

    /// Stores `channel`, or deletes it with `deleted`.
    mutating func save(_ channel: EmulatedChannel, deleted: Bool = false) {
        if deleted {
            channels[channel.id] = nil
            effects.write(.deletion(kind: .channel, id: channel.id))
            return
        }
        channels[channel.id] = channel
        effects.write(DocumentWrite(kind: .channel, id: channel.id, bundleId: channel.bundleId, body: channel.json))
    }

    /// Clamps a command's time so the emulator never goes back, and applies what fell due.
    mutating func arrive(at time: UnixSeconds) -> UnixSeconds {
        advance(to: time)
        return now
    }
}

extension DeviceEmulator {
    /// Sequences and records an event that does not come from a command (the clock's own).
    package mutating func record(_ event: RelayEvent) { emit(event) }
}

// MARK: - Burst limiters kept by a shared store

extension DeviceEmulator {
    /// Each token's burst limiter bucket. One relay keeps them in memory (a restart forgives a
    /// burst); cluster mode stores them with the device so that a token's burst limit holds on
    /// every node.
    package var tokenBursts: [(token: String, bucket: TokenBucket)] {
        tokens.map { (token: $0.key.text, bucket: $0.value.burst.bucket) }
    }

    /// Sets the burst limiter of `token`, if the emulator knows the token.
    package mutating func restoreBurst(token: String, bucket: TokenBucket) {
        tokens[TokenKey(token)]?.burst = BurstLimiter(bucket: bucket)
    }
}
