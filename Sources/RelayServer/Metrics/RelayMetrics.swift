import RelayCore
import RelayNet

/// The relay's process-wide counters and histograms, as Prometheus reads them at `GET /metrics`.
///
/// Every label takes its value from a fixed list (surface, method, status code, APNs reason,
/// outcome, error code), so the number of series is bounded whatever clients send; anything off
/// the list counts as `other`. Counting is one relaxed atomic add, safe from any thread.
package final class RelayMetrics: Sendable {
    /// The process's metrics.
    package static let shared = RelayMetrics()

    // MARK: - Label sets

    /// What part of the relay a request went to, by its path.
    static let surfaces = [
        "health", "metrics", "provider", "channels", "broadcast", "stream", "pushlog", "app", "other",
    ]
    /// Request methods counted by name; others are `other`.
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]
    /// The status codes counted by number; any other is `other`.
    static let statuses = [
        101, 200, 201, 202, 204, 206, 301, 304, 400, 401, 403, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415,
        416, 421, 422, 429, 431, 500, 501, 502, 503, 504, 505,
    ]
    /// One slot per code in `statuses`, then `other`.
    static let statusSlots = statuses.count + 1
    /// Status code → slot, for codes 0–599.
    private static let statusIndex: [UInt8] = {
        var table = [UInt8](repeating: UInt8(statuses.count), count: 600)
        for (index, status) in statuses.enumerated() { table[status] = UInt8(index) }
        return table
    }()
    /// `none` for an accepted push, every APNs reason the relay knows, then `other`.
    static let reasons = ["none"] + APNsReason.allKnown.map(\.rawValue) + ["other"]
    /// What the emulated device did with a push (`PushOutcome`), then `other`.
    static let outcomes = ["applied", "started", "deferred", "ignored", "dropped", "rejected", "broadcast", "other"]
    /// Why a TLS handshake failed, from the error OpenSSL or the connection reported.
    static let handshakeFailures = [
        "timeout", "peer_closed", "protocol_version", "no_shared_cipher", "plain_http", "alpn", "certificate",
        "other",
    ]
    /// HTTP/2 error codes 0x0–0xd by RFC 9113 name, then `other`.
    static let http2Codes = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED", "other",
    ]
    /// Who sent an HTTP/2 GOAWAY or RST_STREAM.
    static let directions = ["sent", "received"]
    /// Why an event stream ended (`ResponseStream.EndReason`), then `other`.
    static let streamEnds = ["finished", "peerClosed", "tooSlow", "shutdown", "other"]

    // MARK: - Counters

    let requests = MetricSlots(count: surfaces.count * methods.count * statusSlots)
    let pushReasons = MetricSlots(count: reasons.count)
    let pushOutcomes = MetricSlots(count: outcomes.count)
    let handshakes = MetricSlots(count: 1)
    let handshakeFailureCounts = MetricSlots(count: handshakeFailures.count)
    let goaways = MetricSlots(count: directions.count * http2Codes.count)
    let resets = MetricSlots(count: directions.count * http2Codes.count)
    let streamEndCounts = MetricSlots(count: streamEnds.count)
    /// Seconds from a batch's submission to its acknowledgement (committed, and synced when
    /// each commit is synced).
    let commitSeconds = MetricHistogram(bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1])
    /// Events per committed batch.
    let batchEvents = MetricHistogram(bounds: [0, 1, 2, 4, 8, 16, 32, 64, 128, 256])

    init() {}

    // MARK: - Recording

    /// Counts an answered request.
    func countRequest(path: String, method: String, status: Int) {
        let surface = Self.surface(of: path)
        let methodIndex = Self.methods.firstIndex(of: method) ?? Self.methods.count - 1
        let statusIndex = (0..<600).contains(status) ? Int(Self.statusIndex[status]) : Self.statusSlots - 1
        requests.add((surface * Self.methods.count + methodIndex) * Self.statusSlots + statusIndex)
    }

    /// Counts a provider push (device or broadcast) by its APNs reason and the device's outcome.
    func countPush(reason: String?, outcome: PushOutcome) {
        let reasonIndex = reason.map { Self.reasons.firstIndex(of: $0) ?? Self.reasons.count - 1 } ?? 0
        pushReasons.add(reasonIndex)
        pushOutcomes.add(Self.outcomes.firstIndex(of: outcome.rawValue) ?? Self.outcomes.count - 1)
    }

    /// Counts a completed TLS handshake.
    func countHandshake() { handshakes.add(0) }

    /// Counts a failed TLS handshake under the reason `error` shows.
    func countHandshakeFailure(_ error: any Error) {
        handshakeFailureCounts.add(Self.handshakeFailures.firstIndex(of: Self.handshakeFailureReason(error)) ?? 0)
    }

    /// Counts an HTTP/2 GOAWAY (`reset` false) or RST_STREAM sent or received with `code`.
    func countHTTP2(reset: Bool, sent: Bool, code: UInt32) {
        let codeIndex = code < UInt32(Self.http2Codes.count - 1) ? Int(code) : Self.http2Codes.count - 1
        let index = (sent ? 0 : 1) * Self.http2Codes.count + codeIndex
        if reset { resets.add(index) } else { goaways.add(index) }
    }

    /// Counts an event stream that ended.
    func countStreamEnd(_ reason: String) {
        streamEndCounts.add(Self.streamEnds.firstIndex(of: reason) ?? Self.streamEnds.count - 1)
    }

    /// Counts a committed batch of `events` events acknowledged `seconds` after its submission.
    func countCommit(seconds: Double, events: Int) {
        commitSeconds.observe(seconds)
        batchEvents.observe(Double(events))
    }

    // MARK: - Classification

    /// The index in `surfaces` of the part of the relay `path` goes to.
    static func surface(of path: String) -> Int {
        let name: String =
            if path == "/healthz" {
                "health"
            } else if path == "/metrics" {
                "metrics"
            } else if path.hasPrefix("/3/") || path == "/3" {
                "provider"
            } else if path.hasPrefix("/1/") || path == "/1" {
                "channels"
            } else if path.hasPrefix("/4/") || path == "/4" {
                "broadcast"
            } else if path.hasPrefix("/v1/stream") {
                "stream"
            } else if path == "/v1/pushes" || path.hasPrefix("/v1/pushes?") {
                "pushlog"
            } else if path.hasPrefix("/v1/") {
                "app"
            } else {
                "other"
            }
        return surfaces.firstIndex(of: name) ?? surfaces.count - 1
    }

    /// The failure reason of a handshake error, from the bounded list `handshakeFailures`.
    static func handshakeFailureReason(_ error: any Error) -> String {
        if let error = error as? ConnectionError, case .handshakeTimedOut = error { return "timeout" }
        let text = "\(error)".lowercased()
        if text.contains("peer closed") { return "peer_closed" }
        if text.contains("http request") || text.contains("https proxy request") { return "plain_http" }
        if text.contains("version") { return "protocol_version" }
        if text.contains("no shared cipher") || text.contains("no suitable") { return "no_shared_cipher" }
        if text.contains("application protocol") || text.contains("alpn") { return "alpn" }
        if text.contains("certificate") { return "certificate" }
        return "other"
    }
}
