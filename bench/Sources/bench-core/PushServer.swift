import Foundation
import RelayCore
import RelayJSON

/// CPU time this thread has used, in seconds. Unlike the wall clock it does not count time spent
/// waiting for a core, so it stays meaningful on a shared machine.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// The monotonic clock, in seconds: read through the vDSO, some 40 ns here, where a thread's CPU
/// time (`threadCPUTime()`) is a system call of about 700 ns. For timing a thread's phases often.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Seconds between two instants of `ContinuousClock`.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// What the relay's server does with a device push, reduced to the core's part: validate the raw
/// request, build the push context, deliver it to the emulator and take the effects it would
/// persist. Each part's time is summed separately.
struct PushServer {
    var emulator: DeviceEmulator
    let ids: SeededIdentifiers
    let clock = ContinuousClock()

    /// Validating the request and building its `PushContext`.
    var validateTime = Duration.zero
    /// `deliver` (or `recordRefusal` for a push that failed validation), and the final `advance`.
    var deliverTime = Duration.zero
    /// `takeEffects()`, counting what came out and letting it go.
    var effectsTime = Duration.zero
    /// With `render`: building and serializing the JSON of every event, document and push record,
    /// as the server does to store and stream them. Not part of the core's time.
    var renderTime = Duration.zero
    /// Whether to render effects (see `renderTime`).
    let render: Bool
    /// This thread's CPU time spent rendering.
    var renderCPU = 0.0
    /// Bytes rendered, so the work is observably used.
    var renderedBytes = 0

    var tally = Tally()

    init(emulator: DeviceEmulator, ids: SeededIdentifiers, render: Bool) {
        self.emulator = emulator
        self.ids = ids
        self.render = render
    }

    /// Handles one push as the server will: validation on the raw header list and body bytes (the
    /// body parsed once; the context reuses that parse), delivery, then the effects drained.
    mutating func handle(_ push: WirePush) {
        let started = clock.now
        let checked = Self.validate(push, ids: ids)
        let validatedAt = clock.now
        let result = deliver(checked)
        let deliveredAt = clock.now
        drainEffects()
        let finished = clock.now

        validateTime += validatedAt - started
        deliverTime += deliveredAt - validatedAt
        effectsTime += finished - deliveredAt
        tally.count(result)
    }

    /// Delivers a checked push and takes its effects, untimed (the two-thread run times each
    /// thread as a whole). Returns the effects and the answer for the caller to count (in a
    /// `Tally` of its own) and let go of after its turn: the server takes the effects under the
    /// emulator's lock and serializes and releases them after it.
    mutating func deliverTakingEffects(_ checked: CheckedPush) -> Delivered {
        let result = deliver(checked)
        return Delivered(effects: emulator.takeEffects(), result: result)
    }

    /// The server's work on its event loop, before the emulator: the request validated from its
    /// raw header list and body bytes, and the `PushContext` it builds (the header fields for the
    /// log with `authorization` redacted, `apns-id`, a unique ID from `ids`, the accepted body's
    /// bytes). Pure but for `ids`, so it can run on another
    /// thread than the emulator.
    static func validate(_ push: WirePush, ids: SeededIdentifiers) -> CheckedPush {
        let fields = APNsHeaderFields(push.headers)
        let validated = LiveActivityPushRequest.validate(
            method: "POST", path: push.path, headers: fields, body: push.body,
            authenticate: { _ in nil }, authorizeBundle: { _ in nil })
        // As the server logs them: in arrival order, the provider token redacted; the request's
        // own fields shared when no name repeats (the workload's values are all short).
        let logged: LoggedHeaders =
            fields.firstDuplicateName() == nil
            ? .redacting(fields.fields, authorization: "(redacted)")
            : .fields(
                fields.fields.map { (name: $0.name, value: $0.name == "authorization" ? "(redacted)" : $0.value) })
        let context = PushContext(
            apnsId: fields["apns-id"] ?? ids.uuid(), uniqueId: ids.uuid(), headers: logged,
            payload: validated.isSuccess ? .json(push.body) : .value(Self.logged(push.body)))
        return CheckedPush(validated: validated, context: context, path: push.path, time: push.time)
    }

    /// The emulator's part: `deliver`, or `recordRefusal` for a push that failed validation.
    private mutating func deliver(_ checked: CheckedPush) -> PushResult {
        switch checked.validated {
        case .success(let request):
            return emulator.deliver(request, context: checked.context, at: checked.time)
        case .failure(let error):
            let token = String(checked.path.dropFirst(LiveActivityPushRequest.pathPrefix.count))
            return emulator.recordRefusal(
                error, token: token, bundleId: nil, context: checked.context, at: checked.time)
        }
    }

    /// A refused body as the server logs it: parsed when it is JSON, else its text.
    private static func logged(_ body: [UInt8]) -> JSONValue {
        (try? JSONValue(parsing: body)) ?? .string(String(decoding: body, as: UTF8.self))
    }

    /// Takes the effects, counts them, renders them if asked (timed apart) and lets them go.
    private mutating func drainEffects() {
        var effects = emulator.takeEffects()
        tally.count(effects)
        if render {
            let began = clock.now
            let cpuBegan = threadCPUTime()
            // As the server does: every subject serialized once, shared by its event and document.
            let serialized = effects.serialized()
            for data in serialized.events { renderedBytes &+= data.count }
            for body in serialized.documents { renderedBytes &+= body?.count ?? 0 }
            for record in serialized.pushRecords { renderedBytes &+= record.count }
            renderCPU += threadCPUTime() - cpuBegan
            let spent = clock.now - began
            renderTime += spent
            effectsTime -= spent
        }
        effects = EmulatorEffects()
    }

    /// Moves the emulator to `time` (the timers of the last hours: dismissals) and drains the effects.
    mutating func advance(to time: Double) {
        let started = clock.now
        emulator.advance(to: time)
        let advancedAt = clock.now
        drainEffects()
        deliverTime += advancedAt - started
        effectsTime += clock.now - advancedAt
    }
}

/// What delivering one push left: its effects and its answer.
struct Delivered {
    var effects: EmulatorEffects
    var result: PushResult
}

extension Tally {
    /// Notes what one push left.
    mutating func count(_ delivered: Delivered) {
        count(delivered.effects)
        count(delivered.result)
    }
}

/// A push after the event loop's part: what validation made of it and the context the server
/// built, with the arrival time and path the emulator's part still needs.
struct CheckedPush: Sendable {
    var validated: Result<LiveActivityPushRequest, APNsError>
    var context: PushContext
    var path: String
    var time: Double
}

extension Result {
    /// Whether this is a success.
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

/// What came out of the run: events by type, pushes by status and outcome, documents written.
///
/// While the run is timed it only keeps what it needs (a type per event, an outcome and reason
/// per push); `summarize()` counts them afterwards, so hashing and comparing strings for the
/// report is not part of the core's time.
struct Tally {
    var events = 0
    var documents = 0
    private var eventTypes: [RelayEventType] = []
    private var outcomes: [PushOutcome] = []
    private var reasons: [String?] = []
    private(set) var eventsByType: [RelayEventType: Int] = [:]
    private(set) var pushesByOutcome: [String: Int] = [:]
    private(set) var pushesByReason: [String: Int] = [:]

    /// Makes room for what `pushes` pushes leave (under two events each in this workload), so that
    /// growing the lists, the bench's own bookkeeping, is not done while the run is timed. The
    /// room is filled and emptied, not only reserved: the system maps a page of it at its first
    /// write, and otherwise each of some 8,000 pages a thread would fault while timed.
    mutating func reserve(pushes: Int) {
        eventTypes = Array(repeating: .clock, count: pushes * 2)
        outcomes = Array(repeating: .applied, count: pushes)
        reasons = Array(repeating: nil, count: pushes)
        eventTypes.removeAll(keepingCapacity: true)
        outcomes.removeAll(keepingCapacity: true)
        reasons.removeAll(keepingCapacity: true)
    }

    /// Notes a batch of effects, as the server walks them to hand each to the store and the stream.
    mutating func count(_ effects: EmulatorEffects) {
        events += effects.events.count
        documents += effects.documents.count
        // By index, reading only the type: iterating would copy every event (and retain its strings).
        for position in effects.events.indices { eventTypes.append(effects.events[position].type) }
    }

    /// Notes one push's answer.
    mutating func count(_ result: PushResult) {
        outcomes.append(result.record.outcome)
        reasons.append(result.record.reason)
    }

    /// Adds what another run noted (before either is summarized).
    mutating func add(_ other: Tally) {
        events += other.events
        documents += other.documents
        eventTypes += other.eventTypes
        outcomes += other.outcomes
        reasons += other.reasons
    }

    /// Counts what the run noted, once it is over.
    mutating func summarize() {
        for type in eventTypes { eventsByType[type, default: 0] += 1 }
        for outcome in outcomes { pushesByOutcome[outcome.rawValue, default: 0] += 1 }
        for case let reason? in reasons { pushesByReason[reason, default: 0] += 1 }
        eventTypes = []
        outcomes = []
        reasons = []
    }

    /// Push records logged (after `summarize()`): each push's `push.received` event carries its record.
    var pushRecords: Int { events(.pushReceived) }

    /// How many events of `type` there were (after `summarize()`).
    func events(_ type: RelayEventType) -> Int { eventsByType[type] ?? 0 }
}
