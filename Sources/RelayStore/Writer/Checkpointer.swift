import CRelayLinux
import Foundation

/// Copies the write-ahead log back into the database file on a thread and connection of its own,
/// so that the writer's commits never wait for it.
///
/// SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold: the writer
/// stopped for the copy and the database file's `fsync` (tens of milliseconds for 32 MiB), and
/// every acknowledgement queued behind it waited too. Here the writer asks (`request`) once the
/// log is long; this thread runs PASSIVE checkpoints, which take no lock the writer needs, until
/// what is left is at most `catchUpFrames`, then says so (`takeCaughtUp`). The log can only
/// start over once every frame in it was copied back and no commit came in between, which a busy
/// writer never leaves time for, so the writer itself copies that short rest between two commits.
final class Checkpointer: @unchecked Sendable {  // mutable state is guarded by `condition`
    /// How many frames may stay in the log when this thread hands the rest to the writer.
    let catchUpFrames: Int
    private let database: Database  // touched only by the checkpointer's thread once it has started
    private let condition = NSCondition()
    private var requested = false
    private var caughtUp = false
    private var closing = false
    private var finished = false
    private var passesRun = 0

    /// Opens a connection of its own to the database at `path` (which must exist) and starts the thread.
    init(path: String, catchUpFrames: Int) throws(StoreError) {
        database = try Database(path: path, options: DatabaseOptions(create: false))
        self.catchUpFrames = catchUpFrames
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Asks for checkpoint passes; returns at once. Requests while a pass runs collapse into one.
    func request() {
        condition.lock()
        if !closing && !requested {
            requested = true
            condition.signal()
        }
        condition.unlock()
    }

    /// True once after the passes of a request have left at most `catchUpFrames` in the log (or
    /// could copy no more): the writer's cue to copy the rest between two of its commits.
    func takeCaughtUp() -> Bool {
        condition.lock()
        defer {
            caughtUp = false
            condition.unlock()
        }
        return caughtUp
    }

    /// Checkpoint passes run so far.
    var passes: Int {
        condition.lock()
        defer { condition.unlock() }
        return passesRun
    }

    /// Finishes the pass under way, stops the thread and closes its connection.
    func close() {
        condition.lock()
        closing = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }

    // MARK: - The checkpointer's thread

    private func run() {
        relay_set_thread_name("store-checkpt")  // for top -H, /proc and debuggers
        while waitForRequest() {
            var copied = -1
            while true {
                // Busy (the writer is copying the rest) or failed: the writer asks again later,
                // and nothing is lost while the log waits.
                guard let progress = try? database.checkpointPassively() else { break }
                condition.lock()
                passesRun += 1
                let stop = closing
                condition.unlock()
                // Stop once the rest is short, or when a pass copied nothing new: a reader still
                // needs the frames that are left.
                if stop || progress.remainingFrames <= catchUpFrames || progress.checkpointedFrames == copied { break }
                copied = progress.checkpointedFrames
            }
            condition.lock()
            caughtUp = true
            condition.unlock()
        }
        database.close()
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for a request; false once closing.
    private func waitForRequest() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !requested && !closing { condition.wait() }
        requested = false
        return !closing
    }
}
