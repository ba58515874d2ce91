import Foundation
import RelayNet
import XCTest

@testable import RelayServer

/// Completions posted for event loops wait until `deliver`, then run on their own loop, in the
/// order they were posted.
final class LoopMailboxTests: XCTestCase {
    private var group: EventLoopGroup!

    override func setUpWithError() throws { group = try EventLoopGroup(threads: 2) }
    override func tearDown() { group.shutdown() }

    /// Entries recorded from any thread.
    private final class Record: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    func testWorkWaitsForDeliverThenRunsOnItsLoopInOrder() throws {
        let (first, second) = (group.loops[0], group.loops[1])
        let mailbox = LoopMailbox()
        let record = Record()
        for index in 0..<3 { mailbox.post(to: first) { record.add("a\(index) \(first.inLoop)") } }
        for index in 0..<2 { mailbox.post(to: second) { record.add("b\(index) \(second.inLoop)") } }
        try first.submitAndWait {}
        try second.submitAndWait {}
        XCTAssertEqual(record.all, [])

        mailbox.deliver()
        try first.submitAndWait {}
        try second.submitAndWait {}
        XCTAssertEqual(record.all.filter { $0.hasPrefix("a") }, ["a0 true", "a1 true", "a2 true"])
        XCTAssertEqual(record.all.filter { $0.hasPrefix("b") }, ["b0 true", "b1 true"])

        mailbox.deliver()
        try first.submitAndWait {}
        XCTAssertEqual(record.all.count, 5, "delivered work runs once")
    }
}
