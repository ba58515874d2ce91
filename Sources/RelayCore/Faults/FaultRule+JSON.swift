package import RelayJSON

// MARK: - The JSON shape of a fault rule (POST /v1/faults, config `faults.rules`, scenarios)

extension FaultRule {
    /// A rule as written: `{"kind", ...}` with, per kind,
    /// - `error`: `status` (400-599), `reason` (Apple's reason string; optional for 429, 500 and 503);
    /// - `latency`: `ms`, or `minMs` and `maxMs` for a uniform draw (0 to 600000);
    /// - `goaway`: `afterStreams` (default 0), `reason` (default `Shutdown`);
    /// - `reset`: nothing more;
    /// - `refuseHandshakes`: `seconds` (up to 86400), global only;
    /// and for every kind but `refuseHandshakes` the optional `bundleId`, `token`, `share` (0 to 1,
    /// default 1) and `count` (the next N matching pushes). `seed` (a whole number) gives the rule its
    /// own generator; without it the rule uses the plan's seed (`ownSeed` false). `createdAt` is real
    /// time. Unknown members are errors naming their path.
    package static func parse(_ json: JSONValue, path: String = "", createdAt: Double) throws(JSONFieldError)
        -> (rule: FaultRule, ownSeed: Bool)
    {
        let fields = try JSONFields(json, path: path)
        let kind = try fields.requireString("kind")
        let scoped: Set<String> = ["kind", "bundleId", "token", "share", "count", "seed"]
        let action: Action
        switch kind {
        case "error":
            try fields.rejectUnknown(scoped.union(["status", "reason"]))
            let status = try fields.requireInteger("status")
            guard (400...599).contains(status) else { throw fields.error("status", "must be from 400 to 599") }
            let reason = try fields.string("reason") ?? defaultReasons[status]
            guard let reason else {
                throw fields.error("reason", "is required for status \(status) (an APNs reason such as BadDeviceToken)")
            }
            try checkReason(reason, fields: fields, key: "reason")
            action = .error(status: status, reason: reason)
        case "latency":
            try fields.rejectUnknown(scoped.union(["ms", "minMs", "maxMs"]))
            if let ms = try fields.number("ms") {
                guard fields.value("minMs") == nil, fields.value("maxMs") == nil else {
                    throw fields.error("ms", "takes no minMs or maxMs beside it (a fixed delay, or a range)")
                }
                try checkDelay(ms, fields: fields, key: "ms")
                action = .latency(minMs: ms, maxMs: ms)
            } else {
                guard let low = try fields.number("minMs"), let high = try fields.number("maxMs") else {
                    throw fields.error("ms", "is required (milliseconds), or minMs and maxMs for a uniform range")
                }
                try checkDelay(low, fields: fields, key: "minMs")
                try checkDelay(high, fields: fields, key: "maxMs")
                guard low <= high else { throw fields.error("maxMs", "must not be below minMs") }
                action = .latency(minMs: low, maxMs: high)
            }
        case "goaway":
            try fields.rejectUnknown(scoped.union(["afterStreams", "reason"]))
            let after = try fields.integer("afterStreams") ?? 0
            guard (0...1_000_000).contains(after) else {
                throw fields.error("afterStreams", "must be a whole number from 0 to 1000000")
            }
            let reason = try fields.string("reason") ?? "Shutdown"
            try checkReason(reason, fields: fields, key: "reason")
            action = .goaway(afterStreams: after, reason: reason)
        case "reset":
            try fields.rejectUnknown(scoped)
            action = .reset
        case "refuseHandshakes":
            try fields.rejectUnknown(["kind", "seconds"])
            let seconds = try fields.requireNumber("seconds")
            guard seconds > 0, seconds <= 86_400 else {
                throw fields.error("seconds", "must be above 0, at most 86400")
            }
            action = .refuseHandshakes(seconds: seconds)
        default:
            throw fields.error("kind", "must be \"error\", \"latency\", \"goaway\", \"reset\" or \"refuseHandshakes\"")
        }
        var rule = FaultRule(id: "", action: action, createdAt: createdAt)
        if let bundleId = try fields.string("bundleId") {
            guard BundleID.isValid(bundleId) else {
                throw fields.error("bundleId", "must be 1-155 characters of A-Z, a-z, 0-9, '-' and '.'")
            }
            rule.bundleId = bundleId
        }
        if let token = try fields.string("token") {
            let bytes = token.utf8
            guard bytes.count >= 2, bytes.count <= APNsDeviceToken.maxBytes * 2, bytes.count % 2 == 0,
                bytes.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
            else {
                throw fields.error("token", "must be a device token: an even number of hex digits")
            }
            rule.token = token.lowercased()
        }
        if let share = try fields.number("share") {
            guard share > 0, share <= 1 else { throw fields.error("share", "must be above 0, at most 1") }
            rule.share = share
        }
        if let count = try fields.integer("count") {
            guard (1...1_000_000).contains(count) else {
                throw fields.error("count", "must be a whole number from 1 to 1000000")
            }
            rule.remaining = count
        }
        let seed = try fields.integer("seed")
        if let seed {
            guard seed >= 0 else { throw fields.error("seed", "must be a whole number, 0 or more") }
            rule.seed = UInt64(seed)
            rule.generator = SeededGenerator(seed: UInt64(seed))
        }
        return (rule, seed != nil)
    }

    /// The reason APNs gives with the statuses retry tests use most.
    static let defaultReasons: [Int: String] = [
        429: "TooManyRequests", 500: "InternalServerError", 503: "ServiceUnavailable",
    ]

    private static func checkReason(_ reason: String, fields: JSONFields, key: String) throws(JSONFieldError) {
        let bytes = reason.utf8
        guard !bytes.isEmpty, bytes.count <= 64,
            bytes.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) })
        else {
            throw fields.error(key, "must be 1-64 letters and digits, as APNs reasons are")
        }
    }

    private static func checkDelay(_ ms: Double, fields: JSONFields, key: String) throws(JSONFieldError) {
        guard ms >= 0, ms <= 600_000 else { throw fields.error(key, "must be 0 to 600000 milliseconds") }
    }

    /// The rule as `GET /v1/faults` lists it: what was written plus `id`, `seed`, `count` (what
    /// is left, or null), `matched` and `injected`; a handshake window also has `until`.
    package var json: JSONValue {
        var members: JSONObject = ["id": .string(id), "kind": .string(action.kind)]
        switch action {
        case .error(let status, let reason):
            members["status"] = .int(Int64(status))
            members["reason"] = .string(reason)
        case .latency(let low, let high):
            if low == high {
                members["ms"] = .number(low)
            } else {
                members["minMs"] = .number(low)
                members["maxMs"] = .number(high)
            }
        case .goaway(let after, let reason):
            members["afterStreams"] = .int(Int64(after))
            members["reason"] = .string(reason)
        case .reset:
            break
        case .refuseHandshakes(let seconds):
            members["seconds"] = .number(seconds)
            members["until"] = .number(createdAt + seconds)
        }
        if case .refuseHandshakes = action {
        } else {
            members["bundleId"] = .optional(bundleId.map(JSONValue.string))
            members["token"] = .optional(token.map(JSONValue.string))
            members["share"] = .number(share)
            members["count"] = .optional(remaining.map { .int(Int64($0)) })
            members["seed"] = .int(Int64(clamping: seed))
        }
        members["matched"] = .int(Int64(matched))
        members["injected"] = .int(Int64(injected))
        return .object(members)
    }
}
