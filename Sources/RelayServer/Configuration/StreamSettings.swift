import RelayCore

/// How the event stream treats subscribers (config object `stream`).
public struct StreamSettings: Sendable, Hashable {
    /// Bytes of unsent events one subscriber may have queued before it is disconnected (it then
    /// resumes from its last event id). Default 1 MiB.
    package var bufferBytes: Int = 1 << 20
    /// Seconds between heartbeat comments on a quiet stream, so proxies and clients see it alive. Default 15.
    package var heartbeatInterval: Double = 15
    /// Seconds a stream ticket (for EventSource, which cannot send headers) stays valid. Default 60.
    package var ticketLifetime: Double = 60

    /// The defaults.
    public init() {}

    /// The config keys, as written in the `stream` object.
    static let keys: Set<String> = ["bufferBytes", "heartbeatSeconds", "ticketLifetime"]

    /// Reads the `stream` object; keys left out keep their defaults.
    init(fields: ConfigFields) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        self.init()
        bufferBytes = try fields.integer("bufferBytes", in: 4096...(256 << 20)) ?? bufferBytes
        heartbeatInterval = try fields.seconds("heartbeatSeconds", atMost: 3600) ?? heartbeatInterval
        ticketLifetime = try fields.seconds("ticketLifetime", atMost: 3600) ?? ticketLifetime
    }
}
