package import RelayJSON

/// One Live Activity on the emulated device, and the rules of its life as a pure value.
///
/// Everything that happens to it goes through four calls, each given the time: `start`, `update`,
/// `end` and `advance(to:)`. The first three return what the device did; `advance` returns the
/// transitions time brought (stale, held update applied or dropped, ended by the system, dismissed),
/// in order and each with its own time, however far the clock jumps. `nextDeadline` tells the shell
/// when to call `advance` next. The store keeps activities as `json` (see `LiveActivity+JSON.swift`).
public struct LiveActivity: Sendable, Hashable {
    /// What never changes after the start, in one shared box: a copy of an activity (for its
    /// document and events) then retains one object for these instead of one per string.
    private let identity: Identity

    /// The relay's ID for the activity.
    package var id: String { identity.id }
    /// The emulated device it runs on.
    package var deviceId: String { identity.deviceId }
    /// The app's bundle ID.
    package var bundleId: String { identity.bundleId }
    /// The name of the app's `ActivityAttributes` type.
    package var attributesType: String { identity.attributesType }
    /// The static attributes.
    package var attributes: JSONValue { identity.attributes }
    /// The current content state (set with `show`).
    package private(set) var contentState: JSONValue
    /// Where it is in its life.
    package internal(set) var state: ActivityState
    /// `ContentStateShape.fingerprint` of `contentState`, for the shape hint of the next push
    /// (set with `show`).
    private(set) var contentStateShape: UInt64
    /// When the current content goes stale, or nil for never.
    package internal(set) var staleDate: UnixSeconds?
    /// Orders the app's activities: higher first (see `ordered`). 0 unless set.
    package internal(set) var relevanceScore: Double
    /// The update push token, or nil (none asked for, or not issued yet). The shell rotates it.
    public var pushToken: String?
    /// The broadcast channel it listens to, or nil.
    package var channelId: String? { identity.channelId }
    /// When it started.
    package var startedAt: UnixSeconds { identity.startedAt }
    /// When the system ends it if nothing ends it first: `startedAt + activeLifetime` under the rules it
    /// started with (kept, so a later config change does not shorten running activities).
    package var systemEndAt: UnixSeconds { identity.systemEndAt }
    /// When it ended, or nil while running.
    package internal(set) var endedAt: UnixSeconds?
    /// When it leaves (or left) the Lock Screen, or nil while running.
    package internal(set) var dismissAt: UnixSeconds?
    /// The timestamp of the newest applied data; older updates are ignored.
    package internal(set) var lastTimestamp: UnixSeconds
    /// The priority-10 push budget.
    package internal(set) var updateBudget: UpdateBudget
    /// The update held back, if any.
    package internal(set) var pendingUpdate: PendingUpdate?
    /// What happened to its updates so far.
    package internal(set) var counters: ActivityCounters
    /// Compact JSON bytes of `attributes`, kept so each update measures only its content state.
    var attributesBytes: Int { identity.attributesBytes }
    /// The members of the activity's JSON that never change, already written (see `serializedJSON`).
    var fixedMembers: LiveActivity.FixedMembers { identity.fixedMembers }

    /// The parts fixed at the start.
    private final class Identity: Sendable, Hashable {
        let id: String
        let deviceId: String
        let bundleId: String
        let attributesType: String
        let attributes: JSONValue
        let channelId: String?
        let startedAt: UnixSeconds
        let systemEndAt: UnixSeconds
        let attributesBytes: Int
        let fixedMembers: LiveActivity.FixedMembers

        init(
            id: String, deviceId: String, bundleId: String, attributesType: String, attributes: JSONValue,
            channelId: String?, startedAt: UnixSeconds, systemEndAt: UnixSeconds
        ) {
            self.id = id
            self.deviceId = deviceId
            self.bundleId = bundleId
            self.attributesType = attributesType
            self.attributes = attributes
            self.channelId = channelId
            self.startedAt = startedAt
            self.systemEndAt = systemEndAt
            self.attributesBytes = ActivityDataSize.bytes(of: attributes)
            self.fixedMembers = LiveActivity.FixedMembers(
                id: id, deviceId: deviceId, bundleId: bundleId, attributesType: attributesType, attributes: attributes,
                channelId: channelId, startedAt: startedAt, systemEndAt: systemEndAt)
        }

        static func == (lhs: Identity, rhs: Identity) -> Bool {
            lhs === rhs
                || (lhs.id == rhs.id && lhs.deviceId == rhs.deviceId && lhs.bundleId == rhs.bundleId
                    && lhs.attributesType == rhs.attributesType && lhs.attributes == rhs.attributes
                    && lhs.channelId == rhs.channelId && lhs.startedAt == rhs.startedAt
                    && lhs.systemEndAt == rhs.systemEndAt)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(deviceId)
            hasher.combine(bundleId)
            hasher.combine(attributesType)
            hasher.combine(attributes)
            hasher.combine(channelId)
            hasher.combine(startedAt)
            hasher.combine(systemEndAt)
        }
    }

    /// Every stored part; used by `start` and by `fromJSON`.
    init(
        id: String, deviceId: String, bundleId: String, attributesType: String, attributes: JSONValue,
        contentState: JSONValue, state: ActivityState, staleDate: UnixSeconds?, relevanceScore: Double,
        pushToken: String?, channelId: String?, startedAt: UnixSeconds, systemEndAt: UnixSeconds, endedAt: UnixSeconds?,
        dismissAt: UnixSeconds?, lastTimestamp: UnixSeconds, updateBudget: UpdateBudget, pendingUpdate: PendingUpdate?,
        counters: ActivityCounters
    ) {
        identity = Identity(
            id: id, deviceId: deviceId, bundleId: bundleId, attributesType: attributesType, attributes: attributes,
            channelId: channelId, startedAt: startedAt, systemEndAt: systemEndAt)
        self.contentState = contentState
        contentStateShape = ContentStateShape.fingerprint(of: contentState)
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.pushToken = pushToken
        self.endedAt = endedAt
        self.dismissAt = dismissAt
        self.lastTimestamp = lastTimestamp
        self.updateBudget = updateBudget
        self.pendingUpdate = pendingUpdate
        self.counters = counters
    }

    /// Starts an activity at `now`, from the app (`Activity.request`) or a push-to-start.
    ///
    /// Attributes + content state must fit `maxActivityDataBytes`; a stale date at or before `now`
    /// starts it `stale`; `timestamp` (default `now`) becomes `lastTimestamp`; the update budget starts full.
    package static func start(
        id: String, deviceId: String, bundleId: String, attributesType: String, attributes: JSONValue,
        contentState: JSONValue, staleDate: UnixSeconds? = nil, relevanceScore: Double? = nil,
        pushToken: String? = nil, channelId: String? = nil, timestamp: UnixSeconds? = nil,
        frequentPushesEnabled: Bool = false, rules: RelayRules, at now: UnixSeconds
    ) throws(ActivityError) -> LiveActivity {
        guard !attributesType.isEmpty else {
            throw .invalidValue(field: "attributesType", value: "\"\"", message: "must not be empty")
        }
        for (field, number) in [("staleDate", staleDate), ("relevanceScore", relevanceScore), ("timestamp", timestamp)]
        {
            if let number, !number.isFinite {
                throw .invalidValue(field: field, value: "\(number)", message: "must be a finite number")
            }
        }
        let activity = LiveActivity(
            id: id, deviceId: deviceId, bundleId: bundleId, attributesType: attributesType, attributes: attributes,
            contentState: contentState, state: staleDate.map { $0 <= now } == true ? .stale : .active,
            staleDate: staleDate, relevanceScore: relevanceScore ?? 0, pushToken: pushToken, channelId: channelId,
            startedAt: now, systemEndAt: now + rules.activeLifetime, endedAt: nil, dismissAt: nil,
            lastTimestamp: timestamp ?? now,
            updateBudget: UpdateBudget(frequentPushesEnabled: frequentPushesEnabled, rules: rules, at: now),
            pendingUpdate: nil, counters: ActivityCounters())
        let bytes = activity.dataBytes(contentState: contentState)
        guard bytes <= rules.maxActivityDataBytes else {
            throw .tooLarge(bytes: bytes, limit: rules.maxActivityDataBytes)
        }
        return activity
    }

    /// Shows `content`, whose `ContentStateShape.fingerprint` is `shape` (nil: take it now). The
    /// one way to change the content state, so that the two always agree.
    mutating func show(_ content: JSONValue, shape: UInt64? = nil) {
        contentState = content
        contentStateShape = shape ?? ContentStateShape.fingerprint(of: content)
    }

    /// Compact JSON bytes of the attributes with `contentState`: what the size rule measures.
    package func dataBytes(contentState: JSONValue) -> Int {
        attributesBytes + ActivityDataSize.bytes(of: contentState)
    }

    /// Follows a change of the app's frequent-pushes setting at `now`: the budget is resized keeping the
    /// tokens already drawn, and an update held for the budget is rescheduled to the new token time.
    package mutating func setFrequentPushesEnabled(_ enabled: Bool, rules: RelayRules, at now: UnixSeconds) {
        guard updateBudget.configure(frequentPushesEnabled: enabled, rules: rules, at: now) else { return }
        if var pending = pendingUpdate, pending.reason == .budget {
            pending.releaseAt = max(now, updateBudget.availableAt(now))
            pendingUpdate = pending
        }
    }

    /// The app's activities in display order: higher `relevanceScore` first, then the one started
    /// earlier (ActivityKit: "equal or absent, first started wins"), then by ID so the order is total.
    package static func ordered(_ activities: [LiveActivity]) -> [LiveActivity] {
        activities.sorted { left, right in
            if left.relevanceScore != right.relevanceScore { return left.relevanceScore > right.relevanceScore }
            if left.startedAt != right.startedAt { return left.startedAt < right.startedAt }
            return left.id < right.id
        }
    }
}
