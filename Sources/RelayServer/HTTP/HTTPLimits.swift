/// Protocol-level limits of the listener (the transport's own are `RelayNet.ServerLimits`).
/// Past a limit the peer gets the protocol's answer (413, 431, RST_STREAM, GOAWAY, close) and
/// nothing else is affected.
public struct HTTPLimits: Sendable, Equatable {
    /// A connection with no request in progress is closed after this many seconds.
    public var idleTimeout: Double = 300
    /// A request head must be complete this many seconds after its first byte.
    public var headerReadTimeout: Double = 10
    /// A request body must be complete this many seconds after its head.
    public var bodyReadTimeout: Double = 30
    /// HTTP/2 streams one connection may have open.
    public var maxConcurrentStreams: Int = 128
    /// Bytes of header names and values (+32 each) one request may carry.
    public var maxHeaderListSize: Int = 16_384
    /// Bytes of request body.
    public var maxBodyBytes: Int = 65_536
    /// Bytes a streaming response may have queued before its subscriber counts as too slow.
    public var streamBufferBytes: Int = 1_048_576
    /// Whether a new HTTP/2 connection is allowed one stream until it shows who it is (a valid
    /// provider token, or any request that is not for the provider API), as APNs does. Off by
    /// default: clients that open many streams before reading SETTINGS (h2load) see the excess
    /// refused, which real APNs clients handle but load tools count as failures.
    public var gateUntilAuthenticated: Bool = false

    public init() {}
}
