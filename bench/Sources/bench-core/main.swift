import Foundation
import RelayCore

// bench-core [ACTIVITIES] [PUSHES] [--threads 1|2] [--render]: one DeviceEmulator, ACTIVITIES
// activities (default 10000) each sent PUSHES pushes (default 100) over 12 virtual hours, through
// validation, delivery and effects as the server runs them.
// --threads 2 (the default) runs them as the server does on two cores: one thread validates each
// push and builds its context (the event loop's part), the other delivers it to the emulator and
// drains the effects (the part under the emulator's lock). --threads 1 runs every part on one
// thread and times each part around every push. Prints the times and one summary line for notes.
// --render (with --threads 1) also builds and serializes the JSON of every event, document and
// push record (the server's work to store and stream them), timed apart from the core.
// --split runs two emulators instead of one, each with every other device and its own thread:
// not how the relay runs, but the most a design splitting delivery by device could gain here.

/// Prints how to call the bench and exits with status 2.
func usage() -> Never {
    print(
        "usage: bench-core [ACTIVITIES] [PUSHES] [--threads 1|2 | --split] [--render]   "
            + "(defaults 10000 activities, 100 pushes each, 2 threads; --render needs --threads 1)")
    exit(2)
}

var render = false
var split = false
var threadCount: Int?
var numbers: [Int] = []
var argumentsLeft = CommandLine.arguments.dropFirst()[...]
while let argument = argumentsLeft.popFirst() {
    switch argument {
    case "--render":
        render = true
    case "--split":
        split = true
    case "--threads":
        guard let value = argumentsLeft.popFirst().flatMap({ Int($0) }), value == 1 || value == 2 else { usage() }
        threadCount = value
    default:
        guard let value = Int(argument) else { usage() }
        numbers.append(value)
    }
}
let activityCount = numbers.first ?? 10_000
let pushesPerActivity = numbers.dropFirst().first ?? 100
guard activityCount > 0, pushesPerActivity >= 2, numbers.count <= 2, !(render && threadCount == 2),
    !(split && (render || threadCount != nil))
else { usage() }
let pipelined = !split && (threadCount ?? (render ? 1 : 2)) == 2
let deviceCount = min(300, activityCount)
let hours = 12.0
let start: Double = 1_750_000_000
let clock = ContinuousClock()

/// Prints a report line with the label padded to a column.
func line(_ label: String, _ text: String) { print(label.padding(toLength: 12, withPad: " ", startingAt: 0) + text) }

/// `value` with a k/M suffix, for rates.
func short(_ value: Double) -> String {
    if value >= 1e6 { return String(format: "%.2fM", value / 1e6) }
    if value >= 1e3 { return String(format: "%.0fk", value / 1e3) }
    return String(format: "%.0f", value)
}

// The cost of one clock read: the run reads the clock four times per push, and that is included.
let timerCost: Double = {
    let reads = 200_000
    let began = clock.now
    var last = began
    for _ in 0..<reads { last = clock.now }
    return seconds(last - began) / Double(reads)
}()

// MARK: - Setup: devices, activities started with update tokens, the push schedule

let setupBegan = clock.now
/// With `--split`, two emulators, each with every other device (and so every activity on it);
/// otherwise one with them all.
let shardCount = split ? 2 : 1
let ids = SeededIdentifiers(seed: 0x5EED)
var emulators = (0..<shardCount).map { shard in
    DeviceEmulator(rules: .defaults, ids: shard == 0 ? ids : SeededIdentifiers(seed: 0x5EED &+ 1), now: start)
}
var deviceIds: [String] = []
for index in 0..<deviceCount {
    let shard = index % shardCount
    let device = emulators[shard].createDevice(keyHash: "bench", at: start)
    deviceIds.append(device.id)
    // Every fifth device lets the scores app push more often (a 60-per-hour budget).
    if index % 5 == 0 {
        _ = try? emulators[shard].updateAppSettings(
            deviceId: device.id, bundleId: App.sports.bundleId, body: ["frequentPushesEnabled": true], at: start)
    }
}
/// The emulator (with `--split`) that holds activity `index`: its device's.
func shard(ofActivity index: Int) -> Int { index % deviceCount % shardCount }
var workload = Workload(
    activities: activityCount, pushesPerActivity: pushesPerActivity, duration: hours * 3600, start: start)
for index in 0..<activityCount {
    let body = Workload.startBody(activity: index, deviceId: deviceIds[index % deviceCount])
    do {
        let activity = try emulators[shard(ofActivity: index)].startActivity(body: body, at: start)
        guard let token = activity.pushToken else {
            print("bench-core: activity \(index) started without a push token")
            exit(1)
        }
        workload.tokens[index] = token
    } catch {
        print("bench-core: starting activity \(index): \(error)")
        exit(1)
    }
}
for index in emulators.indices { _ = emulators[index].takeEffects() }
let setupTime = seconds(clock.now - setupBegan)

// MARK: - The run: every push in time order, in chunks written ahead of time

// Each server takes its emulator out of the list, so that the server's copy is the only one (a
// change to a shared emulator would copy it); with `--split` the second is taken below.
var server = PushServer(emulator: emulators.removeFirst(), ids: ids, render: render)
let schedule = workload.schedule
/// Past the last push, so the last dismissals (12 h after the start at most) fire.
let finalTime = start + hours * 3600 + 600
var clientTime = Duration.zero
var coreCPU = 0.0
/// With two threads: each thread's CPU time.
var threadCPU = [0.0, 0.0]
/// With `pipelined`: each thread's time (monotonic clock) validating, waiting for its turns,
/// delivering with the effects, and releasing them after the turn.
var phases: [(validate: Double, wait: Double, deliver: Double, release: Double)] = []
/// With `pipelined`: how many turns there were (one per chunk), and how many a thread waited
/// for asleep, its spins spent.
var turnCount = 0
var sleeps = 0
var core = 0.0
var runWall = 0.0

if pipelined || split {
    // Every push is written before the clock starts, so the client shares no core with the run.
    let written = clock.now
    var chunks: [[WirePush]] = []
    var shards: [[WirePush]] = [[], []]
    let chunkSize = 64
    if split {
        for scheduled in schedule {
            shards[shard(ofActivity: Int(scheduled.activity))].append(workload.wire(scheduled))
        }
    } else {
        chunks.reserveCapacity(schedule.count / chunkSize + 1)
        var position = 0
        while position < schedule.count {
            let end = min(position + chunkSize, schedule.count)
            chunks.append(schedule[position..<end].map { workload.wire($0) })
            position = end
        }
    }
    clientTime = clock.now - written
    if let other = emulators.popLast() {
        // Consumed, so that the run's server holds the only copy of the second emulator.
        let run = SplitRun(
            pushes: shards, servers: [server, PushServer(emulator: consume other, ids: ids, render: false)])
        shards = []
        // The run's servers must be the only ones, or their first change would copy the emulators.
        server = PushServer(emulator: DeviceEmulator(rules: .defaults, ids: ids, now: start), ids: ids, render: false)
        withExtendedLifetime(run) {
            let runBegan = clock.now
            let (servers, cpu) = run.run(advancingTo: finalTime)
            runWall = seconds(clock.now - runBegan)
            threadCPU = cpu
            server = servers[0]
            server.tally.add(servers[1].tally)
        }
    } else {
        let pipeline = Pipeline(chunks: chunks, server: server)
        turnCount = chunks.count
        chunks = []
        // The pipeline's server must be the only one, or its first change would copy the emulator.
        server = PushServer(emulator: DeviceEmulator(rules: .defaults, ids: ids, now: start), ids: ids, render: false)
        withExtendedLifetime(pipeline) {
            // The written pushes are released with the pipeline, after the clock stops.
            let runBegan = clock.now
            let tallies: [Tally]
            (server, tallies, threadCPU, phases, sleeps) = pipeline.run(advancingTo: finalTime)
            runWall = seconds(clock.now - runBegan)
            for tally in tallies { server.tally.add(tally) }
        }
    }
    core = runWall
    coreCPU = threadCPU[0] + threadCPU[1]
} else {
    server.tally.reserve(pushes: schedule.count)
    let runBegan = clock.now
    var chunk: [WirePush] = []
    let chunkSize = 8192
    var position = 0
    while position < schedule.count {
        let written = clock.now
        chunk.removeAll(keepingCapacity: true)
        for scheduled in schedule[position..<min(position + chunkSize, schedule.count)] {
            chunk.append(workload.wire(scheduled))
        }
        position += chunk.count
        clientTime += clock.now - written
        let cpuBefore = threadCPUTime()
        for push in chunk { server.handle(push) }
        coreCPU += threadCPUTime() - cpuBefore
    }
    let cpuBefore = threadCPUTime()
    server.advance(to: finalTime)
    coreCPU += threadCPUTime() - cpuBefore
    runWall = seconds(clock.now - runBegan)
    core = runWall - seconds(clientTime) - seconds(server.renderTime)
    coreCPU -= server.renderCPU
}
let client = seconds(clientTime)
let rendering = seconds(server.renderTime)

// MARK: - Report

var tally = server.tally
tally.summarize()
let pushes = schedule.count
let validate = seconds(server.validateTime)
let deliver = seconds(server.deliverTime)
let effects = seconds(server.effectsTime)
let overhead = timerCost * 4 * Double(pushes)

print(
    "bench-core: \(activityCount) activities x \(pushesPerActivity) pushes over \(Int(hours)) virtual hours, "
        + "\(deviceCount) devices, \(pushes) pushes, "
        + (pipelined
            ? "2 threads (each validates its chunks, then delivers them in turn)"
            : split ? "split: 2 emulators, each with half the devices and a thread of its own" : "1 thread"))
line("setup", String(format: "%7.3f s  (devices, activities started with tokens, push schedule)", setupTime))
line(
    "client",
    String(
        format: "%7.3f s  (writing each push's headers and body%@; not counted)", client,
        pipelined || split ? ", all before the run" : ""))
line("core", String(format: "%7.3f s  %.2f µs/push (wall)", core, core / Double(pushes) * 1e6))
if pipelined || split {
    line(
        "core CPU",
        String(
            format: "%7.3f s  %.2f µs/push (both threads' CPU time; the wall time is the busier thread's)", coreCPU,
            coreCPU / Double(pushes) * 1e6))
    for (loop, time) in threadCPU.enumerated() {
        line(
            "  thread \(loop + 1)",
            String(
                format: "%7.3f s  %.2f µs/push  %4.0f%% of the wall time", time, time / Double(pushes) * 1e6,
                time / core * 100))
    }
}
if pipelined {
    // Delivery is serial: the wall time cannot be less than both threads' delivery together.
    let delivering = phases.reduce(0) { $0 + $1.deliver }
    let validating = phases.reduce(0) { $0 + $1.validate }
    let releasing = phases.reduce(0) { $0 + $1.release }
    let waiting = phases.reduce(0) { $0 + $1.wait }
    line(
        "  validate",
        String(
            format: "%7.3f s  %.2f µs/push (both threads; in parallel, each on its own chunks)", validating,
            validating / Double(pushes) * 1e6))
    line(
        "  deliver",
        String(
            format: "%7.3f s  %.2f µs/push (both threads, with the effects; serial: %.0f%% of the wall time)",
            delivering, delivering / Double(pushes) * 1e6, delivering / core * 100))
    line(
        "  release",
        String(
            format:
                "%7.3f s  %.2f µs/push (both threads, after each turn: effects and requests counted, released)",
            releasing, releasing / Double(pushes) * 1e6))
    line(
        "  waiting",
        String(
            format: "%7.3f s  (both threads, for their turns: spinning, or asleep in %d of %d turns)",
            waiting, sleeps, turnCount))
} else if !split {
    line(
        "core CPU",
        String(
            format: "%7.3f s  %.2f µs/push (this thread's CPU time; less than wall when the machine is busy)",
            coreCPU, coreCPU / Double(pushes) * 1e6))
    for (name, time) in [("  validate", validate), ("  deliver", deliver), ("  effects", effects)] {
        line(
            name, String(format: "%7.3f s  %.2f µs/push  %4.1f%%", time, time / Double(pushes) * 1e6, time / core * 100)
        )
    }
    line(
        "  other",
        String(
            format: "%7.3f s  (loop, counting; clock reads ~%.3f s at %.0f ns each)",
            core - validate - deliver - effects,
            overhead, timerCost * 1e9))
}
if render {
    line(
        "render",
        String(
            format: "%7.3f s  %.2f µs/push (JSON of every event, document and push record, %d MB; not counted)",
            rendering,
            rendering / Double(pushes) * 1e6, server.renderedBytes / 1_000_000))
}
line("total", String(format: "%7.3f s  (setup + client + core%@)", setupTime + runWall, render ? " + render" : ""))
line("rates", "\(short(Double(pushes) / core)) pushes/s, \(short(Double(tally.events) / core)) events/s (core time)")
line("effects", "\(tally.events) events, \(tally.pushRecords) push records, \(tally.documents) document writes")
line(
    "events",
    RelayEventType.all.filter { tally.events($0) > 0 }.map { "\($0.rawValue) \(tally.events($0))" }.joined(
        separator: ", "))
line(
    "outcomes", tally.pushesByOutcome.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
)
line(
    "refusals",
    tally.pushesByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))

// Every behaviour the workload is built to exercise must have happened, or the figures mean less.
let expected: [(String, Int)] = [
    ("applied updates", tally.pushesByOutcome["applied"] ?? 0),
    ("deferred updates", tally.pushesByOutcome["deferred"] ?? 0),
    ("ignored pushes", tally.pushesByOutcome["ignored"] ?? 0),
    ("410 Unregistered", tally.pushesByReason["Unregistered"] ?? 0),
    ("refusals before delivery", tally.pushesByReason["BadPriority"] ?? 0),
    ("stale activities", tally.events(.activityStale)),
    ("ended activities", tally.events(.activityEnded)),
    ("dismissed activities", tally.events(.activityDismissed)),
]
let missing = expected.filter { $0.1 == 0 }.map(\.0)
if !missing.isEmpty {
    print("bench-core: the run had no \(missing.joined(separator: ", ")); the workload no longer exercises them")
    exit(1)
}
if pipelined || split {
    print(
        String(
            format: "summary: RelayCore %d activities x %d pushes / %.0f h, %@: %.2f s core (%.2f s CPU: "
                + "%.2f + %.2f; %.2f s with setup), %@ pushes/s, %@ events/s",
            activityCount, pushesPerActivity, hours, split ? "split in 2 emulators" : "2 threads", core, coreCPU,
            threadCPU[0], threadCPU[1], core + setupTime, short(Double(pushes) / core),
            short(Double(tally.events) / core)))
} else {
    print(
        String(
            format: "summary: RelayCore %d activities x %d pushes / %.0f h, 1 thread: %.2f s core (%.2f s CPU; "
                + "%.2f s with setup), %@ pushes/s, %@ events/s; validate %.2f, deliver %.2f, effects %.2f s",
            activityCount, pushesPerActivity, hours, core, coreCPU, core + setupTime, short(Double(pushes) / core),
            short(Double(tally.events) / core), validate, deliver, effects))
}
