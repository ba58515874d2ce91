/// The client side of an event stream: bytes in, events out, following the HTML Living Standard's
/// "interpreting an event stream" (used by tests and the terminal renderer).
///
/// Lines end at CRLF, LF or CR, even when a CRLF is split across two feeds. A leading UTF-8 BOM is
/// dropped. `id` sets the last event ID, which persists and is reported on every later event until
/// another `id` changes it (an empty `id` clears it; one containing NUL is ignored); that is the value a
/// reconnecting client sends as `Last-Event-ID`. `retry` with only digits sets `reconnectionTime`.
/// A block with no `data` dispatches nothing; an unterminated block at the end of the stream is never
/// dispatched.
package struct SSEParser: Sendable {
    /// The longest line accepted.
    package let maxLineBytes: Int
    /// The most data one event may accumulate.
    package let maxEventBytes: Int

    /// The last event ID: what to send as `Last-Event-ID` when reconnecting (empty when none).
    package private(set) var lastEventID = ""
    /// The latest reconnection time from a `retry` field, in milliseconds.
    package private(set) var reconnectionTime: Int?
    /// Comment lines seen (heartbeats), for tests and liveness displays.
    package private(set) var commentCount = 0

    private var line: [UInt8] = []
    private var skipLF = false
    private var atStreamStart = true
    private var data: [UInt8] = []
    private var eventType = ""
    private var blockRetry: Int?

    /// A parser for one stream.
    package init(maxLineBytes: Int = 1 << 20, maxEventBytes: Int = 4 << 20) {
        self.maxLineBytes = maxLineBytes
        self.maxEventBytes = maxEventBytes
    }

    /// Consumes `bytes` and returns the events they complete, in order.
    package mutating func feed(_ bytes: [UInt8]) throws(SSEParseError) -> [SSEEvent] {
        var events: [SSEEvent] = []
        for byte in bytes {
            if skipLF {
                skipLF = false
                if byte == Self.lf { continue }
            }
            if byte == Self.cr || byte == Self.lf {
                skipLF = byte == Self.cr
                try endLine(into: &events)
            } else {
                guard line.count < maxLineBytes else { throw SSEParseError(.lineTooLong, limit: maxLineBytes) }
                line.append(byte)
            }
        }
        return events
    }

    // MARK: - Private

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    private mutating func endLine(into events: inout [SSEEvent]) throws(SSEParseError) {
        defer { line.removeAll(keepingCapacity: true) }
        if atStreamStart {
            atStreamStart = false
            if line.starts(with: Self.bom) { line.removeFirst(Self.bom.count) }
        }
        guard let first = line.first else {
            if let event = dispatch() { events.append(event) }
            return
        }
        if first == UInt8(ascii: ":") {
            commentCount += 1
            return
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.count
        var valueStart = min(colon + 1, line.count)
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let name = line[..<colon]
        let value = line[valueStart...]
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            guard data.count + value.count + 1 <= maxEventBytes else {
                throw SSEParseError(.eventTooLarge, limit: maxEventBytes)
            }
            data.append(contentsOf: value)
            data.append(Self.lf)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.count <= 18,
                value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                reconnectionTime = milliseconds
                blockRetry = milliseconds
            }
        default:
            break  // unknown fields are ignored
        }
    }

    /// Ends a block: returns its event, if it had data, and resets the per-event buffers.
    private mutating func dispatch() -> SSEEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            eventType = ""
            blockRetry = nil
        }
        guard !data.isEmpty else { return nil }
        return SSEEvent(
            id: lastEventID.isEmpty ? nil : lastEventID,
            event: eventType.isEmpty ? nil : eventType,
            data: String(decoding: data.dropLast(), as: UTF8.self),
            retry: blockRetry)
    }
}
