/// One parameter of a SETTINGS frame (RFC 9113 §6.5.1): a 16-bit identifier and a 32-bit value.
public struct HTTP2Setting: Hashable, Sendable {
    /// Which parameter this is.
    public var identifier: Identifier
    /// The value, as sent.
    public var value: UInt32

    public init(_ identifier: Identifier, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    /// A SETTINGS identifier. Open because unknown identifiers must be accepted and ignored.
    public struct Identifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt16

        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public init(_ rawValue: UInt16) { self.rawValue = rawValue }

        public static let headerTableSize = Identifier(0x1)
        public static let enablePush = Identifier(0x2)
        public static let maxConcurrentStreams = Identifier(0x3)
        public static let initialWindowSize = Identifier(0x4)
        public static let maxFrameSize = Identifier(0x5)
        public static let maxHeaderListSize = Identifier(0x6)
        /// RFC 8441 extended CONNECT; never advertised by this server.
        public static let enableConnectProtocol = Identifier(0x8)
        /// RFC 9218: the sender does not use RFC 7540 priorities.
        public static let noRFC7540Priorities = Identifier(0x9)

        /// The RFC name (`SETTINGS_MAX_FRAME_SIZE`), or `0x` and the hex value.
        public var description: String {
            switch rawValue {
            case 0x1: return "SETTINGS_HEADER_TABLE_SIZE"
            case 0x2: return "SETTINGS_ENABLE_PUSH"
            case 0x3: return "SETTINGS_MAX_CONCURRENT_STREAMS"
            case 0x4: return "SETTINGS_INITIAL_WINDOW_SIZE"
            case 0x5: return "SETTINGS_MAX_FRAME_SIZE"
            case 0x6: return "SETTINGS_MAX_HEADER_LIST_SIZE"
            case 0x8: return "SETTINGS_ENABLE_CONNECT_PROTOCOL"
            case 0x9: return "SETTINGS_NO_RFC7540_PRIORITIES"
            default: return "0x" + String(rawValue, radix: 16)
            }
        }
    }
}
