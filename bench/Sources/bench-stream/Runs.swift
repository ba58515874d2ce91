import Foundation
import RelayCore
import RelayJSON

/// The two measurements.
enum Runs {
    /// Memory per idle subscriber: RSS of `pids` before and after `subscribers` connect.
    static func idle(_ target: Target, subscribers: Int, connectors: Int, pids: String) throws {
        let processes = pids.split(separator: ",").compactMap { Int32($0) }
        guard !processes.isEmpty else { throw BenchError("--pids names no process") }
        // Warm up: handshakes, session caches and allocator arenas, then let go.
        let warm = try Subscribers(target: target, count: min(200, subscribers), threads: connectors)
        warm.closeAll()
        sleep(2)
        let before = Memory.rss(processes)
        let started = Clock.now()
        let streams = try Subscribers(target: target, count: subscribers, threads: connectors)
        let connectSeconds = Clock.now() - started
        sleep(3)
        let after = Memory.rss(processes)
        let perSubscriber = Double(after - before) / Double(subscribers)
        print("target: \(target.kind.rawValue)")
        print("idle subscribers: \(streams.connections.count) (connected in \(format(connectSeconds)) s)")
        print("server RSS: \(before / 1024) KiB -> \(after / 1024) KiB")
        print("memory per idle subscriber: \(Int(perSubscriber)) bytes")
        let report: JSONValue = [
            "target": .string(target.kind.rawValue), "mode": "idle", "subscribers": .int(Int64(subscribers)),
            "rssBefore": .int(Int64(before)), "rssAfter": .int(Int64(after)),
            "bytesPerSubscriber": .number(perSubscriber.rounded()),
        ]
        print(report.jsonString)
        streams.closeAll()
    }

    /// Latency of paced pushes and deliveries per second of a burst, to `subscribers` subscribers.
    static func fanout(
        _ target: Target, subscribers count: Int, connectors: Int, readers: Int, latencyPushes: Int, interval: Double,
        burst: Int, publishers: Int, pad: String
    ) throws {
        let subscribers = try Subscribers(target: target, count: count, threads: connectors)
        subscribers.startReading(threads: readers)
        // A few pushes first, so both sides have warmed up before anything is measured.
        _ = try Publisher.paced(target, numbers: 1_000_000..<1_000_005, interval: 0.05, pad: pad)
        subscribers.waitForDeliveries(5 * count, timeout: 30)

        let paced = try Publisher.paced(target, numbers: 1..<(latencyPushes + 1), interval: interval, pad: pad)
        subscribers.waitForDeliveries((5 + latencyPushes) * count, timeout: 60)
        let burstNumbers = 100_000..<(100_000 + burst)
        let burstStart = Clock.now()
        let bursts = try Publisher.burst(target, numbers: burstNumbers, connections: publishers, pad: pad)
        let publishSeconds = Clock.now() - burstStart
        subscribers.waitForDeliveries((5 + latencyPushes + burst) * count, timeout: 120)
        let (arrivals, ended, bytes) = subscribers.stopReading()
        subscribers.closeAll()

        var latencies: [Double] = []
        var perPush: [Int: (first: Double, last: Double)] = [:]
        var burstDeliveries = 0
        var lastBurstArrival = burstStart
        for arrival in arrivals {
            if let sent = paced[arrival.bseq] {
                let latency = arrival.at - sent
                latencies.append(latency)
                let seen = perPush[arrival.bseq] ?? (latency, latency)
                perPush[arrival.bseq] = (min(seen.first, latency), max(seen.last, latency))
            } else if burstNumbers.contains(arrival.bseq) {
                burstDeliveries += 1
                lastBurstArrival = max(lastBurstArrival, arrival.at)
            }
        }
        latencies.sort()
        let firstBurstSend = bursts.values.min() ?? burstStart
        let burstSeconds = lastBurstArrival - firstBurstSend
        let rate = Double(burstDeliveries) / burstSeconds
        let p50 = Stats.percentile(latencies, 50) * 1000
        let p99 = Stats.percentile(latencies, 99) * 1000
        let max = (latencies.last ?? .nan) * 1000
        let averageBytes = arrivals.isEmpty ? 0 : bytes / arrivals.count
        print("target: \(target.kind.rawValue)")
        print("subscribers: \(count) over TLS (HTTP/1.1 SSE), event data ~\(averageBytes) bytes")
        print(
            "latency: \(latencies.count) of \(latencyPushes * count) deliveries, p50 \(format(p50)) ms, p99 \(format(p99)) ms, max \(format(max)) ms"
        )
        print(
            "burst: \(burst) pushes from \(publishers) connections in \(format(publishSeconds)) s; \(burstDeliveries) of \(burst * count) deliveries in \(format(burstSeconds)) s = \(Int(rate)) deliveries/s"
        )
        // Where the tail comes from: the first delivery of a push is its way through the server
        // (request, commit, hand-off to the loops); the spread to its last delivery is the fan-out.
        let firsts = perPush.values.map(\.first).sorted()
        let spreads = perPush.values.map { $0.last - $0.first }.sorted()
        print(
            "per push: first delivery p50 \(format(Stats.percentile(firsts, 50) * 1000)) ms, p99 \(format(Stats.percentile(firsts, 99) * 1000)) ms; "
                + "spread to the last p50 \(format(Stats.percentile(spreads, 50) * 1000)) ms, p99 \(format(Stats.percentile(spreads, 99) * 1000)) ms"
        )
        if ended > 0 { print("streams ended by the server: \(ended)") }
        let report: JSONValue = [
            "target": .string(target.kind.rawValue), "mode": "fanout", "subscribers": .int(Int64(count)),
            "latencyDeliveries": .int(Int64(latencies.count)), "latencyExpected": .int(Int64(latencyPushes * count)),
            "p50ms": .number((p50 * 100).rounded() / 100), "p99ms": .number((p99 * 100).rounded() / 100),
            "maxms": .number((max * 100).rounded() / 100), "burstDeliveries": .int(Int64(burstDeliveries)),
            "burstExpected": .int(Int64(burst * count)), "deliveriesPerSecond": .number(rate.rounded()),
            "ended": .int(Int64(ended)), "eventBytes": .int(Int64(averageBytes)),
        ]
        print(report.jsonString)
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
