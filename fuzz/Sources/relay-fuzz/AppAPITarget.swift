import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import RelayServer

/// Requests into the relay's own routes, in-process: a `RelayService` on a database in `/dev/shm`
/// (so a commit's sync costs nothing) behind `DefaultRoutes`, as `activity-relay serve` builds
/// them, with no socket. One service serves the whole run, so its state grows from input to input.
///
/// An input is up to eight requests separated by a zero byte. Each is `METHOD TARGET`, then either
/// header lines (`name: value`), an empty line and the body, or (with no empty line) a newline
/// and the body. Requests carry the admin key and a JSON content type unless their own headers
/// say otherwise. In the target and the headers, `{d}`, `{a}`, `{l}` and `{t}` stand for a
/// device, an activity, an alarm and the activity's push token made at the start, and `{jwt}`
/// for a provider token the relay accepts, so that inputs reach real resources and the provider
/// API's deliveries.
/// Every request must be answered, within five seconds, with a status from 100 to 599, and a
/// full answer whose content type is JSON must be JSON. The relay's log goes to a file that is
/// read back after each input: every line must be one line, `time LEVEL event fields`, whatever
/// the requests carried (a newline in a value would let a client forge log lines).
enum AppAPITarget {
    static let adminKey = "admin-key-for-the-fuzz-target"

    static let teamID = "FUZZTEAM01"
    static let keyID = "FUZZKEY001"

    struct Setup {
        let router: Router
        let names: [(String, String)]
        let providerKey: P256PrivateKey
        /// The relay's log, emptied before each input.
        let log: Int32
    }

    static let setup: Setup = {
        let directory = "/dev/shm/relay-fuzz-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let log = open(directory + "/relay.log", O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0o600)
            guard log >= 0 else { fatalError("the fuzz target's log file could not be made") }
            RelayLog.setOutput(log)
            let service = try RelayService.open(
                path: directory + "/relay.sqlite", rules: .defaults, clockMode: .virtual, ids: SecureIdentifiers())
            guard let admin = AdminKey(adminKey) else { fatalError("the fuzz target's admin key is refused") }
            let providerKey = try P256PrivateKey()
            let keyring = ProviderKeyring(keys: [
                .init(teamID: teamID, keyID: keyID, publicKey: try providerKey.publicKey, bundleIDs: .any)
            ])
            let router = Router(
                groups: DefaultRoutes.all(service: service, settings: RouteSettings(adminKey: admin, keyring: keyring)))
            let device = try answer(router, "POST", "/v1/devices", body: "")["deviceId"]?.stringValue ?? ""
            let activity = try answer(
                router, "POST", "/v1/activities",
                body: #"{"deviceId":"\#(device)","bundleId":"com.example.fuzz","attributesType":"FuzzAttributes","#
                    + #""attributes":{"name":"n"},"contentState":{"step":0},"pushType":"token"}"#)
            let alarm = try answer(
                router, "POST", "/v1/alarms",
                body: #"{"deviceId":"\#(device)","bundleId":"com.example.fuzz","#
                    + #""countdownDuration":{"preAlert":60,"postAlert":30},"presentation":{"alert":{"title":"A"},"#
                    + #""countdown":{"title":"C"},"paused":{"title":"P"}}}"#)
            let names = [
                ("{d}", device), ("{a}", activity["id"]?.stringValue ?? ""),
                ("{t}", activity["pushToken"]?.stringValue ?? ""), ("{l}", alarm["id"]?.stringValue ?? ""),
            ]
            return Setup(router: router, names: names, providerKey: providerKey, log: log)
        } catch {
            fatalError("the fuzz target's relay could not be set up: \(error)")
        }
    }()

    struct SetupFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// The JSON of a setup request's answer; throws unless it succeeded.
    private static func answer(_ router: Router, _ method: String, _ target: String, body: String) throws -> JSONValue {
        let response = send(router, method: method, target: target, body: Array(body.utf8))
        guard (200..<300).contains(response.status), let json = try? JSONValue(parsing: response.body) else {
            throw SetupFailed(
                description: "\(method) \(target): \(response.status) \(String(decoding: response.body, as: UTF8.self))"
            )
        }
        return json
    }

    static func run(_ bytes: [UInt8]) {
        let setup = setup
        _ = ftruncate(setup.log, 0)
        defer { checkLog(setup.log) }
        var names = setup.names
        // Signed per input, at the system clock's time, as a provider server does every so often.
        let issuedAt = Int64(Date().timeIntervalSince1970)
        guard
            let jwt = try? JWTSigner.makeProviderToken(
                teamID: teamID, keyID: keyID, issuedAt: issuedAt, key: setup.providerKey)
        else { fatalError("the fuzz target could not sign a provider token") }
        names.append(("{jwt}", jwt))
        for bytes in bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(8) {
            let request = FuzzRequest(Array(bytes), names: names)
            let (method, target) = (request.method, request.target)
            let response = send(
                setup.router, method: method, target: target, headers: request.headers, body: request.body)
            guard (100...599).contains(response.status) else {
                fatalError("\(method) \(target) was answered with status \(response.status)")
            }
            let type = response.headers["content-type"] ?? ""
            if type.hasPrefix("application/json"), !response.body.isEmpty {
                requireJSON(response.body, "the JSON answer \(response.status) to \(method) \(target)")
            }
        }
    }

    /// Every complete line in the log is `YYYY-MM-DDTHH:MM:SS.mmmZ LEVEL event...` (a line still
    /// being written by a store thread is left for the next input).
    private static func checkLog(_ log: Int32) {
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(log, $0.baseAddress, $0.count, offset) }
            if count <= 0 { break }
            text += chunk[0..<count]
            offset += off_t(count)
        }
        guard let end = text.lastIndex(of: UInt8(ascii: "\n")) else { return }
        for line in text[...end].split(separator: UInt8(ascii: "\n")) where !isLogLine(line) {
            fatalError("a log line does not start a line: \(String(decoding: line, as: UTF8.self))")
        }
    }

    private static func isLogLine(_ line: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(line)
        guard bytes.count > 30, bytes[10] == UInt8(ascii: "T"), bytes[23] == UInt8(ascii: "Z"),
            bytes[24] == UInt8(ascii: " ")
        else { return false }
        let rest = bytes[25...]
        return ["DEBUG ", "INFO ", "WARN ", "ERROR "].contains { rest.starts(with: Array($0.utf8)) }
    }

    /// One request through the router; a streamed answer counts as its head.
    private static func send(
        _ router: Router, method: String, target: String, headers: [(String, String)] = [], body: [UInt8]
    ) -> HTTPResponse {
        var fields = HTTPHeaders()
        if !headers.contains(where: { $0.0.lowercased() == "authorization" }) {
            fields.add("authorization", "Bearer \(adminKey)")
        }
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            fields.add("content-type", "application/json")
        }
        for (name, value) in headers { fields.add(name, value) }
        let (path, query) = HTTPRequest.splitTarget(target)
        let request = HTTPRequest(method: method, path: path, query: query, headers: fields, body: body)
        let box = AnswerBox()
        router.handle(ServerRequest(request: request, context: ConnectionContext(), bodyTooLarge: false)) {
            box.put($0)
        }
        guard let answer = box.wait(seconds: 5) else { fatalError("\(method) \(target) got no answer in 5 s") }
        switch answer {
        case .full(let response): return response
        case .paged(let head, let pages):
            var body: [UInt8] = []
            while true {
                switch pages.next() {
                case .more(let bytes): body += bytes
                case .last(let bytes):
                    return HTTPResponse(status: head.status, headers: head.headers, body: body + bytes)
                case .failed: fatalError("\(method) \(target): a paged answer failed")
                }
            }
        case .stream(let head, _): return HTTPResponse(status: head.status, headers: head.headers)
        }
    }
}

/// Holds the one answer a request gets, from whichever thread gives it.
final class AnswerBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var answer: ServerResponse?

    func put(_ response: ServerResponse) {
        condition.lock()
        if answer != nil { fatalError("a request was answered twice") }
        answer = response
        condition.broadcast()
        condition.unlock()
    }

    func wait(seconds: Double) -> ServerResponse? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while answer == nil { if !condition.wait(until: deadline) { break } }
        return answer
    }
}

/// One request of an `appapi` input: `METHOD TARGET`, then header lines, an empty line and the
/// body, or (with no empty line) a newline and the body; `names` replaced in the target and the
/// header values.
struct FuzzRequest {
    var method: String
    var target: String
    var headers: [(String, String)] = []
    var body: [UInt8]

    init(_ text: [UInt8], names: [(String, String)]) {
        let newline = UInt8(ascii: "\n")
        var lines: [String] = []
        var start = 0
        while let end = text[start...].firstIndex(of: newline) {
            lines.append(String(decoding: text[start..<end], as: UTF8.self))
            start = end + 1
            if lines.count > 1, lines.last == "" { break }
        }
        if lines.count > 1, lines.last == "" {
            for line in lines[1..<(lines.count - 1)] {
                let colon = line.firstIndex(of: ":") ?? line.endIndex
                let value = colon < line.endIndex ? line[line.index(after: colon)...].drop { $0 == " " } : ""
                headers.append((String(line[..<colon]), Self.substitute(String(value), names)))
            }
            body = Array(text[start...])
        } else {
            let firstEnd = text.firstIndex(of: newline) ?? text.count
            lines = [String(decoding: text[..<firstEnd], as: UTF8.self)]
            body = firstEnd < text.count ? Array(text[(firstEnd + 1)...]) : []
        }
        let line = Self.substitute(lines[0], names)
        let space = line.firstIndex(of: " ") ?? line.endIndex
        method = String(line[..<space])
        target = space < line.endIndex ? String(line[line.index(after: space)...]) : "/"
    }

    private static func substitute(_ text: String, _ names: [(String, String)]) -> String {
        guard text.contains("{") else { return text }
        var text = text
        for (name, value) in names { text = text.replacingOccurrences(of: name, with: value) }
        return text
    }
}
