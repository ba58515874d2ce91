/// Writes RESP: commands as arrays of bulk strings (what a client sends), and any `RESPValue` in
/// its RESP3 form (for tests and fakes that play a server).
public enum RESPEncoder {
    /// Appends one command, e.g. `["SET", "k", "v"]`, as `*3\r\n$3\r\nSET\r\n...`.
    package static func appendCommand(_ arguments: [[UInt8]], to output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "*"), arguments.count, to: &output)
        for argument in arguments {
            appendHeader(UInt8(ascii: "$"), argument.count, to: &output)
            output.append(contentsOf: argument)
            output.append(contentsOf: crlf)
        }
    }

    /// One command as bytes.
    package static func command(_ arguments: [[UInt8]]) -> [UInt8] {
        var output: [UInt8] = []
        appendCommand(arguments, to: &output)
        return output
    }

    /// Appends `value` in RESP3.
    package static func append(_ value: RESPValue, to output: inout [UInt8]) {
        switch value {
        case .simpleString(let text): appendLine(UInt8(ascii: "+"), text, to: &output)
        case .error(let text): appendLine(UInt8(ascii: "-"), text, to: &output)
        case .integer(let number): appendLine(UInt8(ascii: ":"), String(number), to: &output)
        case .bigNumber(let digits): appendLine(UInt8(ascii: "("), digits, to: &output)
        case .null: output.append(contentsOf: Array("_\r\n".utf8))
        case .boolean(let flag): appendLine(UInt8(ascii: "#"), flag ? "t" : "f", to: &output)
        case .double(let number):
            let text = number.isNaN ? "nan" : number.isInfinite ? (number < 0 ? "-inf" : "inf") : "\(number)"
            appendLine(UInt8(ascii: ","), text, to: &output)
        case .bulkString(let bytes):
            appendHeader(UInt8(ascii: "$"), bytes.count, to: &output)
            output.append(contentsOf: bytes)
            output.append(contentsOf: crlf)
        case .verbatim(let format, let text):
            let body = Array(format.utf8.prefix(3)) + [UInt8(ascii: ":")] + text
            appendHeader(UInt8(ascii: "="), body.count, to: &output)
            output.append(contentsOf: body)
            output.append(contentsOf: crlf)
        case .array(let values): appendAggregate(UInt8(ascii: "*"), values, to: &output)
        case .set(let values): appendAggregate(UInt8(ascii: "~"), values, to: &output)
        case .push(let values): appendAggregate(UInt8(ascii: ">"), values, to: &output)
        case .map(let pairs):
            appendHeader(UInt8(ascii: "%"), pairs.count, to: &output)
            for pair in pairs {
                append(pair.key, to: &output)
                append(pair.value, to: &output)
            }
        }
    }

    /// `value` in RESP3, as bytes.
    public static func encode(_ value: RESPValue) -> [UInt8] {
        var output: [UInt8] = []
        append(value, to: &output)
        return output
    }

    private static let crlf: [UInt8] = [13, 10]

    private static func appendHeader(_ type: UInt8, _ count: Int, to output: inout [UInt8]) {
        output.append(type)
        output.append(contentsOf: String(count).utf8)
        output.append(contentsOf: crlf)
    }

    /// Simple lines cannot hold CR or LF; they are replaced by spaces rather than breaking the framing.
    private static func appendLine(_ type: UInt8, _ text: String, to output: inout [UInt8]) {
        output.append(type)
        output.append(contentsOf: text.utf8.map { $0 == 13 || $0 == 10 ? UInt8(ascii: " ") : $0 })
        output.append(contentsOf: crlf)
    }

    private static func appendAggregate(_ type: UInt8, _ values: [RESPValue], to output: inout [UInt8]) {
        appendHeader(type, values.count, to: &output)
        for value in values { append(value, to: &output) }
    }
}
