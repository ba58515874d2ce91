import Foundation
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// The listener driven by independent clients: curl over both HTTP versions, the Python `h2`
/// conformance suite, h2load, and peers that stall.
final class TransportLiveTests: XCTestCase {
    private var relay: LiveRelay!

    override func setUpWithError() throws {
        relay = try LiveRelay(extraRoutes: [EchoRoutes()]) { options in
            options.httpLimits.headerReadTimeout = 1
            options.serverLimits.handshakeTimeout = 1
            options.serverLimits.lingerSeconds = 1
        }
    }

    override func tearDown() {
        relay?.stop()
        relay = nil
    }

    func testCurlOverHTTP2AndHTTP1VerifiesTheGeneratedCertificate() throws {
        for (flag, version) in [("--http2", "2"), ("--http1.1", "1.1")] {
            let outcome = try relay.curl([flag, "-w", "\\n%{http_version} %{http_code}", "\(relay.base)/healthz"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            XCTAssertTrue(outcome.stdout.contains("\"status\":\"ok\""), outcome.stdout)
            // The store's durability and counts: the default background sync, none failed.
            XCTAssertTrue(outcome.stdout.contains("\"sync\":\"every-0.1s\""), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("\"syncFailures\":0"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.hasSuffix("\(version) 200"), outcome.stdout)
        }
        let untrusted = try ChildProcess.run(["curl", "-sS", "--max-time", "10", "\(relay.base)/healthz"])
        XCTAssertEqual(untrusted.status, 60, "curl must refuse the certificate without --cacert")
    }

    func testUnknownPathIsJSON404() throws {
        let outcome = try relay.curl(["--http2", "-w", " %{http_code}", "\(relay.base)/nowhere"])
        XCTAssertTrue(outcome.stdout.hasSuffix(" 404"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("\"error\":\"notFound\""), outcome.stdout)
    }

    func testPythonH2ConformanceSuitePasses() throws {
        let outcome = try ChildProcess.run(
            [
                "python3", Fixtures.path("h2_conformance.py"), "--host", "127.0.0.1", "--port", String(relay.port),
                "--cafile", relay.caPath, "--path", "/bytes", "--post-path", "/echo",
            ], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains(" passed, 0 failed"), outcome.stdout)
    }

    func testH2LoadTwentyConnectionsFiftyStreamsNoFailures() throws {
        let outcome = try ChildProcess.run(
            ["h2load", "-n", "2000", "-c", "20", "-m", "50", "\(relay.base)/healthz"], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("2000 succeeded, 0 failed, 0 errored"), outcome.stdout)
    }

    func testHTTP1BodyOverLimitIs413() throws {
        let body = String(repeating: "a", count: 70_000)
        let outcome = try relay.curl(
            [
                "--http1.1", "-w", " %{http_code}", "-H", "content-type: text/plain", "--data-binary", body,
                "\(relay.base)/echo",
            ])
        XCTAssertTrue(outcome.stdout.hasSuffix(" 413"), outcome.stdout)
    }

    /// The same oversized body to the app API is the same answer over either HTTP version (curl
    /// over HTTP/1.1; Python `h2` over HTTP/2, which reads the answer before the RST_STREAM(NO_ERROR)
    /// that stops the rest of the body, where curl may report a failed upload).
    func testOversizedBodyIsTheSameAnswerOverHTTP1AndHTTP2() throws {
        let provider = try ProviderRelay()
        defer { provider.stop() }
        let body = "{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}"
        let admin = provider.data.adminKey.secret
        let http1 = try provider.relay.curl(
            [
                "--http1.1", "-w", "\n%{http_code}", "-H", "authorization: Bearer \(admin)", "-H",
                "content-type: application/json", "--data-binary", body, "\(provider.relay.base)/v1/devices",
            ])
        XCTAssertEqual(http1.status, 0, http1.stderr)
        let lines = http1.stdout.split(separator: "\n").map(String.init)
        let http2 = try XCTUnwrap(
            try provider.h2([
                [
                    "requests": [
                        H2Request(
                            path: "/v1/devices",
                            headers: [("authorization", "Bearer \(admin)"), ("content-type", "application/json")],
                            body: body
                        ).json
                    ]
                ]
            ]).first?.answers.first)
        XCTAssertEqual(lines.last, "413")
        XCTAssertEqual(http2.status, 413)
        XCTAssertEqual(lines.first, http2.body)
        XCTAssertTrue(http2.body.contains("\"error\":\"tooLarge\""), http2.body)
    }

    /// A client still sending a refused body must read the answer, not a reset: after the `413` the
    /// relay keeps reading and dropping the rest for `lingerSeconds` (1 s here), then lets go.
    func testARefusedBodyCanBeSentOnAfterTheAnswerUntilTheRelayLetsGo() throws {
        let script = """
            import socket, ssl, sys, time
            ctx = ssl.create_default_context(cafile=sys.argv[2])
            ctx.set_alpn_protocols(["http/1.1"])
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="localhost")
            s.sendall(b"POST /echo HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Length: 900000\\r\\n\\r\\n")
            s.settimeout(10)
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk: break
                data += chunk
            print(data.split(b"\\r\\n")[0].decode())
            def send(count, size, pause):
                sent = 0
                try:
                    for _ in range(count):
                        s.sendall(b"a" * size)
                        sent += size
                        time.sleep(pause)
                except OSError as error:
                    return "reset after %d bytes" % sent
                return "sent %d bytes" % sent
            print("after the answer:", send(16, 16384, 0.02))
            time.sleep(1.5)
            print("past the linger:", send(10, 1024, 0.05))
            """
        let outcome = try ChildProcess.run(["python3", "-c", script, String(relay.port), relay.caPath], timeout: 30)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines, ["HTTP/1.1 413 Content Too Large", "after the answer: sent 262144 bytes", lines.last ?? ""],
            outcome.stdout + outcome.stderr)
        XCTAssertTrue(lines.last?.hasPrefix("past the linger: reset after") == true, outcome.stdout + outcome.stderr)
    }

    func testSlowHeaderSenderIsCutOffAndOthersAreServed() throws {
        let script = """
            import socket, ssl, sys, time
            ctx = ssl.create_default_context(cafile=sys.argv[2])
            ctx.set_alpn_protocols(["http/1.1"])
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="localhost")
            s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\n")
            start = time.time()
            s.settimeout(10)
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk: break
                data += chunk
            print(round(time.time() - start, 1), data.split(b"\\r\\n")[0].decode())
            """
        let slow = try ChildProcess(["python3", "-c", script, String(relay.port), relay.caPath])
        let healthy = try relay.curl(["--http2", "\(relay.base)/healthz"])
        XCTAssertEqual(healthy.status, 0)
        slow.closeInput()
        let outcome = try slow.wait(timeout: 20)
        XCTAssertTrue(outcome.stdout.contains("408"), outcome.stdout + outcome.stderr)
    }

    func testStalledHandshakeIsClosed() throws {
        let script = """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.settimeout(10)
            start = time.time()
            print("closed" if s.recv(1) == b"" else "data", round(time.time() - start, 1))
            """
        let outcome = try ChildProcess.run(["python3", "-c", script, String(relay.port)], timeout: 20)
        XCTAssertTrue(outcome.stdout.hasPrefix("closed"), outcome.stdout + outcome.stderr)
    }
}
