import RelayCore
import RelayJSON
import XCTest

/// A parser stand-in: the tests build payloads as `JSONValue` and hand them over with body bytes
/// of whatever size the case needs.
struct FakeParseError: Error, CustomStringConvertible {
    var description: String { "unexpected byte at 0" }
}

/// A parser that returns `value` for any bytes, or throws when `value` is nil.
func parser(returning value: JSONValue?) -> APNsBodyParser {
    { _ in
        guard let value else { throw FakeParseError() }
        return value
    }
}

/// A parser that knows a fixed set of JSON texts (for JWT headers and claims).
func parser(table: JSONObject) -> APNsBodyParser {
    { bytes in
        guard let value = table[String(decoding: bytes, as: UTF8.self)] else { throw FakeParseError() }
        return value
    }
}

/// A well-formed update payload.
let sampleUpdate: JSONValue = [
    "aps": [
        "timestamp": 1_700_000_000, "event": "update", "content-state": ["score": ["home": 1, "away": 0]],
    ]
]

/// A 64-hex-digit device token.
let sampleToken = String(repeating: "ab", count: 32)

/// Headers of a valid device push, with changes applied (nil removes a header).
func deviceHeaders(_ changes: [String: String?] = [:], extra: [(String, String)] = []) -> APNsHeaderFields {
    var fields: [String: String] = [
        "apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity",
        "authorization": "bearer x",
    ]
    for (name, value) in changes { fields[name] = value }
    let pairs = fields.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    return APNsHeaderFields(pairs + extra.map { (name: $0.0, value: $0.1) })
}

/// Validates a device push with permissive hooks unless given.
func validateDevice(
    method: String = "POST", path: String = "/3/device/\(sampleToken)", headers: APNsHeaderFields = deviceHeaders(),
    body: [UInt8]? = Array("{}".utf8), json: JSONValue? = sampleUpdate,
    authenticate: (String?) -> APNsError? = { _ in nil }, authorizeBundle: (String) -> APNsError? = { _ in nil }
) -> Result<LiveActivityPushRequest, APNsError> {
    LiveActivityPushRequest.validate(
        method: method, path: path, headers: headers, body: body, parseJSON: parser(returning: json),
        authenticate: authenticate, authorizeBundle: authorizeBundle)
}

/// The reason of a failed result, or nil on success.
func reason<T>(_ result: Result<T, APNsError>) -> APNsReason? {
    if case .failure(let error) = result { return error.reason }
    return nil
}
