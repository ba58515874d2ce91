import Foundation
import RelayStore
import XCTest

@testable import RelayServer

/// Batches reach the store writer in ticket order, whatever order they are submitted in.
final class OrderedSubmitterTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ordered-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A batch appending event `seq`: the writer refuses one that is not past the log's end.
    private func event(_ seq: Int64) -> StoreBatch {
        StoreBatch([.appendEvent(StoredEvent(seq: seq, type: "clock", at: 1, data: Array("{}".utf8)))])
    }

    func testLateTicketsWaitForEarlierOnes() throws {
        let store = try Store(path: directory.appendingPathComponent("relay.sqlite").path)
        defer { store.close() }
        let submitter = OrderedSubmitter(writer: store.writer)
        let tickets = (0..<5).map { _ in submitter.ticket() }
        let committed = expectation(description: "committed")
        committed.expectedFulfillmentCount = tickets.count
        for index in [3, 1, 0, 4, 2] {
            submitter.submit(event(Int64(tickets[index]) + 1), ticket: tickets[index]) { result in
                if case .success = result { committed.fulfill() }
            }
        }
        wait(for: [committed], timeout: 10)
        XCTAssertEqual(try store.reader.events(after: 0, limit: 10).map(\.seq), [1, 2, 3, 4, 5])
    }
}
