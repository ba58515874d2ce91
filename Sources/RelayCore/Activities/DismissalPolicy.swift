package import RelayJSON

/// When an ended activity leaves the Lock Screen (ActivityKit's `ActivityUIDismissalPolicy`).
package enum DismissalPolicy: Sendable, Hashable {
    /// Up to `RelayRules.dismissalWindow` (4 h) after the end.
    case `default`
    /// At once: the activity is dismissed when it ends.
    case immediate
    /// At the given time, or at the end of the dismissal window, whichever is first.
    case after(UnixSeconds)

    /// The policy a push `end` implies by its `dismissal-date`: none → `default`; at or before `now` →
    /// `immediate`; later → `after(date)`.
    package static func fromPush(dismissalDate: UnixSeconds?, at now: UnixSeconds) -> DismissalPolicy {
        guard let dismissalDate else { return .default }
        return dismissalDate <= now ? .immediate : .after(dismissalDate)
    }

    /// When an activity started at `startedAt` and ended at `endedAt` is dismissed under this policy:
    /// `default` → end + window; `immediate` → end; `after(d)` → d clamped to [end, end + window]; and in
    /// every case no later than `startedAt + maxVisibleLifetime` (but never before the end).
    package func dismissAt(endedAt: UnixSeconds, startedAt: UnixSeconds, rules: RelayRules) -> UnixSeconds {
        let windowEnd = endedAt + max(0, rules.dismissalWindow)
        let wanted: UnixSeconds
        switch self {
        case .default: wanted = windowEnd
        case .immediate: wanted = endedAt
        case .after(let date): wanted = min(max(date, endedAt), windowEnd)
        }
        return max(endedAt, min(wanted, startedAt + rules.maxVisibleLifetime))
    }

    /// The app API shape: `"default"`, `"immediate"` or `{"after": unixSeconds}`.
    package var json: JSONValue {
        switch self {
        case .default: return "default"
        case .immediate: return "immediate"
        case .after(let date): return .object(["after": .number(date)])
        }
    }

    /// Reads the app API shape; errors name `path` (e.g. `dismissalPolicy`).
    package init(json: JSONValue, path: String = "dismissalPolicy") throws(JSONFieldError) {
        switch json {
        case .string("default"): self = .default
        case .string("immediate"): self = .immediate
        case .object:
            let fields = try JSONFields(json, path: path)
            try fields.rejectUnknown(["after"])
            self = .after(try fields.requireNumber("after"))
        default:
            throw JSONFieldError(
                key: path, found: json, message: #"must be "default", "immediate" or {"after": unixSeconds}"#)
        }
    }
}
