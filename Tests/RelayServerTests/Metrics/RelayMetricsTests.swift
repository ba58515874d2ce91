import RelayNet
import XCTest

@testable import RelayServer

/// Labels come from fixed lists whatever a client sends, and the page follows the text format.
final class RelayMetricsTests: XCTestCase {
    func testSurfacesComeFromThePathAndAreBounded() {
        let cases: [(String, String)] = [
            ("/healthz", "health"), ("/metrics", "metrics"), ("/3/device/abc", "provider"), ("/1/apps/x", "channels"),
            ("/4/broadcasts/apps/x", "broadcast"), ("/v1/stream?x=1", "stream"), ("/v1/stream-tickets", "stream"),
            ("/v1/pushes?limit=5", "pushlog"), ("/v1/devices", "app"), ("/", "other"), ("/\u{1B}[31m", "other"),
        ]
        for (path, surface) in cases {
            XCTAssertEqual(RelayMetrics.surfaces[RelayMetrics.surface(of: path)], surface, path)
        }
    }

    func testRequestsOffTheListsCountAsOther() throws {
        let metrics = RelayMetrics()
        metrics.countRequest(path: "/healthz", method: "BREW", status: 999)
        metrics.countRequest(path: "/healthz", method: "GET", status: 200)
        metrics.countPush(reason: "MadeUpReason", outcome: .init("sideways"))
        metrics.countHTTP2(reset: true, sent: false, code: 0xdead)
        metrics.countStreamEnd("nonsense")
        let page = String(metrics.renderCounters())
        for line in [
            #"relay_http_requests_total{surface="health",method="other",status="other"} 1"#,
            #"relay_http_requests_total{surface="health",method="GET",status="200"} 1"#,
            #"relay_provider_pushes_total{reason="other"} 1"#,
            #"relay_push_outcomes_total{outcome="other"} 1"#,
            #"relay_http2_resets_total{direction="received",code="other"} 1"#,
            #"relay_stream_disconnects_total{reason="other"} 1"#,
        ] {
            XCTAssertTrue(page.contains(line + "\n"), "missing \(line) in\n\(page)")
        }
    }

    func testHandshakeFailureReasons() {
        let cases: [(any Error, String)] = [
            (ConnectionError.handshakeTimedOut(seconds: 10), "timeout"),
            (
                TLSError(operation: "TLS handshake", reason: "peer closed the connection during the handshake"),
                "peer_closed"
            ),
            (
                TLSError(operation: "SSL_do_handshake", reason: "error:0A00009C:SSL routines::http request"),
                "plain_http"
            ),
            (
                TLSError(operation: "SSL_do_handshake", reason: "error:0A000102:SSL routines::unsupported protocol"),
                "other"
            ),
            (
                TLSError(operation: "SSL_do_handshake", reason: "error:0A00010B:SSL routines::wrong version number"),
                "protocol_version"
            ),
            (TLSError(operation: "SSL_do_handshake", reason: "no shared cipher"), "no_shared_cipher"),
            (TLSError(operation: "SSL_do_handshake", reason: "no application protocol"), "alpn"),
        ]
        for (error, reason) in cases {
            XCTAssertEqual(RelayMetrics.handshakeFailureReason(error), reason, "\(error)")
            XCTAssertTrue(RelayMetrics.handshakeFailures.contains(reason))
        }
    }

    func testHistogramBucketsAreCumulative() {
        let histogram = MetricHistogram(bounds: [0.01, 0.1, 1])
        for value in [0.005, 0.01, 0.05, 0.5, 5] { histogram.observe(value) }
        var page = MetricsText()
        page.histogram("x_seconds", histogram)
        XCTAssertEqual(
            page.text,
            """
            x_seconds_bucket{le="0.01"} 2
            x_seconds_bucket{le="0.1"} 3
            x_seconds_bucket{le="1"} 4
            x_seconds_bucket{le="+Inf"} 5
            x_seconds_sum 5.565
            x_seconds_count 5

            """)
    }

    func testLabelValuesAreEscaped() {
        var page = MetricsText()
        page.sample("x", [("l", "a\"b\\c\nd")], UInt64(1))
        XCTAssertEqual(page.text, #"x{l="a\"b\\c\nd"} 1"# + "\n")
    }
}
