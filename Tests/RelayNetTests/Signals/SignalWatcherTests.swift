import Foundation
import RelayNet
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

final class SignalWatcherTests: XCTestCase {
    func testSignalReachesTheClosureOnTheLoop() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let log = HandlerLog()
        let watcher = try SignalWatcher(loop: loop, signals: [SIGUSR1]) { [loop] signal in
            log.record("signal \(signal) on loop \(loop.inLoop)")
        }
        // Sent to the loop's own thread (where it is blocked), so no other thread of the test runner can
        // take it: the signalfd is the only way it can be delivered.
        let thread = try loop.submitAndWait { pthread_self() }
        XCTAssertEqual(pthread_kill(thread, SIGUSR1), 0)
        XCTAssertTrue(log.waitFor { $0.events == ["signal \(SIGUSR1) on loop true"] }, "\(log.events)")
        watcher.stop()
    }
}
