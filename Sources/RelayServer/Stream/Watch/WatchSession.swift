import RelayCore
import RelayHTTP
import RelayJSON
package import RelayNet
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal renderer's loop (`activity-relay watch`): opens the event stream over TLS with a
/// snapshot of the current state, applies every event to a `WatchBoard`, re-renders every second
/// (alarm countdowns move on their own), and when the connection drops resumes with
/// `Last-Event-ID` after a backoff (the server's `retry:` delay, doubling up to `maxBackoff`).
package final class WatchSession {
    /// What to watch and how.
    package struct Options: Sendable {
        package var host: String
        package var port: UInt16
        /// The bearer key (admin or device).
        package var key: String
        /// Only this device's activities and alarms.
        package var deviceId: String?
        /// Print the cards once after the snapshot and return.
        package var once = false
        /// Colours and a cleared screen for each render.
        package var ansi = true
        /// The longest wait between reconnection attempts, in seconds.
        package var maxBackoff = 30.0
        /// Seconds to wait for a connection or a response head.
        package var timeout = 10.0

        package init(host: String, port: UInt16, key: String, deviceId: String? = nil) {
            self.host = host
            self.port = port
            self.key = key
            self.deviceId = deviceId
        }
    }

    /// Why `run` returned.
    package enum Outcome: Equatable, Sendable {
        /// `--once` printed its cards, or `stop()` was called.
        case finished
        /// The relay refused the request (bad key, forbidden device, bad flag): retrying cannot help.
        case refused(String)
        /// `--once` could not get its snapshot.
        case failed(String)
    }

    private let options: Options
    private let context: TLSClientContext
    private let stopped = Atomic<Bool>(false)
    /// The board as last rendered (for callers and tests).
    package private(set) var board: WatchBoard
    /// The id the next connection resumes from.
    package private(set) var lastEventID: String?
    /// Connections opened so far.
    package private(set) var connections = 0

    /// A session against `options.host:port`, trusting `context`'s CA file.
    package init(options: Options, context: TLSClientContext) {
        self.options = options
        self.context = context
        let local = Self.localNow()
        board = WatchBoard(clock: WatchClock(relayNow: local, localNow: local))
    }

    /// A session trusting the CA certificates in the PEM file at `caFile`.
    package convenience init(options: Options, caFile: String) throws(TLSError) {
        self.init(options: options, context: try TLSClientContext(caFile: caFile))
    }

    /// Makes `run` return at its next wake-up (within a second).
    package func stop() { stopped.store(true, ordering: .relaxed) }

    /// Runs until stopped, refused, or (with `once`) the first snapshot has been shown. `output`
    /// gets each screen; `status` gets one line whenever the connection changes.
    package func run(output: (String) -> Void, status: (String) -> Void) -> Outcome {
        var backoff = 0.0
        while !stopped.load(ordering: .relaxed) {
            let stream: EventStreamConnection
            do {
                stream = try open()
            } catch {
                if case .status(let code, let body) = error, (400..<500).contains(code) {
                    return .refused("HTTP \(code): \(Self.message(body))")
                }
                if options.once { return .failed(error.description) }
                backoff = min(options.maxBackoff, max(1, backoff * 2))
                status("cannot reach \(options.host):\(options.port): \(error); retrying in \(Int(backoff)) s")
                wait(backoff, output: output)
                continue
            }
            connections += 1
            let connectedAt = Self.localNow()
            status(
                "connected to \(options.host):\(options.port)"
                    + (lastEventID.map { ", resuming after event \($0)" } ?? ""))
            let reason = pump(stream, output: output)
            stream.close()
            if options.once {
                if board.hasSnapshot {
                    output(screen())
                    return .finished
                }
                return .failed(reason)
            }
            guard !stopped.load(ordering: .relaxed) else { break }
            // A connection that held a while starts over at the server's delay; quick drops back off.
            let retry = min(options.maxBackoff, Double(stream.reconnectionTime ?? 1000) / 1000)
            let held = Self.localNow() - connectedAt >= 10
            backoff = held ? retry : min(options.maxBackoff, max(retry, backoff * 2))
            status("\(reason); resuming in \(Self.seconds(backoff))")
            wait(backoff, output: output)
        }
        return .finished
    }

    // MARK: - Private

    private func open() throws(HTTPSClientError) -> EventStreamConnection {
        refreshClock()
        var query: [String] = []
        if let deviceId = options.deviceId { query.append("deviceId=" + Self.percentEncode(deviceId)) }
        if lastEventID == nil { query.append("snapshot=true") }
        let target = "/v1/stream" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        return try EventStreamConnection.open(
            host: options.host, port: options.port, context: context, target: target, bearer: options.key,
            lastEventID: lastEventID, timeout: options.timeout)
    }

    /// Anchors the relay clock with `GET /v1/clock` (the app API); without it, the snapshot's
    /// clock and `clock` events do.
    private func refreshClock() {
        guard
            let connection = try? HTTPSConnection.connect(
                host: options.host, port: options.port, context: context, timeout: options.timeout)
        else { return }
        defer { connection.close() }
        guard
            let response = try? connection.request(
                "GET", "/v1/clock", headers: [("authorization", "bearer \(options.key)")], timeout: options.timeout),
            response.status == 200, let clock = try? JSONValue(parsing: response.body), clock["now"] != nil
        else { return }
        board.setClock(clock, local: Self.localNow())
    }

    /// Reads the device names and models (`GET /v1/devices`); a device key sees its own device.
    private func refreshDevices() {
        guard
            let connection = try? HTTPSConnection.connect(
                host: options.host, port: options.port, context: context, timeout: options.timeout)
        else {
            board.setDevices([])
            return
        }
        defer { connection.close() }
        let response = try? connection.request(
            "GET", "/v1/devices", headers: [("authorization", "bearer \(options.key)")], timeout: options.timeout)
        let items = response.flatMap { $0.status == 200 ? try? JSONValue(parsing: $0.body) : nil }?["items"]
        board.setDevices(items?.arrayValue ?? [])
    }

    /// Reads the stream until it ends; renders every second and after events. Returns why it stopped.
    private func pump(_ stream: EventStreamConnection, output: (String) -> Void) -> String {
        var nextRender = Self.localNow()
        var quietSince: Double?
        let giveUp = nextRender + options.timeout
        while !stopped.load(ordering: .relaxed) {
            let now = Self.localNow()
            if options.once, board.hasSnapshot, let quiet = quietSince, now - quiet >= 0.3 { return "done" }
            if options.once, !board.hasSnapshot, now > giveUp { return "no snapshot within \(Int(options.timeout)) s" }
            let wait = options.once ? 0.1 : max(0.05, nextRender - now)
            let next: EventStreamConnection.Next
            do {
                next = try stream.next(timeout: wait)
            } catch {
                return "connection lost: \(error)"
            }
            switch next {
            case .ended:
                return "the relay ended the stream"
            case .timedOut:
                quietSince = quietSince ?? Self.localNow()
            case .events(let events):
                quietSince = events.isEmpty ? (quietSince ?? Self.localNow()) : nil
                let local = Self.localNow()
                for event in events { board.apply(event, local: local) }
                if !board.unseenDevices.isEmpty { refreshDevices() }
                if !stream.lastEventID.isEmpty { lastEventID = stream.lastEventID }
            }
            if !options.once, Self.localNow() >= nextRender {
                output(screen())
                nextRender = Self.localNow().rounded(.down) + 1
            }
        }
        return "stopped"
    }

    /// Sleeps `seconds`, still rendering every second (countdowns keep moving while offline).
    private func wait(_ seconds: Double, output: (String) -> Void) {
        let end = Self.localNow() + seconds
        while !stopped.load(ordering: .relaxed) {
            let left = end - Self.localNow()
            guard left > 0 else { return }
            if !options.once { output(screen()) }
            Self.sleep(min(1, left))
        }
    }

    /// The current screen.
    package func screen() -> String {
        let text = WatchCards.render(board, now: board.clock.now(local: Self.localNow()), ansi: options.ansi)
        return options.ansi ? "\u{1B}[H\u{1B}[2J" + text : text
    }

    static func localNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func sleep(_ seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 { request = remaining }
    }

    private static func seconds(_ value: Double) -> String {
        value < 10 ? "\((value * 10).rounded() / 10) s" : "\(Int(value)) s"
    }

    /// The `message` of an app-API error body, or the body itself.
    private static func message(_ body: String) -> String {
        if let json = try? JSONValue(parsing: body), let message = json["message"]?.stringValue { return message }
        return String(body.prefix(200))
    }

    private static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let safe =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if safe {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
