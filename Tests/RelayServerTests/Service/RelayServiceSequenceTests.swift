import Foundation
import RelayCore
import RelayServer
import XCTest

/// After a restart the event numbering continues where it stopped, whether the log still holds
/// its last events or pruning emptied it.
final class RelayServiceSequenceTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sequence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func open(retention: RelayService.Retention) throws -> RelayService {
        try RelayService.open(
            path: directory.appendingPathComponent("relay.sqlite").path, rules: .defaults, clockMode: .system,
            ids: SecureIdentifiers(), retention: retention)
    }

    /// Records `count` events, one command each, and waits until every one is committed.
    private func record(_ count: Int, on service: RelayService) {
        let committed = expectation(description: "committed")
        committed.expectedFulfillmentCount = count
        for _ in 0..<count {
            service.perform(
                { emulator, now in
                    emulator.record(RelayEvent(type: .clock, at: now, subjectKey: "clock", subject: ["n": 1]))
                },
                completion: { result in
                    if case .success = result { committed.fulfill() }
                })
        }
        wait(for: [committed], timeout: 30)
    }

    func testNumberingContinuesAfterRestart() throws {
        // Pruning runs when the numbering crosses a thousand; `endOnPrune` makes the last event the
        // one that crosses it, so that with a retention of 0 the log is left empty.
        let cases: [(retention: Int, events: Int, endOnPrune: Bool)] = [
            (100_000, 5, false), (0, 0, true), (3, 1_001, false), (0, 0, true),
        ]
        for (retention, count, endOnPrune) in cases {
            let first = try open(retention: RelayService.Retention(events: retention))
            let startSeq = first.read { $0.nextSeq }
            let events = endOnPrune ? 1000 - Int((startSeq - 1) % 1000) : count
            record(events, on: first)
            let next = first.read { $0.nextSeq }
            XCTAssertEqual(next, startSeq + UInt64(events))
            first.store.close()
            let reopened = try open(retention: RelayService.Retention(events: retention))
            XCTAssertEqual(reopened.read { $0.nextSeq }, next, "retention \(retention), \(events) events")
            reopened.store.close()
        }
    }
}
