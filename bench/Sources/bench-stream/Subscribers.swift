import Foundation
import RelayHTTP
import RelayNet
import RelayServer
import Synchronization

/// N event-stream subscribers over TLS (HTTP/1.1), opened by several threads at once and then read
/// by a few reader threads that `poll` their connections; every event's `bseq` is recorded with
/// the monotonic time it arrived.
final class Subscribers: @unchecked Sendable {
    // Sendable: `connections` is filled before the readers start and only read after; each reader
    // owns its slice and its `Received` until `stop` joins it.
    private(set) var connections: [EventStreamConnection] = []
    private var received: [Received] = []
    private let stopping = Atomic<Bool>(false)
    /// Events with a `bseq` recorded so far, by all readers.
    let delivered = Atomic<Int>(0)
    private var readers: [Thread] = []
    private let finished = DispatchSemaphore(value: 0)

    /// A connection handed from the thread that opened it to the owner.
    private struct Opened: @unchecked Sendable {  // Sendable: handed over once, then used by one thread.
        let stream: EventStreamConnection
    }

    /// What one reader saw.
    final class Received: @unchecked Sendable {  // Sendable: owned by one reader thread, read after it stops.
        var arrivals: [(bseq: Int, at: Double)] = []
        var ended = 0
        var bytes = 0
    }

    /// Opens `count` subscriptions with `threads` threads; throws on the first failure.
    init(target: Target, count: Int, threads: Int) throws {
        let slots = Mutex<[Opened?]>(Array(repeating: nil, count: count))
        let failure = Mutex<String?>(nil)
        let next = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<max(1, threads) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while failure.withLock({ $0 == nil }) {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < count else { return }
                    do {
                        let ports = target.subscriberPorts.isEmpty ? [target.port] : target.subscriberPorts
                        let stream = try EventStreamConnection.open(
                            host: target.host, port: ports[index % ports.count], context: target.context,
                            target: target.streamTarget,
                            bearer: target.key, timeout: 30)
                        let opened = Opened(stream: stream)
                        slots.withLock { $0[index] = opened }
                    } catch {
                        failure.withLock { $0 = $0 ?? "subscriber \(index): \(error)" }
                    }
                }
            }
        }
        group.wait()
        if let message = failure.withLock({ $0 }) {
            for opened in slots.withLock({ $0 }).compactMap({ $0 }) { opened.stream.close() }
            throw BenchError(message)
        }
        connections = slots.withLock { $0 }.compactMap { $0?.stream }
    }

    /// Starts `threads` reader threads.
    func startReading(threads: Int) {
        let count = max(1, min(threads, connections.count))
        for reader in 0..<count {
            let mine = stride(from: reader, to: connections.count, by: count).map { connections[$0] }
            let record = Received()
            received.append(record)
            nonisolated(unsafe) let streams = mine
            let thread = Thread { [self] in
                Self.read(streams, into: record, until: stopping, counting: delivered)
                finished.signal()
            }
            thread.stackSize = 1 << 20
            readers.append(thread)
            thread.start()
        }
    }

    /// Stops the readers and returns everything they recorded.
    func stopReading() -> (arrivals: [(bseq: Int, at: Double)], ended: Int, bytes: Int) {
        stopping.store(true, ordering: .relaxed)
        for _ in readers { finished.wait() }
        readers = []
        var all: [(bseq: Int, at: Double)] = []
        var ended = 0
        var bytes = 0
        for record in received {
            all.append(contentsOf: record.arrivals)
            ended += record.ended
            bytes += record.bytes
        }
        received = []
        stopping.store(false, ordering: .relaxed)
        return (all, ended, bytes)
    }

    /// Waits until `count` deliveries have been recorded or `timeout` seconds pass; then a little
    /// longer, so late duplicates would be counted too.
    func waitForDeliveries(_ count: Int, timeout: Double) {
        let deadline = Clock.now() + timeout
        while delivered.load(ordering: .relaxed) < count, Clock.now() < deadline { usleep(2_000) }
        usleep(200_000)
    }

    /// Closes every connection.
    func closeAll() {
        for stream in connections { stream.close() }
        connections = []
    }

    private static func read(
        _ streams: [EventStreamConnection], into record: Received, until stop: borrowing Atomic<Bool>,
        counting delivered: borrowing Atomic<Int>
    ) {
        var fds = streams.map { pollfd(fd: $0.connection.client.fd, events: Int16(POLLIN), revents: 0) }
        var open = Array(repeating: true, count: streams.count)
        while !stop.load(ordering: .relaxed) {
            let ready = poll(&fds, nfds_t(fds.count), 50)
            guard ready > 0 else { continue }
            for index in fds.indices where fds[index].revents != 0 && open[index] {
                fds[index].revents = 0
                drain: while true {
                    let next: EventStreamConnection.Next
                    do {
                        next = try streams[index].next(timeout: 0)
                    } catch {
                        next = .ended
                    }
                    switch next {
                    case .timedOut:
                        break drain
                    case .ended:
                        record.ended += 1
                        open[index] = false
                        fds[index].fd = -1  // poll ignores negative descriptors
                        break drain
                    case .events(let events):
                        // Stamped when read: draining the other ready connections first takes time.
                        let now = Clock.now()
                        var counted = 0
                        for event in events {
                            record.bytes += event.data.utf8.count
                            if let bseq = Self.bseq(event.data) {
                                record.arrivals.append((bseq, now))
                                counted += 1
                            }
                        }
                        if counted > 0 { delivered.add(counted, ordering: .relaxed) }
                    }
                }
            }
        }
    }

    /// The number after `"bseq":` in an event's data (found without parsing the whole JSON).
    static func bseq(_ data: String) -> Int? {
        let marker = Array(#""bseq":"#.utf8)
        var bytes = Array(data.utf8)[...]
        while let start = bytes.firstIndex(of: marker[0]) {
            if bytes[start...].starts(with: marker) {
                var value = 0
                var index = start + marker.count
                var digits = 0
                while index < bytes.endIndex, (48...57).contains(bytes[index]) {
                    value = value * 10 + Int(bytes[index] - 48)
                    index += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            bytes = bytes[(start + 1)...]
        }
        return nil
    }
}

/// Monotonic seconds.
enum Clock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
