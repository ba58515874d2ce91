/// The GOAWAY and RST_STREAM frames a connection sent and received since the shell last took
/// them, with their error codes: the connection records them as it encodes or decodes them, and
/// the shell hands them to its metrics.
package struct HTTP2ControlFrameTally: Sendable {
    /// One GOAWAY or RST_STREAM.
    package struct Entry: Sendable, Hashable {
        /// RST_STREAM when true, GOAWAY when false.
        package var isReset: Bool
        /// Whether we sent it (true) or the peer did.
        package var sent: Bool
        package var code: HTTP2ErrorCode

        package init(isReset: Bool, sent: Bool, code: HTTP2ErrorCode) {
            self.isReset = isReset
            self.sent = sent
            self.code = code
        }
    }

    /// Frames recorded, oldest first.
    package private(set) var entries: [Entry] = []

    mutating func record(reset: Bool, sent: Bool, code: HTTP2ErrorCode) {
        entries.append(Entry(isReset: reset, sent: sent, code: code))
    }

    /// Empties the tally and returns what it held.
    mutating func take() -> [Entry] {
        defer { entries.removeAll() }
        return entries
    }
}

extension HTTP2ServerConnection {
    /// The GOAWAY and RST_STREAM frames sent and received since the last call, oldest first.
    package mutating func takeControlFrames() -> [HTTP2ControlFrameTally.Entry] {
        controlFrames.entries.isEmpty ? [] : controlFrames.take()
    }
}
