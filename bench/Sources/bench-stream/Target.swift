import RelayCore
import RelayJSON
import RelayNet
import RelayServer

/// The server under test and how to talk to it: the relay (app API publishes, `/v1/stream`
/// subscribes) or nchan (`/pub/ID` publishes, `/sub/ID` subscribes with EventSource framing).
struct Target {
    enum Kind: String { case relay, nchan }

    let kind: Kind
    let host: String
    let port: UInt16
    let context: TLSClientContext
    /// The relay's admin key (nil for nchan).
    let key: String?
    /// What subscribers GET.
    let streamTarget: String
    /// The ports subscribers connect to, dealt in turn (several relay nodes in cluster mode);
    /// `port` alone unless `--subscriber-ports` names others.
    var subscriberPorts: [UInt16] = []
    /// Where pushes go: the activity's update path, or nchan's publisher location.
    let publishTarget: String

    /// Prepares a fresh channel: a device and an activity on the relay, a new channel id on nchan.
    static func prepare(kind: Kind, host: String, port: UInt16, context: TLSClientContext, key: String?, tag: String)
        throws -> Target
    {
        switch kind {
        case .nchan:
            return Target(
                kind: kind, host: host, port: port, context: context, key: nil, streamTarget: "/sub/\(tag)",
                publishTarget: "/pub/\(tag)")
        case .relay:
            guard let key else { throw BenchError("the relay needs --key") }
            let connection = try HTTPSConnection.connect(host: host, port: port, context: context)
            defer { connection.close() }
            let auth = [("authorization", "bearer \(key)"), ("content-type", "application/json")]
            let device = try connection.request("POST", "/v1/devices", headers: auth, body: Array("{}".utf8))
            guard device.status == 201, let deviceId = try JSONValue(parsing: device.body)["deviceId"]?.stringValue
            else {
                throw BenchError("POST /v1/devices: \(device.status) \(device.text)")
            }
            let body: JSONValue = [
                "deviceId": .string(deviceId), "bundleId": "com.example.bench", "attributesType": "BenchAttributes",
                "attributes": ["run": .string(tag)], "contentState": ["bseq": 0],
            ]
            let activity = try connection.request("POST", "/v1/activities", headers: auth, body: body.serialized())
            guard activity.status == 201, let id = try JSONValue(parsing: activity.body)["id"]?.stringValue else {
                throw BenchError("POST /v1/activities: \(activity.status) \(activity.text)")
            }
            return Target(
                kind: kind, host: host, port: port, context: context, key: key,
                streamTarget: "/v1/stream?deviceId=\(deviceId)&activityId=\(id)&types=activity.updated",
                publishTarget: "/v1/activities/\(id)/update")
        }
    }

    /// The request body of push number `n` with `pad` filler bytes.
    func pushBody(_ n: Int, pad: String) -> [UInt8] {
        switch kind {
        case .relay: return Array(#"{"contentState":{"bseq":\#(n),"pad":"\#(pad)"}}"#.utf8)
        case .nchan: return Array(#"{"bseq":\#(n),"pad":"\#(pad)"}"#.utf8)
        }
    }

    /// Headers of a push request.
    var pushHeaders: [(String, String)] {
        var headers = [("content-type", "application/json")]
        if let key { headers.append(("authorization", "bearer \(key)")) }
        return headers
    }

    /// Whether a push was accepted (the relay: 200 after its commit; nchan: 201 or 202).
    func accepted(_ status: Int) -> Bool { kind == .relay ? status == 200 : (201...202).contains(status) }
}

/// A failure that ends the benchmark with a message.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
