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

        /// The level as a JSON line names it.
        var jsonName: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            }
        }

        /// Parses `debug`, `info`, `warning` or `error`.
        package init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
    }

    /// How lines are written: `key=value` text, or one JSON object per line.
    package enum Format: Int, Sendable, CaseIterable {
        case text, json

        /// Parses `text` or `json`.
        package init?(name: String) {
            switch name {
            case "text": self = .text
            case "json": self = .json
            default: return nil
            }
        }
    }

    private static let threshold = Atomic<Int>(Level.info.rawValue)
    private static let format = Atomic<Int>(Format.text.rawValue)
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

    /// Writes lines in `format` from now on.
    package static func setFormat(_ format: Format) { self.format.store(format.rawValue, ordering: .relaxed) }

    /// The format lines are written in.
    package static var currentFormat: Format { Format(rawValue: format.load(ordering: .relaxed)) ?? .text }

    /// Whether `level` is written (so callers can skip building fields).
    package static func enabled(_ level: Level) -> Bool { level.rawValue >= threshold.load(ordering: .relaxed) }

    /// Writes one line. On an event loop, lines below `warning` wait in the loop thread's
    /// `LogBuffer` until the end of the pass; warnings and errors (and every line off a loop) are
    /// written at once, after whatever the thread still holds.
    package static func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(level, event) { line in line.add(fields) }
    }

    /// Writes one line whose fields `fields` appends straight into the line's bytes: for lines
    /// logged on every request, with no field list built and no strings made for numbers.
    /// Buffered and ordered as `log(_:_:_:)` says.
    package static func log(_ level: Level, _ event: String, fields: (inout LineFields) -> Void) {
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
        let json = currentFormat == .json
        if json {
            writeJSONHead(at: time, level, event, to: &line, seconds: &seconds)
        } else {
            writeHead(at: time, level, event, to: &line, seconds: &seconds)
        }
        LineFields.appending(to: &line, json: json, fields)
        if json { line.append(UInt8(ascii: "}")) }
        line.append(UInt8(ascii: "\n"))
    }

    /// The `key=value` fields of a line being written, appended in place.
    package struct LineFields: ~Copyable {
        fileprivate var bytes: [UInt8] = []
        /// Whether fields are written as JSON members (`,"key":"value"`) rather than ` key=value`.
        fileprivate var json = false

        /// Runs `fields` on the end of `line`, without copying it.
        fileprivate static func appending(to line: inout [UInt8], json: Bool, _ fields: (inout LineFields) -> Void) {
            var writer = LineFields()
            writer.json = json
            swap(&writer.bytes, &line)
            fields(&writer)
            swap(&writer.bytes, &line)
        }

        /// ` key=value`, the value quoted as `log` quotes it.
        package mutating func add(_ key: StaticString, _ value: String) {
            self.key(key)
            if json {
                RelayLog.appendJSONString(value, to: &bytes)
            } else {
                RelayLog.appendValue(value, to: &bytes)
            }
        }

        /// ` key=value` for each field, in order.
        package mutating func add(_ fields: KeyValuePairs<String, String>) {
            for (key, value) in fields {
                if json {
                    bytes.append(UInt8(ascii: ","))
                    RelayLog.appendJSONString(key, to: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    RelayLog.appendJSONString(value, to: &bytes)
                } else {
                    bytes.append(UInt8(ascii: " "))
                    RelayLog.append(key, to: &bytes)
                    bytes.append(UInt8(ascii: "="))
                    RelayLog.appendValue(value, to: &bytes)
                }
            }
        }

        /// ` key=value` for a number, in decimal.
        package mutating func add(_ key: StaticString, _ value: UInt64) {
            self.key(key)
            var divisor: UInt64 = 1
            while value / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
                divisor /= 10
            }
        }

        private mutating func key(_ key: StaticString) {
            if json {
                bytes.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: "\"")])
                key.withUTF8Buffer { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
            } else {
                bytes.append(UInt8(ascii: " "))
                key.withUTF8Buffer { bytes.append(contentsOf: $0) }
                bytes.append(UInt8(ascii: "="))
            }
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

    /// `{"time":"…Z","level":"info","event":"push"`, the start of a JSON line; the fields follow
    /// as members and `}` closes it.
    private static func writeJSONHead(
        at time: UnixSeconds, _ level: Level, _ event: String, to line: inout [UInt8], seconds: inout SecondStamp
    ) {
        append("{\"time\":\"", to: &line)
        seconds.write(time, to: &line)
        let millis = Int((time - time.rounded(.down)) * 1000)
        line.append(UInt8(ascii: "."))
        line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis / 100 % 10))
        line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis % 10))
        append("Z\",\"level\":", to: &line)
        appendJSONString(level.jsonName, to: &line)
        append(",\"event\":", to: &line)
        appendJSONString(event, to: &line)
    }

    /// `value` as a JSON string. Besides what JSON requires (`"`, `\\`, U+0000–U+001F), DEL, the
    /// C1 controls and the characters `escaped` writes as `\u{…}` are written as `\uXXXX` (a
    /// surrogate pair above U+FFFF), so a JSON line shown raw in a terminal is as safe as a text one.
    static func appendJSONString(_ value: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        var text = value
        let plain = text.withUTF8 { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 32 || $0 >= 127 || $0 == 34 || $0 == 92 }) else { return false }
            line.append(contentsOf: bytes)
            return true
        }
        if !plain {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": append("\\\"", to: &line)
                case "\\": append("\\\\", to: &line)
                case "\n": append("\\n", to: &line)
                case "\r": append("\\r", to: &line)
                case "\t": append("\\t", to: &line)
                default:
                    let escapedText = escaped(scalar)
                    if escapedText.unicodeScalars.count == 1 {
                        append(escapedText, to: &line)
                    } else {
                        for unit in String(scalar).utf16 { appendUnicodeEscape(unit, to: &line) }
                    }
                }
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX` for one UTF-16 code unit.
    private static func appendUnicodeEscape(_ unit: UInt16, to line: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        line.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        digits.withUTF8Buffer { digits in
            for shift in stride(from: 12, through: 0, by: -4) { line.append(digits[Int(unit >> UInt16(shift)) & 0xF]) }
        }
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

    /// A byte that makes a value need the slow path: a control character, a space, `"`, `=`,
    /// `\\`, DEL, or any byte of a non-ASCII character (which `quoted` checks for printability).
    private static func needsQuote(_ byte: UInt8) -> Bool {
        byte <= 32 || byte == 34 || byte == 61 || byte == 92 || byte >= 127
    }

    package static func debug(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.debug, event, fields)
    }
    package static func info(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.info, event, fields)
    }
    package static func warning(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.warning, event, fields)
    }
    package static func error(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.error, event, fields)
    }

    /// Whether `value` is empty or holds a space, a quote, `=`, a backslash, a control character
    /// or a non-ASCII character. A plain loop over the UTF-8 bytes: every field of every line goes
    /// through here.
    static func needsQuotes(_ value: String) -> Bool {
        if value.isEmpty { return true }
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in bytes.contains(where: needsQuote) }
        if let found = value.utf8.withContiguousStorageIfAvailable(scan) { return found }
        var copy = value
        return copy.withUTF8(scan)
    }

    /// Values with spaces, quotes, `=` or anything unprintable are quoted so a line stays
    /// machine-splittable, and every character a terminal could act on is escaped: a hostile
    /// `:path` or device token cannot move the cursor, recolour the screen or hide a line.
    static func quoted(_ value: String) -> String {
        guard needsQuotes(value) else { return value }
        var out = "\""
        for scalar in value.unicodeScalars { out += escaped(scalar) }
        return out + "\""
    }

    /// `scalar` as a quoted value shows it: `\"`, `\\`, `\n`, `\r`, `\t`, `\xHH` for the other C0
    /// and C1 controls and DEL, `\u{HHHH}` for format, separator, private-use, surrogate and
    /// unassigned characters (bidirectional overrides among them); printable ones as they are.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: break
        }
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) {
            let hex = String(value, radix: 16)
            return "\\x" + (hex.count < 2 ? "0" + hex : hex)
        }
        if value < 0x7F { return String(scalar) }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned, .control:
            return "\\u{" + String(value, radix: 16) + "}"
        default:
            return String(scalar)
        }
    }
}
