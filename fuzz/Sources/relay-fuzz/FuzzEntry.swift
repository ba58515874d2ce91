import Foundation
import RelayCore
import RelayHTTP
import RelayJSON

/// One input, run through the target named by `RELAY_FUZZ_TARGET` (libFuzzer calls it through
/// `main.swift`). A target returns normally for any input it handles (refusing it is handling it)
/// and stops the process, through a trap or `fatalError`, when a property it checks does not hold.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.selected.run(bytes)
    return 0
}

/// What each target feeds and what it checks.
enum FuzzTarget: String, CaseIterable {
    /// `JSONValue(parsing:)`; what parses must serialize to JSON that parses to the same value,
    /// and serializing that again must give the same bytes.
    case json
    /// HPACK header blocks, several in a row through one decoder (its dynamic table carries
    /// over); what decodes must survive `HPACKEncoder` and a fresh decoder unchanged.
    case hpack
    /// Bytes after the client preface into `HTTP2ServerConnection`, in pieces; every request is
    /// answered, and the output drained after each piece.
    case http2
    /// Bytes into `HTTP1RequestParser`, in pieces; requests are taken until it needs more or fails.
    case http1
    /// A provider API request: the input is the body, its first byte picks the route and header
    /// variants. Live-activity pushes that validate are delivered to an emulated device whose
    /// effects are serialized, and every event must be JSON; then the clock moves 13 hours on.
    case apns
    /// The `authorization` header's value, as `ProviderToken.parse` reads it.
    case jwt
    /// A scenario for `activity-relay simulate`: parsed, run, and its report written as JSON.
    case scenario
    /// Requests into the relay's routes in-process (see `AppAPITarget`).
    case appapi
    /// A configuration file for `serve --config` (see `ConfigTarget`).
    case config
    /// Bytes from a Redis server into `RESPParser`, in pieces (see `RESPTarget`).
    case resp

    /// The target named by `RELAY_FUZZ_TARGET`; exits with a usage line when it names none.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["RELAY_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("relay-fuzz: set RELAY_FUZZ_TARGET to one of \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .json: JSONTarget.run(bytes)
        case .hpack: HPACKTarget.run(bytes)
        case .http2: HTTP2Target.run(bytes)
        case .http1: HTTP1Target.run(bytes)
        case .apns: APNsTarget.run(bytes)
        case .jwt: JWTTarget.run(bytes)
        case .scenario: ScenarioTarget.run(bytes)
        case .appapi: AppAPITarget.run(bytes)
        case .config: ConfigTarget.run(bytes)
        case .resp: RESPTarget.run(bytes)
        }
    }
}

/// Splits `bytes` into up to `limit` pieces whose lengths come from the input itself (its last
/// bytes), so the fuzzer also explores where a read ends.
func pieces(of bytes: [UInt8], limit: Int) -> [[UInt8]] {
    guard bytes.count > 4 else { return [bytes] }
    let seed = Int(bytes[bytes.count - 1]) << 8 | Int(bytes[bytes.count - 2])
    var result: [[UInt8]] = []
    var start = 0
    var state = seed | 1
    while start < bytes.count, result.count < limit - 1 {
        state = (state &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
        let length = 1 + state % max(1, bytes.count / 2)
        let end = min(bytes.count, start + length)
        result.append(Array(bytes[start..<end]))
        start = end
    }
    if start < bytes.count { result.append(Array(bytes[start...])) }
    return result
}

/// `bytes` parsed as JSON; stops the run, naming `what` wrote them, when they are not JSON.
@discardableResult
func requireJSON(_ bytes: [UInt8], _ what: @autoclosure () -> String) -> JSONValue {
    guard let value = try? JSONValue(parsing: bytes) else {
        fatalError("\(what()) is not JSON: \(String(decoding: bytes, as: UTF8.self))")
    }
    return value
}
