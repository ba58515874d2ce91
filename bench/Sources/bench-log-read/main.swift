import Foundation
import RelayStore

// bench-log-read DATABASE [RUNS] [events|pushes]: times the reads of the durable log that scan it, on a copy of
// a relay's database (a `KEEP=1 bench/provider-bench.sh` run leaves one): the event log read from
// its oldest event with no filter and with filters nothing matches (a stream subscriber resuming
// with a filter; nothing matching makes each read scan the whole retained log), and the push log
// searched by fields nothing matches (`GET /v1/pushes?token=...`). Prints each read's median and
// fastest time over RUNS runs (default 7); `events` or `pushes` runs only those reads. The file must have the relay's current schema (start
// the relay on it once to migrate it).

let arguments = CommandLine.arguments.dropFirst()
let only = arguments.dropFirst(2).first
guard let path = arguments.first, let runs = Int(arguments.dropFirst().first ?? "7"), runs > 0,
    only == nil || only == "events" || only == "pushes"
else {
    print("usage: bench-log-read DATABASE [RUNS] [events|pushes]")
    exit(2)
}

let reader: StoreReader
do {
    reader = try StoreReader(path: path)
} catch {
    print("bench-log-read: \(error)")
    exit(1)
}

/// Runs `read` `runs` times and prints its median and fastest time and what it returned.
func time(_ label: String, _ read: () throws -> Int) {
    var times: [Double] = []
    var count = 0
    for _ in 0..<runs {
        let began = ContinuousClock.now
        do {
            count = try read()
        } catch {
            print("bench-log-read: \(label): \(error)")
            exit(1)
        }
        let took = ContinuousClock.now - began
        times.append(Double(took.components.seconds) * 1e3 + Double(took.components.attoseconds) * 1e-15)
    }
    times.sort()
    let text = String(format: "%8.2f ms median, %8.2f ms fastest", times[times.count / 2], times[0])
    print(label.padding(toLength: 44, withPad: " ", startingAt: 0) + text + "  (\(count) returned)")
}

do {
    let oldest = try reader.oldestEventSeq() ?? 0
    let latest = try reader.latestEventSeq() ?? 0
    print(
        "bench-log-read: \(path): events \(oldest)...\(latest), \(try reader.pushCount()) push log entries, \(runs) runs"
    )
} catch {
    print("bench-log-read: \(error)")
    exit(1)
}
let none = "00000000-0000-4000-8000-000000000000"
if only != "pushes" {
    time("events, first 1,000") { try reader.events(after: 0, limit: 1_000).count }
    time("events, deviceId matching none") {
        try reader.events(after: 0, limit: 1_000, filter: StoredEventFilter(deviceId: none)).count
    }
    time("events, activityId matching none") {
        try reader.events(after: 0, limit: 1_000, filter: StoredEventFilter(activityId: none)).count
    }
    time("events, types matching none") {
        try reader.events(after: 0, limit: 1_000, filter: StoredEventFilter(types: ["alarm.fired"])).count
    }
}
if only != "events" {
    time("pushes, newest 1,000") { try reader.pushes(limit: 1_000).count }
    time("pushes, token matching none") { try reader.pushes(filter: PushFilter(token: "ff"), limit: 1_000).count }
    time("pushes, apnsId matching none") { try reader.pushes(filter: PushFilter(apnsId: none), limit: 1_000).count }
}
