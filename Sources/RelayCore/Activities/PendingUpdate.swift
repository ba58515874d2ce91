package import RelayJSON

/// Why a push update is being held instead of applied.
package enum DeferralReason: String, Sendable, Hashable, CaseIterable {
    /// A priority-10 update over the hourly budget: released when the next token refills.
    case budget
    /// A low-priority (5 or 1) update: applied opportunistically after `lowPriorityDelay`.
    case lowPriority
}

/// The one push update an activity holds back, with when and why it will be applied.
///
/// Only the latest state is held: a newer deferred update replaces it (coalescing), and an applied
/// update at least as new makes it obsolete.
package struct PendingUpdate: Sendable, Hashable {

    /// The held update; its `timestamp` is always set (to the arrival time when the push had none).
    package var update: ActivityUpdate
    /// When it will be applied (for `budget`, when a token will be there; it draws that token then).
    package var releaseAt: UnixSeconds
    /// Why it is held.
    package var reason: DeferralReason

    /// A held update; `timestamp` is the resolved data time.
    package init(update: ActivityUpdate, timestamp: UnixSeconds, releaseAt: UnixSeconds, reason: DeferralReason) {
        var update = update
        update.timestamp = timestamp
        self.update = update
        self.releaseAt = releaseAt
        self.reason = reason
    }

    /// The data time of the held update.
    package var timestamp: UnixSeconds { update.timestamp ?? releaseAt }

    /// The update's members plus `releaseAt` and `reason`.
    package var json: JSONValue {
        guard case .object(var members) = update.json else { return update.json }
        members["releaseAt"] = .number(releaseAt)
        members["reason"] = .string(reason.rawValue)
        return .object(members)
    }

    /// Restores a pending update written by `json`; errors name the member (prefixed with `path`).
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        let fields = try JSONFields(json, path: path)
        let update = try ActivityUpdate(fields: fields)
        let reasonText = try fields.requireString("reason")
        guard let reason = DeferralReason(rawValue: reasonText) else {
            throw fields.error("reason", "must be \"budget\" or \"lowPriority\"")
        }
        self.init(
            update: update, timestamp: try fields.requireNumber("timestamp"),
            releaseAt: try fields.requireNumber("releaseAt"), reason: reason)
    }
}
