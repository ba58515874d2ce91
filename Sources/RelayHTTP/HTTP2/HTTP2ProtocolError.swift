/// A violation of RFC 9113 found in what the peer sent: the error code to put on the wire, whether
/// it costs the peer one stream or the whole connection, and a fixed human-readable reason.
///
/// The reason is a `StaticString` so building an error never allocates; `value` carries the
/// offending number (a length, a setting value, an increment, a stream id) when there is one.
package struct HTTP2ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// How much the error costs the peer.
    package enum Scope: Hashable, Sendable {
        /// The connection must be closed with GOAWAY.
        case connection
        /// Only this stream is reset with RST_STREAM.
        case stream(UInt32)
    }

    /// The code sent in GOAWAY or RST_STREAM.
    package var code: HTTP2ErrorCode
    /// Connection or stream level.
    package var scope: Scope
    /// A fixed explanation, also sent as GOAWAY debug data.
    package var reason: StaticString
    /// The offending number, when one explains the error.
    package var value: Int?

    package init(code: HTTP2ErrorCode, scope: Scope, reason: StaticString, value: Int? = nil) {
        self.code = code
        self.scope = scope
        self.reason = reason
        self.value = value
    }

    /// A connection-level error.
    package static func connection(_ code: HTTP2ErrorCode, _ reason: StaticString, value: Int? = nil) -> Self {
        HTTP2ProtocolError(code: code, scope: .connection, reason: reason, value: value)
    }

    /// A stream-level error.
    package static func stream(
        _ streamID: UInt32, _ code: HTTP2ErrorCode, _ reason: StaticString, value: Int? = nil
    ) -> Self {
        HTTP2ProtocolError(code: code, scope: .stream(streamID), reason: reason, value: value)
    }

    /// The reason as a `String`.
    package var reasonText: String { reason.description }

    package var description: String {
        var text = "\(code)"
        if case .stream(let id) = scope { text += " on stream \(id)" }
        text += ": \(reason)"
        if let value { text += " (\(value))" }
        return text
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.scope == rhs.scope && lhs.value == rhs.value
            && lhs.reason.description == rhs.reason.description
    }
}
