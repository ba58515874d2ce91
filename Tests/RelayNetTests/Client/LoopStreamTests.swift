import Glibc
import RelayNet
import XCTest

/// Outbound streams on a loop against the relay's own TLS echo server.
final class LoopStreamTests: XCTestCase {
    private final class Recorder: LoopStreamDelegate, @unchecked Sendable {  // Sendable: called on the loop only.
        let log: HandlerLog
        init(log: HandlerLog) { self.log = log }

        func streamConnected(_ stream: LoopStream) { log.record("connected") }
        func stream(_ stream: LoopStream, received bytes: [UInt8]) {
            log.record("received \(String(decoding: bytes, as: UTF8.self))")
        }
        func streamClosed(_ stream: LoopStream, error: (any Error)?) {
            log.record("closed")
            if let error { log.recordError(error) }
        }
    }

    private var loop: EventLoop!

    override func setUpWithError() throws { loop = try EventLoop(name: "stream-test") }

    override func tearDown() {
        loop.stop()
        loop.waitUntilStopped()
    }

    private func open(port: UInt16, serverName: String?, log: HandlerLog) throws -> (LoopStream, Recorder) {
        let recorder = Recorder(log: log)
        let context = try TLSClientContext(caFile: TestCertificate.shared.certificate, alpn: [])
        let loop = loop!
        let stream = try loop.submitAndWait {
            let stream = try LoopStream.connect(
                to: SocketAddress(host: "127.0.0.1", port: port), tls: serverName.map { (context, $0) }, on: loop,
                timeout: 10, delegate: recorder)
            stream.write(Array("ping".utf8))  // queued before the connect completes
            return stream
        }
        return (stream, recorder)
    }

    func testTLSStreamSendsQueuedBytesAfterTheHandshakeAndReadsTheEcho() throws {
        let server = try RunningServer.start()
        defer { server.stop() }
        let log = HandlerLog()
        let (stream, recorder) = try open(port: server.port, serverName: "localhost", log: log)
        XCTAssertTrue(log.waitFor { $0.count("received ping") == 1 }, "\(log.events)")
        XCTAssertEqual(log.count("connected"), 1)
        try loop.submitAndWait { stream.close() }
        XCTAssertTrue(log.waitFor { $0.count("closed") == 1 })
        XCTAssertEqual(log.errorDescriptions, [])
        withExtendedLifetime(recorder) {}
    }

    func testTLSStreamRefusesACertificateForAnotherName() throws {
        let server = try RunningServer.start()
        defer { server.stop() }
        let log = HandlerLog()
        let (_, recorder) = try open(port: server.port, serverName: "redis.example", log: log)
        XCTAssertTrue(log.waitFor { $0.count("closed") == 1 })
        XCTAssertEqual(log.count("connected"), 0)
        XCTAssertTrue(log.errorDescriptions.first?.contains("verify certificate") ?? false, "\(log.errorDescriptions)")
        withExtendedLifetime(recorder) {}
    }

    func testRefusedConnectIsReportedOnce() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        close(fd)  // bound, never listening: nothing answers there
        let log = HandlerLog()
        let (_, recorder) = try open(port: port, serverName: nil, log: log)
        XCTAssertTrue(log.waitFor { $0.count("closed") == 1 })
        XCTAssertEqual(log.count("connected"), 0)
        XCTAssertTrue(log.errorDescriptions.first?.contains("connect") ?? false, "\(log.errorDescriptions)")
        withExtendedLifetime(recorder) {}
    }
}
