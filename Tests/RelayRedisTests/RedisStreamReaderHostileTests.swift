import Foundation
import Glibc
import RelayNet
import RelayRedis
import XCTest

/// `RedisStreamReader` against a fake single-node "cluster" whose `XREAD` replies break the rules:
/// each costs the connection, never a crash or an entry delivered twice.
final class RedisStreamReaderHostileTests: XCTestCase {
    /// A Redis impostor on a loopback port, one thread per connection: it owns every slot and answers
    /// `XREAD` with `xreadReplies` in turn, then null.
    private final class FakeNode: @unchecked Sendable {  // Sendable: shared state behind `lock`.
        let port: UInt16
        private let listener: Int32
        private let lock = NSLock()
        private var xreadReplies: [[UInt8]]
        private var xreadConnections = Set<Int>()
        private var accepted = 0

        init(xreadReplies: [[UInt8]]) throws {
            self.xreadReplies = xreadReplies
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.listener = listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, length) == 0 && listen(listener, 16) == 0
                        && getsockname(listener, $0, &length) == 0
                }
            }
            port = UInt16(bigEndian: address.sin_port)
            guard bound else { throw SystemError(call: "bind", errno: errno) }
            Thread.detachNewThread { [self] in acceptLoop() }
        }

        /// Connections that were sent at least one `XREAD`.
        var readConnections: Int { lock.withLock { xreadConnections.count } }

        func stop() {
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }

        private func acceptLoop() {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                Thread.detachNewThread { [self] in serve(fd) }
            }
        }

        private func serve(_ fd: Int32) {
            defer { close(fd) }
            let connection = lock.withLock {
                accepted += 1
                return accepted
            }
            var parser = RESPParser()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                parser.append(buffer[0..<count])
                while let command = try? parser.next() {
                    let words = (command.elements ?? []).compactMap(\.string)
                    let reply = answer(words, connection: connection)
                    guard send(fd, reply, reply.count, Int32(MSG_NOSIGNAL)) == reply.count else { return }
                }
            }
        }

        private func answer(_ words: [String], connection: Int) -> [UInt8] {
            switch words.first?.uppercased() {
            case "CLUSTER":
                let node = RESPValue.map([
                    RESPPair(key: .bulkString(Array("ip".utf8)), value: .bulkString(Array("127.0.0.1".utf8))),
                    RESPPair(key: .bulkString(Array("port".utf8)), value: .integer(Int64(port))),
                    RESPPair(key: .bulkString(Array("role".utf8)), value: .bulkString(Array("master".utf8))),
                    RESPPair(key: .bulkString(Array("health".utf8)), value: .bulkString(Array("online".utf8))),
                ])
                let shard = RESPValue.map([
                    RESPPair(key: .bulkString(Array("slots".utf8)), value: .array([.integer(0), .integer(16_383)])),
                    RESPPair(key: .bulkString(Array("nodes".utf8)), value: .array([node])),
                ])
                return RESPEncoder.encode(.array([shard]))
            case "XREAD":
                return lock.withLock {
                    xreadConnections.insert(connection)
                    return xreadReplies.isEmpty ? Array("_\r\n".utf8) : xreadReplies.removeFirst()
                }
            case "PING": return Array("+PONG\r\n".utf8)
            default: return Array("+OK\r\n".utf8)
            }
        }
    }

    func testMalformedAndOversizedXReadRepliesCostTheConnectionNotTheEntries() throws {
        let head = "%1\r\n$6\r\nstream\r\n"
        let fake = try FakeNode(xreadReplies: [
            Array((head + "*1\r\n*2\r\n$3\r\n0-1\r\n*1\r\n$1\r\nf\r\n").utf8),  // odd field list
            Array(  // three entries where COUNT asked for two
                (head + "*3\r\n" + String(repeating: "*2\r\n$3\r\n0-1\r\n*0\r\n", count: 3)).utf8),
            Array("$5\r\nhello\r\n".utf8),  // not a stream reply at all
            Array((head + "*1\r\n*2\r\n$3\r\n0-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n").utf8),
        ])
        defer { fake.stop() }
        let loop = try EventLoop(name: "hostile-stream")
        defer {
            loop.stop()
            loop.waitUntilStopped()
        }
        let reader = RedisStreamReader(
            options: RedisClusterClient.Options(seeds: ["127.0.0.1:\(fake.port)"]), loop: loop, batchSize: 2)
        final class Seen: @unchecked Sendable {  // Sendable: touched on the loop only.
            var ids: [String] = []
        }
        let seen = Seen()
        try loop.submitAndWait {
            reader.watch("stream", after: .zero) { batch in seen.ids += batch.map(\.id.description) }
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, try loop.submitAndWait({ seen.ids.isEmpty }) { usleep(50_000) }
        let (ids, stats) = try loop.submitAndWait { (seen.ids, reader.stats) }
        XCTAssertEqual(ids, ["0-1"])
        XCTAssertEqual(stats.malformedReplies, 3)
        XCTAssertGreaterThanOrEqual(stats.connectionsLost, 3)
        XCTAssertEqual(fake.readConnections, 4, "each bad reply closed its connection")
        try loop.submitAndWait { reader.shutdown() }
    }
}
