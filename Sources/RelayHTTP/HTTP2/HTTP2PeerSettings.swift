/// The settings a peer has announced, starting from the RFC 9113 §6.5.2 defaults.
///
/// `apply` validates every value as the RFC requires, so a frame's settings are either all taken
/// or the connection fails.
package struct HTTP2PeerSettings: Hashable, Sendable {
    /// The largest window a flow-control window may reach (2^31-1).
    package static let maxWindowSize = 0x7fff_ffff
    /// The smallest SETTINGS_MAX_FRAME_SIZE a peer may announce (2^14).
    package static let minMaxFrameSize = 16_384
    /// The largest SETTINGS_MAX_FRAME_SIZE a peer may announce (2^24-1).
    package static let maxMaxFrameSize = 0xff_ffff
    /// The window every stream and the connection start with before SETTINGS change it.
    package static let defaultInitialWindowSize = 65_535

    /// The HPACK dynamic table size the peer's decoder allows us.
    package var headerTableSize = 4096
    /// Whether the peer accepts server push; this server never pushes either way.
    package var enablePush = true
    /// How many streams we may open towards the peer; nil means unlimited.
    package var maxConcurrentStreams: Int? = nil
    /// The send window each new stream starts with.
    package var initialWindowSize = defaultInitialWindowSize
    /// The largest frame payload the peer accepts from us.
    package var maxFrameSize = minMaxFrameSize
    /// The largest header list the peer accepts; nil means unlimited (advisory only).
    package var maxHeaderListSize: Int? = nil

    /// Settings at their RFC defaults.
    package init() {}

    /// Validates one setting and records it. Unknown identifiers are ignored (RFC 9113 §6.5.2).
    package mutating func apply(_ setting: HTTP2Setting) throws(HTTP2ProtocolError) {
        let value = Int(setting.value)
        switch setting.identifier {
        case .headerTableSize:
            headerTableSize = value
        case .enablePush:
            guard value <= 1 else {
                throw .connection(.protocolError, "SETTINGS_ENABLE_PUSH is neither 0 nor 1", value: value)
            }
            enablePush = value == 1
        case .maxConcurrentStreams:
            maxConcurrentStreams = value
        case .initialWindowSize:
            guard value <= Self.maxWindowSize else {
                throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1", value: value)
            }
            initialWindowSize = value
        case .maxFrameSize:
            guard value >= Self.minMaxFrameSize, value <= Self.maxMaxFrameSize else {
                throw .connection(.protocolError, "SETTINGS_MAX_FRAME_SIZE outside 2^14...2^24-1", value: value)
            }
            maxFrameSize = value
        case .maxHeaderListSize:
            maxHeaderListSize = value
        default:
            break
        }
    }
}
