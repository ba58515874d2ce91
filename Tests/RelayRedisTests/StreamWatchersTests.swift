import XCTest

@testable import RelayRedis

/// The pure rules by which one read of a key serves every watch on it.
final class StreamWatchersTests: XCTestCase {
    private func entries(_ range: ClosedRange<UInt64>) -> [StreamEntry] {
        range.map { StreamEntry(id: StreamID(milliseconds: 0, sequence: $0), fields: []) }
    }

    private func ids(_ batch: [StreamEntry]) -> [UInt64] { batch.map(\.id.sequence) }

    func testEachWatchGetsWhatFollowsItsPositionOnce() {
        var watchers = StreamWatchers()
        watchers.add(1, after: .zero)
        watchers.add(2, after: StreamID(milliseconds: 0, sequence: 3))
        XCTAssertEqual(watchers.cursor, .zero)
        let first = watchers.distribute(entries(1...5), readAfter: .zero)
        XCTAssertEqual(first.map(\.id), [1, 2])
        XCTAssertEqual(first.map { ids($0.1) }, [[1, 2, 3, 4, 5], [4, 5]])
        XCTAssertEqual(watchers.cursor, StreamID(milliseconds: 0, sequence: 5))
        // The same batch again (a read sent twice) gives nothing twice.
        XCTAssertTrue(watchers.distribute(entries(1...5), readAfter: .zero).isEmpty)
        XCTAssertTrue(watchers.distribute([], readAfter: watchers.cursor!).isEmpty)
    }

    func testAWatchBehindAReadInFlightWaitsForTheNextRead() {
        var watchers = StreamWatchers()
        watchers.add(1, after: StreamID(milliseconds: 0, sequence: 10))
        let inFlightFrom = watchers.cursor!
        watchers.add(2, after: StreamID(milliseconds: 0, sequence: 2))  // added while a read from 0-10 is out
        let reply = watchers.distribute(entries(11...12), readAfter: inFlightFrom)
        XCTAssertEqual(reply.map(\.id), [1], "watch 2 would miss 3...10 if it took 11 and 12 now")
        XCTAssertEqual(watchers.cursor, StreamID(milliseconds: 0, sequence: 2))
        let next = watchers.distribute(entries(3...12), readAfter: watchers.cursor!)
        XCTAssertEqual(next.map(\.id), [2])
        XCTAssertEqual(ids(next[0].1), Array(3...12))
        XCTAssertEqual(watchers.cursor, StreamID(milliseconds: 0, sequence: 12))
    }

    func testRemovedWatchNoLongerHoldsTheCursorBack() {
        var watchers = StreamWatchers()
        watchers.add(1, after: .zero)
        watchers.add(2, after: StreamID(milliseconds: 4, sequence: 0))
        XCTAssertTrue(watchers.remove(1))
        XCTAssertFalse(watchers.remove(1))
        XCTAssertEqual(watchers.cursor, StreamID(milliseconds: 4, sequence: 0))
        XCTAssertTrue(watchers.remove(2))
        XCTAssertTrue(watchers.isEmpty)
        XCTAssertNil(watchers.cursor)
    }
}
