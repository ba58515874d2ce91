import RelayCore

/// How much history the database keeps (config object `retention`): the newest events for
/// `Last-Event-ID` resumption and the newest push records for `GET /v1/pushes`. Older rows are
/// pruned; a subscriber that needs a pruned event gets a snapshot instead.
package struct LogRetention: Sendable, Hashable {
    /// Events kept in the event log. Default 100,000.
    package var events: Int = 100_000
    /// Push records kept in the push log. Default 10,000.
    package var pushes: Int = 10_000

    /// The defaults.
    package init() {}

    /// The config keys, as written in the `retention` object.
    static let keys: Set<String> = ["events", "pushes"]

    /// Reads the `retention` object; keys left out keep their defaults.
    init(fields: ConfigFields) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        self.init()
        events = try fields.integer("events", in: 1...100_000_000) ?? events
        pushes = try fields.integer("pushes", in: 1...100_000_000) ?? pushes
    }
}
