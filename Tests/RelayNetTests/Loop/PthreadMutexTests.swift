import Foundation
import RelayNet
import XCTest

/// `PthreadMutex`, the ThreadSanitizer-visible stand-in for `Mutex`: it excludes, and passes the
/// body's result and typed error through.
final class PthreadMutexTests: XCTestCase {
    private struct Refused: Error, Equatable {}

    func testIncrementsFromFourThreadsAreNeverLost() {
        let counter = PthreadMutex(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                for _ in 0..<25_000 { counter.withLock { $0 += 1 } }
                group.leave()
            }.start()
        }
        group.wait()
        XCTAssertEqual(counter.withLock { $0 }, 100_000)
    }

    func testReturnsTheResultAndRethrowsTheTypedError() {
        let names = PthreadMutex<[String]>([])
        XCTAssertEqual(
            names.withLock {
                $0.append("a")
                return $0.count
            }, 1)
        let outcome = Result<Int, Refused> { () throws(Refused) -> Int in
            try names.withLock { (_: inout [String]) throws(Refused) -> Int in throw Refused() }
        }
        XCTAssertEqual(outcome, .failure(Refused()))
        XCTAssertEqual(names.withLock { $0 }, ["a"], "a throwing body leaves the value as it was")
    }
}
