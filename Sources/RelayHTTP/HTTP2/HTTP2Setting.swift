/// One parameter of a SETTINGS frame (RFC 9113 §6.5.1): a 16-bit identifier and a 32-bit value.
package struct HTTP2Setting: Hashable, Sendable {
    /// Which parameter this is.
    package var identifier: Identifier
    /// The value, as sent.
    package var value: UInt32

    package init(_ identifier: Identifier, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    /// A SETTINGS identifier. Open because unknown identifiers must be accepted and ignored.
    package struct Identifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package var rawValue: UInt16

        package init(rawValue: UInt16) { self.rawValue = rawValue }

        package init(_ rawValue: UInt16) { self.rawValue = rawValue }

        package static let headerTableSize = Identifier(0x1)
        package static let enablePush = Identifier(0x2)
        package static let maxConcurrentStreams = Identifier(0x3)
        package static let initialWindowSize = Identifier(0x4)
        package static let maxFrameSize = Identifier(0x5)
        package static let maxHeaderListSize = Identifier(0x6)
        /// RFC 8441 extended CONNECT; never advertised by this server.
        package static let enableConnectProtocol = Identifier(0x8)
        /// RFC 9218: the sender does not use RFC 7540 priorities.
        package static let noRFC7540Priorities = Identifier(0x9)

        /// The RFC name (`SETTINGS_MAX_FRAME_SIZE`), or `0x` and the hex value.
        package var description: String {
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
