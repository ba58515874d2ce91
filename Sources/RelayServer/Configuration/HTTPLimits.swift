import RelayCore
package import RelayHTTP
package import RelayNet

/// The bounds the listener puts on every peer (config object `http`): how long it waits for a
/// handshake, for a request's headers and on an idle connection, and how much it accepts.
/// Durations are in seconds.
package struct HTTPLimits: Sendable, Hashable {
    /// Seconds a connection may take to finish the TLS handshake. Default 10.
    package var handshakeTimeout: Double = 10
    /// Seconds a connection may stay open with no request in flight and no open stream. Default
    /// 3600: APNs clients keep connections for hours and PING after an hour idle.
    package var idleTimeout: Double = 3600
    /// Seconds a new connection may take to send its first complete request headers (HTTP/1.1) or
    /// open its first stream (HTTP/2), from the end of the handshake; then it is closed. Default 10.
    package var firstRequestTimeout: Double = 10
    /// Seconds a peer may take to send one request's complete header block once it started (a
    /// deadline for the whole block, CONTINUATION frames included). Default 10.
    package var headerReadTimeout: Double = 10
    /// Open connections across all threads; more are closed at once. Default 10,000.
    package var maxConnections: Int = 10_000
    /// Response bytes one HTTP/2 connection may have queued because the peer's flow-control window
    /// holds them back; past it, new streams are refused (REFUSED_STREAM, safe to retry) until the
    /// peer reads. Default 8 MiB.
    package var maxQueuedResponseBytes: Int = 8 << 20
    /// The same across all connections of the process. Default 256 MiB.
    package var maxQueuedResponseBytesTotal: Int = 256 << 20
    /// Request body bytes all connections may hold while their requests arrive; past it, the
    /// connection whose bytes arrive then has its unfinished requests refused (HTTP/2
    /// REFUSED_STREAM, HTTP/1.1 `503` with `retry-after`) rather than memory grown. Default 256 MiB.
    package var maxBufferedRequestBytesTotal: Int = 256 << 20
    /// Open connections from one IP address; more from it are closed at once. Default 1,000.
    package var maxConnectionsPerAddress: Int = 1_000
    /// Seconds an HTTP/2 connection may hold response bytes that the peer's flow-control window
    /// does not let out (no WINDOW_UPDATE opening room); then it gets GOAWAY and is closed. Default 30.
    package var sendTimeout: Double = 30
    /// HTTP/2 streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). Default 128.
    package var maxConcurrentStreams: Int = 128
    /// The largest header list accepted, in RFC 7541 bytes (SETTINGS_MAX_HEADER_LIST_SIZE); larger is 431. Default 16 KiB.
    package var maxHeaderListSize: Int = 16_384
    /// The largest request body accepted; larger is 413. Default 64 KiB (provider payloads are at most 5 KiB).
    package var maxBodyBytes: Int = 65_536
    /// Seconds a request body may take to arrive in full once its head is in (per stream on HTTP/2).
    /// Default 30.
    package var bodyReadTimeout: Double = 30
    /// Whether a new HTTP/2 connection is allowed one stream until it shows who it is (a valid
    /// provider token, or any request that is not for the provider API), as APNs does. Off by
    /// default: clients that open many streams before reading SETTINGS (h2load) see the excess
    /// refused, which real APNs clients handle but load tools count as failures.
    package var gateUntilAuthenticated: Bool = false
    /// Bytes a streaming response may have queued before its subscriber counts as too slow
    /// (set from the `stream.bufferBytes` config). Default 1 MiB.
    package var streamBufferBytes: Int = 1 << 20

    /// The defaults.
    package init() {}

    /// The config keys, as written in the `http` object.
    static let keys: Set<String> = [
        "handshakeTimeout", "idleTimeout", "headerReadTimeout", "maxConnections", "maxConcurrentStreams",
        "maxHeaderListSize", "maxBodyBytes", "bodyReadTimeout", "gateUntilAuthenticated", "firstRequestTimeout",
        "maxConnectionsPerAddress", "sendTimeout", "maxQueuedResponseBytes",
        "maxQueuedResponseBytesTotal", "maxBufferedRequestBytesTotal",
    ]

    /// Reads the `http` object; keys left out keep their defaults.
    init(fields: ConfigFields) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        self.init()
        handshakeTimeout = try fields.seconds("handshakeTimeout", atMost: 300) ?? handshakeTimeout
        idleTimeout = try fields.seconds("idleTimeout", atMost: 7 * 86_400) ?? idleTimeout
        headerReadTimeout = try fields.seconds("headerReadTimeout", atMost: 300) ?? headerReadTimeout
        firstRequestTimeout = try fields.seconds("firstRequestTimeout", atMost: 3600) ?? firstRequestTimeout
        maxConnectionsPerAddress =
            try fields.integer("maxConnectionsPerAddress", in: 1...1_000_000) ?? maxConnectionsPerAddress
        sendTimeout = try fields.seconds("sendTimeout", atMost: 3600) ?? sendTimeout
        maxQueuedResponseBytes =
            try fields.integer("maxQueuedResponseBytes", in: (64 << 10)...(1 << 30)) ?? maxQueuedResponseBytes
        maxQueuedResponseBytesTotal =
            try fields.integer("maxQueuedResponseBytesTotal", in: (1 << 20)...(1 << 40))
            ?? maxQueuedResponseBytesTotal
        maxBufferedRequestBytesTotal =
            try fields.integer("maxBufferedRequestBytesTotal", in: (1 << 20)...(1 << 40))
            ?? maxBufferedRequestBytesTotal
        maxConnections = try fields.integer("maxConnections", in: 1...1_000_000) ?? maxConnections
        maxConcurrentStreams = try fields.integer("maxConcurrentStreams", in: 1...100_000) ?? maxConcurrentStreams
        maxHeaderListSize = try fields.integer("maxHeaderListSize", in: 1024...(1 << 20)) ?? maxHeaderListSize
        maxBodyBytes = try fields.integer("maxBodyBytes", in: 5120...(16 << 20)) ?? maxBodyBytes
        bodyReadTimeout = try fields.seconds("bodyReadTimeout", atMost: 3600) ?? bodyReadTimeout
        gateUntilAuthenticated = try fields.bool("gateUntilAuthenticated") ?? gateUntilAuthenticated
    }

    /// The listener's limits with this handshake timeout and connection cap, other values at
    /// `RelayNet`'s defaults.
    package var serverLimits: ServerLimits {
        var limits = ServerLimits()
        limits.handshakeTimeout = handshakeTimeout
        limits.maxConnections = maxConnections
        limits.maxConnectionsPerAddress = maxConnectionsPerAddress
        return limits
    }

    /// An HTTP/2 connection configuration with these stream, header-list and body limits, other
    /// values at `RelayHTTP`'s defaults.
    package var http2Configuration: HTTP2Configuration {
        HTTP2Configuration(
            maxConcurrentStreams: maxConcurrentStreams, maxHeaderListSize: maxHeaderListSize,
            maxRequestBodyBytes: maxBodyBytes)
    }
}
