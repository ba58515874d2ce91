/// A fixed set of event loops, one thread each (one per core is the usual size).
///
/// Loops run on their own threads rather than on libdispatch queues: blocked work starves dispatch's
/// slowly-growing pool on Linux, and a loop blocks in `epoll_wait` by design.
package final class EventLoopGroup: Sendable {
    /// The loops, in creation order.
    package let loops: [EventLoop]
    private let cursor: Cursor

    /// Starts `threads` loops (at least one); throws if a thread or epoll instance cannot be created,
    /// after stopping the loops already started.
    package init(threads: Int, namePrefix: String = "relay-loop") throws {
        var loops: [EventLoop] = []
        do {
            for index in 0..<max(1, threads) {
                loops.append(try EventLoop(name: "\(namePrefix)-\(index)"))
            }
        } catch {
            for loop in loops { loop.stop() }
            for loop in loops { loop.waitUntilStopped() }
            throw error
        }
        self.loops = loops
        cursor = Cursor()
    }

    /// The next loop in round-robin order, for spreading new work.
    package func next() -> EventLoop {
        loops[cursor.advance(modulo: loops.count)]
    }

    /// Stops every loop and waits for their threads to finish; descriptors still registered are closed.
    /// Must not be called from one of the group's loops.
    package func shutdown() {
        for loop in loops { loop.stop() }
        for loop in loops { loop.waitUntilStopped() }
    }

    /// A counter safe to advance from any thread.
    private final class Cursor: @unchecked Sendable {  // Sendable: `value` is only touched under `lock`.
        private let lock = Lock()
        private var value = 0

        func advance(modulo count: Int) -> Int {
            lock.withLock {
                defer { value = (value + 1) % count }
                return value
            }
        }
    }
}
