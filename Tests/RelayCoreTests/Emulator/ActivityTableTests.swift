@testable import RelayCore
import XCTest

final class ActivityTableTests: XCTestCase {
    func testStoreAppendsNewAndReplacesByID() {
        var table = ActivityTable()
        let first = table.store(Fixture.activity(id: "a"))
        let second = table.store(Fixture.activity(id: "b"))
        XCTAssertEqual([first, second], [0, 1])
        var changed = Fixture.activity(id: "a")
        changed.pushToken = "token"
        XCTAssertEqual(table.store(changed), first, "same ID, same position")
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(table.values.map(\.id), ["a", "b"], "order first stored")
        XCTAssertEqual(table["a"]?.pushToken, "token")
        XCTAssertNil(table["c"])
        XCTAssertEqual(table.position(of: "b"), second)
        XCTAssertNil(table.position(of: "c"))
    }

    func testChangesInPlaceAreSeenByID() {
        var table = ActivityTable()
        let position = table.store(Fixture.activity(id: "a"))
        let outcome = table[position: position].update(
            Fixture.update(7), source: .app, frequentPushesEnabled: false, rules: .defaults, at: Fixture.t0 + 1)
        XCTAssertEqual(outcome, .applied)
        XCTAssertEqual(table["a"]?.contentState, Fixture.content(7))
    }
}
