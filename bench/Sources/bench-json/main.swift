import Foundation
import RelayJSON

// bench-json [ITERATIONS]: parse and serialize Live Activity payloads with RelayJSON's JSONValue and
// with Foundation (JSONSerialization, JSONDecoder/JSONEncoder); prints operations per second.

let iterations = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
guard iterations > 0 else {
    print("usage: bench-json [ITERATIONS]   (iterations per round for the 600-byte payload, default 20000)")
    exit(2)
}

/// Lines of the report: our rate, then each Foundation rate with how many times faster ours is.
func report(_ payload: String, _ operation: String, ours: Double, others: [(String, Double)]) {
    func column(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
    func rate(_ value: Double) -> String { String(format: "%10.0f ops/s", value) }
    print(column(payload, 15) + column(operation, 11) + column("RelayJSON", 19) + rate(ours))
    for (name, value) in others {
        print(column("", 26) + column(name, 19) + rate(value) + String(format: "   RelayJSON is %.1fx", ours / value))
    }
}

/// The document with whole doubles as integers: Foundation writes 91.0 as `91`, RelayJSON as `91.0`.
func wholeNumbersAsIntegers(_ value: JSONValue) -> JSONValue {
    switch value {
    case .double(let number): return .number(number)
    case .array(let elements): return .array(elements.map(wholeNumbersAsIntegers))
    case .object(let members): return .object(members.mapValues(wholeNumbersAsIntegers))
    default: return value
    }
}

func bench<Push: Codable>(name: String, text: String, as type: Push.Type, iterations: Int) throws {
    let bytes = Array(text.utf8)
    let data = Data(bytes)
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]

    let value = try JSONValue(parsing: bytes)
    let object = try JSONSerialization.jsonObject(with: data)
    let model = try decoder.decode(Push.self, from: data)
    // The same document must come out of both parsers, or the comparison means nothing.
    let foundationView = try JSONValue(
        parsing: Array(JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    guard wholeNumbersAsIntegers(foundationView) == wholeNumbersAsIntegers(value) else {
        print("\(name): RelayJSON and Foundation disagree on the document")
        exit(1)
    }
    print(
        "\(name): \(bytes.count) bytes in, \(value.serialized().count) bytes out, \(iterations) iterations x 5 rounds (best)"
    )

    let parseOurs = try measure(iterations: iterations) {
        if case .object(let members) = try JSONValue(parsing: bytes) { return members.count }
        return 0
    }
    let parseSerialization = try measure(iterations: iterations) {
        (try JSONSerialization.jsonObject(with: data) as? [String: Any])?.count ?? 0
    }
    let parseDecoder = try measure(iterations: iterations) {
        _ = try decoder.decode(Push.self, from: data)
        return 1
    }
    report(
        name, "parse", ours: parseOurs,
        others: [("JSONSerialization", parseSerialization), ("JSONDecoder", parseDecoder)])

    let writeOurs = measure(iterations: iterations) { value.serialized().count }
    let writeSerialization = try measure(iterations: iterations) {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).count
    }
    // Unsorted output is not what the relay needs (it writes deterministic bytes), shown for scale.
    let writeUnsorted = try measure(iterations: iterations) { try JSONSerialization.data(withJSONObject: object).count }
    let writeEncoder = try measure(iterations: iterations) { try encoder.encode(model).count }
    report(
        name, "serialize", ours: writeOurs,
        others: [
            ("JSONSerialization", writeSerialization), ("  (keys unsorted)", writeUnsorted),
            ("JSONEncoder", writeEncoder),
        ])
    print()
}

do {
    try bench(name: "delivery-600B", text: Payloads.delivery, as: DeliveryPush.self, iterations: iterations)
    try bench(name: "game-4KB", text: Payloads.game, as: GamePush.self, iterations: max(1, iterations / 6))
} catch {
    print("bench-json: \(error)")
    exit(1)
}
print("(checksum \(sink))")
