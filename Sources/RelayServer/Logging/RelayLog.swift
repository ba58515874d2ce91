import RelayCore
import RelayNet
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One line per event on standard error: time, level, event name and `key=value` fields that
/// carry the ids needed to follow a push from request to renderer (conn, stream, apnsId,
/// activity, seq...). Secrets are never passed in.
public enum RelayLog {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        var label: String {
            switch self {
            case .debug: return "DEBUG"
            case .info: return "INFO"
            case .warning: return "WARN"
            case .error: return "ERROR"
            }
        }

        /// Parses `debug`, `info`, `warning` or `error`.
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
    }

    private static let threshold = Atomic<Int>(Level.info.rawValue)
    private static let output = Mutex<Int32>(2)

    /// Sends lines to `fd` instead of standard error and returns the previous descriptor (tests,
    /// and `fuzz/`, which reads every line back).
    @discardableResult
    public static func setOutput(_ fd: Int32) -> Int32 {
        output.withLock { current in
            defer { current = fd }
            return current
        }
    }

    /// Lines below `level` are dropped.
    public static func setLevel(_ level: Level) { threshold.store(level.rawValue, ordering: .relaxed) }

    /// Whether `level` is written (so callers can skip building fields).
    public static func enabled(_ level: Level) -> Bool { level.rawValue >= threshold.load(ordering: .relaxed) }

    /// Writes one line. On an event loop, lines below `warning` wait in the loop thread's
    /// `LogBuffer` until the end of the pass; warnings and errors (and every line off a loop) are
    /// written at once, after whatever the thread still holds.
    public static func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(level, event) { line in line.add(fields) }
    }

    /// Writes one line whose fields `fields` appends straight into the line's bytes: for lines
    /// logged on every request, with no field list built and no strings made for numbers.
    /// Buffered and ordered as `log(_:_:_:)` says.
    public static func log(_ level: Level, _ event: String, fields: (inout LineFields) -> Void) {
        guard enabled(level) else { return }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let time = Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
        let buffer = LogBuffer.current()
        if level < .warning, let (buffer, loop) = buffer {
            buffer.append(on: loop) { bytes in
                write(at: time, level, event, to: &bytes, seconds: &buffer.seconds, fields: fields)
            }
            return
        }
        buffer?.0.flush()
        writeOut(line(at: time, level, event, fields: fields))
    }

    /// The line `log(_:_:fields:)` writes at `time`.
    static func line(
        at time: UnixSeconds, _ level: Level, _ event: String, fields: (inout LineFields) -> Void
    ) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        var seconds = SecondStamp()
        write(at: time, level, event, to: &line, seconds: &seconds, fields: fields)
        return line
    }

    /// The line `log(_:_:_:)` writes at `time`.
    static func line(
        at time: UnixSeconds, _ level: Level, _ event: String, _ fields: KeyValuePairs<String, String>
    ) -> [UInt8] {
        line(at: time, level, event) { line in line.add(fields) }
    }

    /// Appends the line `log` writes at `time` to `line`, built as bytes rather than by
    /// concatenating Strings (which allocated for every piece), its date from `seconds`.
    static func write(
        at time: UnixSeconds, _ level: Level, _ event: String, to line: inout [UInt8], seconds: inout SecondStamp,
        fields: (inout LineFields) -> Void
    ) {
        writeHead(at: time, level, event, to: &line, seconds: &seconds)
        LineFields.appending(to: &line, fields)
        line.append(UInt8(ascii: "\n"))
    }

    /// The `key=value` fields of a line being written, appended in place.
    public struct LineFields: ~Copyable {
        fileprivate var bytes: [UInt8] = []

        /// Runs `fields` on the end of `line`, without copying it.
        fileprivate static func appending(to line: inout [UInt8], _ fields: (inout LineFields) -> Void) {
            var writer = LineFields()
            swap(&writer.bytes, &line)
            fields(&writer)
            swap(&writer.bytes, &line)
        }

        /// ` key=value`, the value quoted as `log` quotes it.
        public mutating func add(_ key: StaticString, _ value: String) {
            self.key(key)
            RelayLog.appendValue(value, to: &bytes)
        }

        /// ` key=value` for each field, in order.
        public mutating func add(_ fields: KeyValuePairs<String, String>) {
            for (key, value) in fields {
                bytes.append(UInt8(ascii: " "))
                RelayLog.append(key, to: &bytes)
                bytes.append(UInt8(ascii: "="))
                RelayLog.appendValue(value, to: &bytes)
            }
        }

        /// ` key=value` for a number, in decimal.
        public mutating func add(_ key: StaticString, _ value: UInt64) {
            self.key(key)
            var divisor: UInt64 = 1
            while value / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
                divisor /= 10
            }
        }

        private mutating func key(_ key: StaticString) {
            bytes.append(UInt8(ascii: " "))
            key.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "="))
        }
    }

    /// Writes `bytes` (whole lines) to standard error with as few `write` calls as it takes.
    static func writeOut(_ bytes: [UInt8]) {
        output.withLock { fd in
            bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(fd, base + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }

    /// The time, level and event that begin every line.
    private static func writeHead(
        at time: UnixSeconds, _ level: Level, _ event: String, to line: inout [UInt8], seconds: inout SecondStamp
    ) {
        seconds.write(time, to: &line)
        let millis = Int((time - time.rounded(.down)) * 1000)
        line.append(UInt8(ascii: "."))
        line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis / 100 % 10))
        line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis % 10))
        line.append(UInt8(ascii: "Z"))
        line.append(UInt8(ascii: " "))
        append(level.label, to: &line)
        line.append(UInt8(ascii: " "))
        append(event, to: &line)
    }

    /// A line's time to the second (`2026-01-01T00:00:00`), kept by each loop's `LogBuffer`: a
    /// busy loop writes many lines within one second, and formatting the date cost more than
    /// the rest of a push's line.
    struct SecondStamp {
        private var second = Int64.min
        private var text: [UInt8] = []

        /// Appends the time of `time` to the second, formatting it only when the second changed.
        mutating func write(_ time: UnixSeconds, to line: inout [UInt8]) {
            let second = Int64(time.rounded(.down))
            if second != self.second {
                // `UTCDate.format` ends in `Z`; the caller writes milliseconds before its own.
                var date = UTCDate.format(Double(second))
                text = date.withUTF8 { Array($0.dropLast()) }
                self.second = second
            }
            line.append(contentsOf: text)
        }
    }

    /// Appends `text`'s UTF-8 in one copy (appending the `utf8` view went byte by byte).
    fileprivate static func append(_ text: String, to line: inout [UInt8]) {
        var text = text
        text.withUTF8 { line.append(contentsOf: $0) }
    }

    /// Appends a field's value, `quoted` when `needsQuotes` says so; a plain value is scanned and
    /// copied in one pass over its bytes.
    fileprivate static func appendValue(_ value: String, to line: inout [UInt8]) {
        var text = value
        let copied = text.withUTF8 { bytes -> Bool in
            guard !bytes.isEmpty, !bytes.contains(where: needsQuote) else { return false }
            line.append(contentsOf: bytes)
            return true
        }
        if !copied { append(quoted(value), to: &line) }
    }

    /// A byte that makes a value need quotes: a control character, a space, `"` or `=`.
    private static func needsQuote(_ byte: UInt8) -> Bool { byte <= 32 || byte == 34 || byte == 61 }

    public static func debug(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.debug, event, fields)
    }
    public static func info(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.info, event, fields)
    }
    public static func warning(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.warning, event, fields)
    }
    public static func error(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.error, event, fields)
    }

    /// Whether `value` is empty or holds a space, a quote, `=` or a control character. A plain
    /// loop over the UTF-8 bytes: every field of every line goes through here.
    static func needsQuotes(_ value: String) -> Bool {
        if value.isEmpty { return true }
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in bytes.contains(where: needsQuote) }
        if let found = value.utf8.withContiguousStorageIfAvailable(scan) { return found }
        var copy = value
        return copy.withUTF8(scan)
    }

    /// Values with spaces, quotes or `=` are quoted so a line stays machine-splittable.
    static func quoted(_ value: String) -> String {
        guard needsQuotes(value) else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
