/// The limits an HTTP/2 server connection enforces and advertises.
///
/// Values outside what RFC 9113 allows are clamped when the connection is created.
public struct HTTP2Configuration: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open at once; more are refused
    /// with REFUSED_STREAM.
    package var maxConcurrentStreams: Int
    /// SETTINGS_INITIAL_WINDOW_SIZE: how much request body a client may send on a stream before
    /// we credit it.
    package var initialWindowSize: Int
    /// The connection-level receive window we open with a WINDOW_UPDATE right after SETTINGS.
    package var connectionWindowSize: Int
    /// SETTINGS_MAX_FRAME_SIZE: the largest frame payload we accept.
    package var maxFrameSize: Int
    /// SETTINGS_MAX_HEADER_LIST_SIZE: the largest decoded header list (RFC 7541 sizes) we accept;
    /// larger requests are answered 431.
    package var maxHeaderListSize: Int
    /// The largest request body buffered for a request; larger requests produce a
    /// `.requestTooLarge` event instead of `.request`.
    package var maxRequestBodyBytes: Int
    /// Unproductive frames (PING, SETTINGS, PRIORITY, WINDOW_UPDATE, RST_STREAM, empty DATA, ...)
    /// a client may send beyond what its completed requests earn back, before ENHANCE_YOUR_CALM.
    package var controlFrameBudget: Int
    /// Streams a client may reset before their response completed, beyond what completed
    /// responses earn back, before ENHANCE_YOUR_CALM (rapid-reset protection).
    package var streamResetBudget: Int
    /// About how many bytes one `nextOutput()` call returns at most when DATA is waiting.
    package var outputChunkSize: Int

    /// A configuration; every limit has the default described on its property.
    public init(
        maxConcurrentStreams: Int = 128,
        initialWindowSize: Int = 1 << 20,
        connectionWindowSize: Int = 1 << 20,
        maxFrameSize: Int = 16_384,
        maxHeaderListSize: Int = 16_384,
        maxRequestBodyBytes: Int = 65_536,
        controlFrameBudget: Int = 10_000,
        streamResetBudget: Int = 1_000,
        outputChunkSize: Int = 65_536
    ) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.connectionWindowSize = connectionWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.controlFrameBudget = controlFrameBudget
        self.streamResetBudget = streamResetBudget
        self.outputChunkSize = outputChunkSize
    }

    /// The configuration with every value forced into its legal range.
    var clamped: HTTP2Configuration {
        var copy = self
        copy.maxConcurrentStreams = min(max(maxConcurrentStreams, 0), Int(UInt32.max))
        copy.initialWindowSize = min(max(initialWindowSize, 0), HTTP2PeerSettings.maxWindowSize)
        copy.connectionWindowSize = min(
            max(connectionWindowSize, HTTP2PeerSettings.defaultInitialWindowSize), HTTP2PeerSettings.maxWindowSize)
        copy.maxFrameSize = min(
            max(maxFrameSize, HTTP2PeerSettings.minMaxFrameSize), HTTP2PeerSettings.maxMaxFrameSize)
        copy.maxHeaderListSize = min(max(maxHeaderListSize, 0), Int(UInt32.max))
        copy.maxRequestBodyBytes = max(maxRequestBodyBytes, 0)
        copy.outputChunkSize = max(outputChunkSize, 1)
        return copy
    }
}
