/// Turns events and comments into `text/event-stream` bytes.
///
/// Data is split at every CRLF, CR or LF into one `data:` line each, so the client rebuilds it with LF
/// line breaks. An `id` or `event` cannot span lines: CR and LF are removed from them (and NUL from the
/// id, which the client would otherwise ignore). A negative `retry` is left out.
package enum SSEEncoder {
    /// A heartbeat: the comment `: ping` and an empty line. Clients ignore it; it keeps proxies and NAT
    /// state from timing out an idle stream and reveals dead connections on write.
    package static let heartbeat: [UInt8] = Array(": ping\n\n".utf8)

    /// The bytes of one event, ending with the empty line that dispatches it.
    package static func encode(_ event: SSEEvent) -> [UInt8] {
        var out: [UInt8] = []
        append(event, to: &out)
        return out
    }

    /// Appends the bytes of one event to `out`.
    package static func append(_ event: SSEEvent, to out: inout [UInt8]) {
        append(id: event.id, event: event.event, retry: event.retry, data: Array(event.data.utf8), to: &out)
    }

    /// The bytes of one event whose data is already UTF-8 (the relay's events: their JSON is
    /// serialized once and framed here, live and replayed alike).
    package static func encode(id: String?, event: String?, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        append(id: id, event: event, retry: nil, data: data, to: &out)
        return out
    }

    /// Appends the fields of one event and the empty line that dispatches it to `out`.
    private static func append(id: String?, event: String?, retry: Int?, data: [UInt8], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + data.count + 64)
        if let id {
            appendField("id", id.utf8.lazy.filter { $0 != cr && $0 != lf && $0 != 0 }, to: &out)
        }
        if let event {
            appendField("event", event.utf8.lazy.filter { $0 != cr && $0 != lf }, to: &out)
        }
        if let retry, retry >= 0 {
            appendField("retry", String(retry).utf8, to: &out)
        }
        forEachLine(data) { line in appendField("data", line, to: &out) }
        out.append(lf)
    }

    /// A comment block: each line of `text` as a `:` line, then an empty line.
    package static func comment(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        forEachLine(Array(text.utf8)) { line in
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: line)
            out.append(lf)
        }
        out.append(lf)
        return out
    }

    // MARK: - Private

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    private static func appendField(_ name: String, _ value: some Sequence<UInt8>, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ":"))
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: value)
        out.append(lf)
    }

    /// Calls `body` with each line of `bytes`, split at CRLF, CR or LF; no bytes is one empty line.
    private static func forEachLine(_ bytes: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == cr || byte == lf else {
                index += 1
                continue
            }
            body(bytes[start..<index])
            index += byte == cr && index + 1 < bytes.count && bytes[index + 1] == lf ? 2 : 1
            start = index
        }
        body(bytes[start..<bytes.count])
    }
}
