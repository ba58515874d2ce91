import CRelayLinux
import Glibc

/// One thread running one epoll instance: the home of every descriptor, timer and callback it owns.
///
/// Everything registered on a loop (connections, listeners, timers, handlers) is touched only on the loop's
/// thread; other threads hand work over with `execute`, which queues a closure and wakes the loop through an
/// eventfd. Timers live in a heap whose earliest deadline sizes `epoll_wait`'s timeout, so a loop needs no
/// timerfd per timer.
///
/// Registrations are level-triggered: reads are bounded per wake-up for fairness, and a level-triggered
/// epoll simply reports the descriptor again on the next pass when data is left over, with no re-arming
/// bookkeeping (edge-triggered would need a "still readable" list of our own). Write interest is only
/// registered while output is actually pending, so level-triggered EPOLLOUT does not spin.
public final class EventLoop: @unchecked Sendable {  // Sendable: mutable state is loop-confined or under `lock`.
    /// Short name used for the thread and in descriptions, e.g. `"relay-loop-0"`.
    package let name: String

    private let epollFD: Int32
    private let wakeFD: Int32
    private let lock = Lock()
    private var thread: pthread_t?

    // Guarded by `lock`.
    private var tasks: [@Sendable () -> Void] = []
    private var wakePending = false
    private var stopRequested = false
    private var stopped = false
    private var joined = false

    // Loop-confined.
    private var sources: [UInt64: any LoopSource] = [:]
    private var nextToken: UInt64 = 1
    private var timers = TimerQueue<() -> Void>()
    private var flushQueue: [any LoopFlushable] = []

    /// Scratch space for socket reads, shared by every connection on this loop (no per-connection buffers).
    let ioBuffer: UnsafeMutableRawBufferPointer
    /// Scratch space for decrypted bytes, shared likewise.
    let plaintextBuffer: UnsafeMutableRawBufferPointer

    private static let wakeToken: UInt64 = 0
    private static let maxEventsPerWait: Int32 = 128

    /// Creates the epoll instance and starts the loop's thread; throws if the kernel refuses either.
    public init(name: String = "relay-loop") throws {
        self.name = name
        epollFD = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wakeFD = try syscall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        } catch {
            close(epollFD)
            throw error
        }
        ioBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        plaintextBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        var event = epoll_event()
        event.events = relay_EPOLLIN
        event.data.u64 = Self.wakeToken
        do {
            try syscall("epoll_ctl(wake)") { epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) }
            try startThread()
        } catch {
            close(wakeFD)
            close(epollFD)
            ioBuffer.deallocate()
            plaintextBuffer.deallocate()
            throw error
        }
    }

    deinit {
        ioBuffer.deallocate()
        plaintextBuffer.deallocate()
    }

    /// The loop whose thread is calling, or nil off every loop's thread. Lets work that finishes
    /// elsewhere (a store commit) come back to the thread it started on.
    package static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Thread-specific slot holding each loop thread's own loop (never released: loops outlive their threads' use).
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// True when called on this loop's thread.
    package var inLoop: Bool {
        guard let thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    // MARK: - Cross-thread work

    /// Runs `work` on the loop's thread soon, in submission order; callable from any thread.
    /// Work submitted after the loop stopped is dropped.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        tryExecute(work)
    }

    /// Like `execute`, but reports whether the work was queued (false once the loop has stopped), for
    /// callers that must release resources the work would have taken over.
    @discardableResult
    func tryExecute(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (queued, mustWake): (Bool, Bool) = lock.withLock {
            guard !stopped else { return (false, false) }
            tasks.append(work)
            if wakePending { return (true, false) }
            wakePending = true
            return (true, true)
        }
        if mustWake && !inLoop { wake() }
        return queued
    }

    /// False once the loop has stopped: work passed to `execute` from then on is dropped.
    package var isAcceptingWork: Bool { lock.withLock { !stopped } }

    /// Asks the loop to stop after its current pass; registered sources are told to close.
    public func stop() {
        let mustWake: Bool = lock.withLock {
            guard !stopRequested else { return false }
            stopRequested = true
            return true
        }
        if mustWake { wake() }
    }

    /// Blocks until the loop's thread has finished (it must have been asked to `stop()`).
    /// Must not be called on the loop itself.
    public func waitUntilStopped() {
        precondition(!inLoop, "an event loop cannot wait for itself to stop")
        lock.wait { stopped }
        let mustJoin: Bool = lock.withLock {
            defer { joined = true }
            return !joined
        }
        if mustJoin, let thread { pthread_join(thread, nil) }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)  // EAGAIN means the counter is already non-zero: the loop will wake anyway.
    }

    // MARK: - Timers

    /// Runs `work` on the loop after `seconds` (clamped at 0); must be called on the loop.
    /// Timers with the same deadline run in the order they were scheduled.
    @discardableResult
    package func schedule(after seconds: Double, _ work: @escaping () -> Void) -> TimerID {
        precondition(inLoop, "EventLoop.schedule must be called on the loop; use execute to get there")
        let delay = seconds.isFinite ? Int64(max(0, min(seconds, 1e9)) * 1e9) : Int64(1e18)
        return timers.schedule(deadline: MonotonicClock.nanoseconds() + delay, work)
    }

    /// Cancels a timer; a no-op if it already ran. From another thread the cancellation hops onto the loop,
    /// so a timer already due may still run.
    package func cancel(_ id: TimerID) {
        if inLoop {
            timers.cancel(id)
        } else {
            execute { [self] in timers.cancel(id) }
        }
    }

    // MARK: - Registration (loop-confined)

    /// Registers `fd` for `events` (level-triggered) and routes its events to `source`.
    func register(fd: Int32, events: UInt32, source: any LoopSource) throws(SystemError) -> LoopRegistration {
        assert(inLoop)
        let registration = LoopRegistration(token: nextToken, fd: fd)
        nextToken += 1
        var event = epoll_event()
        event.events = events
        event.data.u64 = registration.token
        try syscall("epoll_ctl(add)") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
        sources[registration.token] = source
        return registration
    }

    /// Changes the event mask of a registration.
    func modify(_ registration: LoopRegistration, events: UInt32) throws(SystemError) {
        assert(inLoop)
        var event = epoll_event()
        event.events = events
        event.data.u64 = registration.token
        try syscall("epoll_ctl(mod)") { epoll_ctl(epollFD, EPOLL_CTL_MOD, registration.fd, &event) }
    }

    /// Removes a registration; call before closing its descriptor.
    func deregister(_ registration: LoopRegistration) {
        assert(inLoop)
        sources[registration.token] = nil
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, registration.fd, &event)
    }

    /// Queues `target` to flush its output once the current pass's callbacks are done.
    func flushAtEndOfPass(_ target: any LoopFlushable) {
        assert(inLoop)
        flushQueue.append(target)
    }

    /// Runs `work` once the current pass's callbacks are done, with the connections' output; must be
    /// called on the loop. For output that is cheaper written once per pass than once per event
    /// (log lines). A loop that stops runs what is queued before it closes.
    package func runAtEndOfPass(_ work: @escaping () -> Void) {
        precondition(inLoop, "EventLoop.runAtEndOfPass must be called on the loop")
        flushQueue.append(EndOfPassWork(work))
    }

    /// Number of descriptors currently registered (not counting the loop's own).
    var registeredSourceCount: Int { sources.count }

    // MARK: - The loop

    private func startThread() throws(SystemError) {
        let box = Unmanaged.passRetained(self)
        var created = pthread_t()
        let status = pthread_create(
            &created, nil,
            { argument in
                let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
                loop.threadMain()
                return nil
            }, box.toOpaque())
        guard status == 0 else {
            box.release()
            throw SystemError(call: "pthread_create", errno: status)
        }
        lock.withLockBroadcasting { thread = created }
    }

    private func threadMain() {
        lock.wait { thread != nil }  // `inLoop` needs the thread id before any work runs.
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        relay_set_thread_name(name)  // the kernel keeps the first 15 bytes
        blockProcessSignals()
        run()
    }

    /// Loop threads never take SIGINT/SIGTERM: those reach a `SignalWatcher`'s signalfd instead.
    private func blockProcessSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private func run() {
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.maxEventsPerWait))
        defer { events.deallocate() }
        while true {
            runTasks()
            let (stopping, hasTasks) = lock.withLock { (stopRequested, !tasks.isEmpty) }
            if stopping { break }
            let count = epoll_wait(epollFD, events, Self.maxEventsPerWait, hasTasks ? 0 : waitTimeoutMilliseconds())
            if count > 0 {
                for index in 0..<Int(count) {
                    let token = events[index].data.u64
                    if token == Self.wakeToken {
                        var counter: UInt64 = 0
                        _ = read(wakeFD, &counter, 8)
                    } else if let source = sources[token] {
                        source.handleEvents(events[index].events)
                    }
                }
                runFlushes()
            }
            runDueTimers()
        }
        shutDownSources()
    }

    private func waitTimeoutMilliseconds() -> Int32 {
        guard let deadline = timers.nextDeadline() else { return -1 }
        let remaining = deadline - MonotonicClock.nanoseconds()
        if remaining <= 0 { return 0 }
        return Int32(min((remaining + 999_999) / 1_000_000, Int64(Int32.max)))  // round up: never wake early
    }

    private func runTasks() {
        let batch: [@Sendable () -> Void] = lock.withLock {
            wakePending = false
            defer { tasks.removeAll(keepingCapacity: tasks.count <= 64) }
            return tasks
        }
        guard !batch.isEmpty else { return }
        for task in batch { task() }
        runFlushes()
    }

    private func runDueTimers() {
        let now = MonotonicClock.nanoseconds()
        let limit = timers.nextSequence
        var fired = false
        while let (_, work) = timers.popDue(now: now, sequenceLimit: limit) {
            work()
            fired = true
        }
        if fired { runFlushes() }
    }

    private func runFlushes() {
        while !flushQueue.isEmpty {
            let batch = flushQueue
            flushQueue.removeAll(keepingCapacity: true)
            for target in batch { target.flushAtEndOfPass() }
        }
    }

    private func shutDownSources() {
        closeAllSources()
        let leftover: [@Sendable () -> Void] = lock.withLock {
            stopped = true
            defer { tasks.removeAll() }
            return tasks
        }
        for task in leftover { task() }  // work queued before `stopped` was set still runs once
        closeAllSources()  // and anything that work registered is released too
        _ = timers.removeAll()
        flushQueue.removeAll()
        close(wakeFD)
        close(epollFD)
        lock.withLockBroadcasting {}
    }

    private func closeAllSources() {
        while let (token, source) = sources.first {
            source.loopStopping()
            sources[token] = nil  // in case the source did not deregister itself
        }
        runFlushes()
    }
}

/// A closure queued with `runAtEndOfPass`.
private final class EndOfPassWork: LoopFlushable {
    private let work: () -> Void

    init(_ work: @escaping () -> Void) { self.work = work }

    func flushAtEndOfPass() { work() }
}
