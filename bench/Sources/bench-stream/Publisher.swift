import Foundation
import RelayServer
import Synchronization

/// Sends pushes over keep-alive HTTP/1.1 connections and records when each was sent.
enum Publisher {
    /// Sends pushes `numbers` one after another, `interval` seconds apart, on one connection;
    /// returns each push's send time.
    static func paced(_ target: Target, numbers: Range<Int>, interval: Double, pad: String) throws -> [Int: Double] {
        let connection = try HTTPSConnection.connect(host: target.host, port: target.port, context: target.context)
        defer { connection.close() }
        var sent: [Int: Double] = [:]
        var next = Clock.now()
        for number in numbers {
            let wait = next - Clock.now()
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            sent[number] = Clock.now()
            let response = try connection.request(
                "POST", target.publishTarget, headers: target.pushHeaders, body: target.pushBody(number, pad: pad))
            guard target.accepted(response.status) else {
                throw BenchError("push \(number): \(response.status) \(response.text)")
            }
            next += interval
        }
        return sent
    }

    /// Sends pushes `numbers` as fast as `connections` connections allow (each sends its share
    /// back to back); returns each push's send time.
    static func burst(_ target: Target, numbers: Range<Int>, connections: Int, pad: String) throws -> [Int: Double] {
        let sent = Mutex<[Int: Double]>([:])
        let failure = Mutex<String?>(nil)
        let group = DispatchGroup()
        let opened = try (0..<max(1, connections)).map { _ in
            try HTTPSConnection.connect(host: target.host, port: target.port, context: target.context)
        }
        let lanes = opened.count
        for (lane, connection) in opened.enumerated() {
            group.enter()
            nonisolated(unsafe) let connection = connection
            Thread.detachNewThread {
                defer { group.leave() }
                var mine: [Int: Double] = [:]
                for number in stride(from: numbers.lowerBound + lane, to: numbers.upperBound, by: lanes) {
                    mine[number] = Clock.now()
                    do {
                        let response = try connection.request(
                            "POST", target.publishTarget, headers: target.pushHeaders,
                            body: target.pushBody(number, pad: pad))
                        guard target.accepted(response.status) else {
                            failure.withLock { $0 = $0 ?? "push \(number): \(response.status) \(response.text)" }
                            return
                        }
                    } catch {
                        failure.withLock { $0 = $0 ?? "push \(number): \(error)" }
                        return
                    }
                }
                sent.withLock { $0.merge(mine) { first, _ in first } }
            }
        }
        group.wait()
        for connection in opened { connection.close() }
        if let message = failure.withLock({ $0 }) { throw BenchError(message) }
        return sent.withLock { $0 }
    }
}

/// Resident memory of processes, from /proc.
enum Memory {
    /// The sum of VmRSS (bytes) over `pids`.
    static func rss(_ pids: [Int32]) -> Int {
        pids.reduce(0) { total, pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { return total }
            return total + kib * 1024
        }
    }
}

/// Percentiles of a sample.
enum Stats {
    /// The `p`-th percentile (0...100) of `values`, nearest-rank.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
