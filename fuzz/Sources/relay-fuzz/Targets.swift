import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayServer

enum JSONTarget {
    static func run(_ bytes: [UInt8]) {
        guard let value = try? JSONValue(parsing: bytes) else { return }
        let written = value.serialized()
        let again = requireJSON(written, "the serializer's output")
        guard again == value else {
            fatalError("JSON round trip changed the value: \(String(decoding: written, as: UTF8.self))")
        }
        let rewritten = again.serialized()
        guard rewritten == written else {
            fatalError(
                "serializing twice gave two texts: \(String(decoding: written, as: UTF8.self)) / "
                    + String(decoding: rewritten, as: UTF8.self))
        }
    }
}

enum HPACKTarget {
    static func run(_ bytes: [UInt8]) {
        var decoder = HPACKDecoder()
        for block in pieces(of: bytes, limit: 4) {
            guard let headers = try? decoder.decode(block) else { return }
            var encoder = HPACKEncoder()
            var encoded: [UInt8] = []
            encoder.encode(headers, into: &encoded)
            var fresh = HPACKDecoder(maxHeaderListSize: Int.max / 2)
            guard let decoded = try? fresh.decode(encoded) else {
                fatalError("HPACKEncoder's block for \(headers.count) decoded fields does not decode")
            }
            guard decoded.count == headers.count,
                zip(decoded, headers).allSatisfy({ $0.name == $1.name && $0.value == $1.value })
            else { fatalError("HPACK round trip changed the fields: \(headers) -> \(decoded)") }
        }
    }
}

enum HTTP2Target {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func run(_ bytes: [UInt8]) {
        var connection = HTTP2ServerConnection()
        var chunks = pieces(of: bytes, limit: 6)
        chunks[0] = preface + chunks[0]
        for chunk in chunks {
            for event in connection.receive(chunk) {
                switch event {
                case .request(let streamID, let request, _, _):
                    let body = Array("{\"path\":\"\(request.path)\",\"bytes\":\(request.body.count)}".utf8)
                    _ = connection.sendResponse(
                        streamID: streamID, head: HTTPResponseHead(status: 200, headers: HTTPHeaders([("x-a", "b")])),
                        body: body)
                case .requestTooLarge(let streamID, _, _, _):
                    _ = connection.sendResponse(streamID: streamID, head: HTTPResponseHead(status: 413), body: [])
                case .streamReset, .goawayReceived:
                    break
                case .connectionError:
                    drain(&connection)
                    return
                }
            }
            drain(&connection)
        }
    }

    private static func drain(_ connection: inout HTTP2ServerConnection) {
        var rounds = 0
        while connection.nextOutput() != nil {
            rounds += 1
            if rounds > 100_000 { fatalError("nextOutput never ran dry") }
        }
    }
}

enum HTTP1Target {
    static func run(_ bytes: [UInt8]) {
        var parser = HTTP1RequestParser(limits: .init(maxHeaderBytes: 4096, maxHeaderFields: 32, maxBodyBytes: 8192))
        for chunk in pieces(of: bytes, limit: 5) {
            parser.feed(chunk)
            var taken = 0
            loop: while true {
                switch parser.next() {
                case .request:
                    taken += 1
                    // Each request consumes at least its request line.
                    if taken > bytes.count { fatalError("more requests than input bytes") }
                case .needMore, .error:
                    break loop
                }
            }
        }
    }
}

enum JWTTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = ProviderToken.parse(authorization: text, parseJSON: { try JSONValue(parsing: $0) })
        _ = ProviderToken.parse(authorization: "bearer " + text, parseJSON: { try JSONValue(parsing: $0) })
    }
}

enum ScenarioTarget {
    static func run(_ bytes: [UInt8]) {
        guard let scenario = try? JSONValue(parsing: bytes) else { return }
        guard let report = try? ScenarioRunner.run(scenario) else { return }
        _ = report.text
        let written = report.json.serialized()
        requireJSON(written, "the report's JSON")
    }
}

/// A configuration file for `activity-relay serve --config FILE`: the input is the file. It must
/// give a configuration or one `ConfigurationError` whose text is one line that names what to fix.
enum ConfigTarget {
    static let path = "/dev/shm/relay-fuzz-config-\(getpid()).json"

    static func run(_ bytes: [UInt8]) {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            fatalError("the fuzz target could not write \(path)")
        }
        do {
            _ = try RelayConfiguration.parse(arguments: ["--config", path], workingDirectory: "/nonexistent-base")
        } catch {
            let text = error.description
            guard !error.message.isEmpty, !text.contains("\n") else {
                fatalError("a configuration error that is not one line naming a problem: \(text.debugDescription)")
            }
        }
    }
}
