import Foundation
import RelayCore
import RelayHTTP
import RelayJSON
import RelayNet
import RelayServer
import RelayStore
import XCTest

/// Drives a `LiveRelay`'s state directly (as the app API would) and reads its event stream with
/// the RelayNet TLS client, for the stream tests.
extension LiveRelay {
    /// Runs `command` through the service on the device `scope` names (which only cluster mode
    /// needs) and waits for its commit (and so its publication).
    @discardableResult
    func perform<T: Sendable>(
        in scope: StateScope = .none,
        _ command: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) throws(EmulatorError) -> T
    ) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        let service = runtime.service
        drive {
            service.perform(
                in: scope,
                { emulator, now in
                    do throws(EmulatorError) {
                        return Result<T, EmulatorError>.success(try command(&emulator, now))
                    } catch {
                        return .failure(error)
                    }
                },
                completion: { outcome in
                    box.set(outcome)
                    done.signal()
                })
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "commit timed out")
        return try box.get()
    }

    /// A new device and its key.
    func createDevice() throws -> (id: String, key: String) {
        let key = try DeviceKey.generate()
        let hash = key.hash
        let device = try perform { emulator, now in emulator.createDevice(keyHash: hash, at: now) }
        return (device.id, key.secret)
    }

    /// Starts an activity on `deviceId` and returns its id.
    func startActivity(deviceId: String, bundleId: String = "com.example.app", state: JSONValue = ["step": 0])
        throws -> String
    {
        let body: JSONValue = [
            "deviceId": .string(deviceId), "bundleId": .string(bundleId), "attributesType": "DeliveryAttributes",
            "attributes": ["order": "A1"], "contentState": state,
        ]
        return try perform(in: .device(deviceId)) { emulator, now throws(EmulatorError) in
            try emulator.startActivity(body: body, at: now).id
        }
    }

    /// Applies `count` app updates to activity `id` in one commit (`step` 1...count, `padding` bytes of filler).
    func updateActivity(_ id: String, count: Int, from first: Int = 1, padding: Int = 0) throws {
        let filler = String(repeating: "x", count: padding)
        try perform(in: .activity(id)) { emulator, now throws(EmulatorError) in
            for step in first..<(first + count) {
                _ = try emulator.updateActivity(
                    id: id, body: ["contentState": ["step": .int(Int64(step)), "filler": .string(filler)]], at: now)
            }
        }
    }

    /// The TLS client context trusting this relay.
    func clientContext() throws -> TLSClientContext { try TLSClientContext(caFile: caPath) }

    /// Opens `GET target` as an event stream.
    func openStream(
        _ target: String = "/v1/stream", key: String? = LiveRelay.adminKey, lastEventID: String? = nil,
        receiveBufferBytes: Int? = nil
    ) throws -> EventStreamConnection {
        try EventStreamConnection.open(
            host: "localhost", port: port, context: try clientContext(), target: target, bearer: key,
            lastEventID: lastEventID, receiveBufferBytes: receiveBufferBytes)
    }

    /// One whole request over HTTP/1.1.
    func request(_ method: String, _ target: String, key: String? = LiveRelay.adminKey, body: String = "")
        throws -> HTTPSConnection.Response
    {
        let connection = try HTTPSConnection.connect(host: "localhost", port: port, context: try clientContext())
        defer { connection.close() }
        var headers: [(String, String)] = []
        if let key { headers.append(("authorization", "bearer \(key)")) }
        if !body.isEmpty { headers.append(("content-type", "application/json")) }
        return try connection.request(method, target, headers: headers, body: Array(body.utf8))
    }

    /// Waits until the hub has `count` subscribers.
    func waitForSubscribers(_ count: Int, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while runtime.service.subscriberCount != count, Date() < deadline { usleep(5_000) }
        XCTAssertEqual(runtime.service.subscriberCount, count, "subscribers", file: file, line: line)
    }
}

extension EventStreamConnection {
    /// Reads events until `count` have arrived (or `timeout` seconds pass, or the stream ends).
    func collect(_ count: Int, timeout: Double = 20) throws -> [SSEEvent] {
        var events: [SSEEvent] = []
        let deadline = Date().addingTimeInterval(timeout)
        while events.count < count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            switch try next(timeout: left) {
            case .events(let more): events.append(contentsOf: more)
            case .timedOut, .ended: return events
            }
        }
        return events
    }

    /// Reads whatever arrives within `seconds`.
    func drain(for seconds: Double) throws -> [SSEEvent] {
        var events: [SSEEvent] = []
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return events }
            switch try next(timeout: left) {
            case .events(let more): events.append(contentsOf: more)
            case .timedOut, .ended: return events
            }
        }
    }
}

extension SSEEvent {
    /// The event's JSON data.
    var json: JSONValue { (try? JSONValue(parsing: data)) ?? .null }
    /// The numeric id.
    var seq: UInt64 { UInt64(id ?? "") ?? 0 }
}

/// A result handed from the writer thread to the test thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {  // Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var value: Result<Result<T, EmulatorError>, StoreError>?

    func set(_ value: Result<Result<T, EmulatorError>, StoreError>) {
        lock.lock()
        self.value = value
        lock.unlock()
    }

    func get() throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let value else { throw StreamTestError("no result") }
        return try value.get().get()
    }
}

/// A test precondition that did not hold.
struct StreamTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension LiveRelay {
    /// Moves the virtual clock forward by `seconds` and waits for the commit.
    func advanceClock(by seconds: Double) throws {
        let done = DispatchSemaphore(value: 0)
        let failed = ResultBox<Bool>()
        let service = runtime.service
        drive {
            service.changeClock(
                { clock, real throws(ClockError) in try clock.advance(by: seconds, real: real) },
                completion: { outcome in
                    if case .failure = outcome { failed.set(.success(.success(true))) }
                    done.signal()
                })
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "clock change timed out")
        XCTAssertNil(try? failed.get(), "clock change failed")
    }

    /// The relay's current time.
    var now: UnixSeconds { runtime.service.clock.now() }
}
