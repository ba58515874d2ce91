import RelayTestKit
import XCTest

@testable import RelayCore

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

    /// The table's snapshot of an activity is what its events and document record: while one is
    /// held, a change (in place or by `store`) leaves it as it was and puts a copy in the table;
    /// once none is held, the activity is changed where it is, with no copy.
    func testAHeldSnapshotNeverChanges() {
        var table = ActivityTable()
        let position = table.store(Fixture.activity(id: "a"))
        let held = table.snapshot(position: position)
        let before = held.activity
        _ = table[position: position].update(
            Fixture.update(7), source: .app, frequentPushesEnabled: false, rules: .defaults, at: Fixture.t0 + 1)
        XCTAssertEqual(held.activity, before, "a change leaves a held snapshot alone")
        XCTAssertFalse(table.snapshot(position: position) === held)
        XCTAssertEqual(table[position: position].contentState, Fixture.content(7))

        let second = table.snapshot(position: position)
        var replaced = table[position: position]
        replaced.pushToken = "token"
        table.store(replaced)
        XCTAssertNil(second.activity.pushToken, "so does storing a new value")
        XCTAssertEqual(table["a"]?.pushToken, "token")

        let unheld = ObjectIdentifier(table.snapshot(position: position))
        _ = table[position: position].update(
            Fixture.update(8), source: .app, frequentPushesEnabled: false, rules: .defaults, at: Fixture.t0 + 2)
        table.store(table[position: position])
        XCTAssertEqual(ObjectIdentifier(table.snapshot(position: position)), unheld, "changed in place")
        XCTAssertEqual(table["a"]?.contentState, Fixture.content(8))
    }

    /// What a snapshot reads in place is its activity's, and reading changes nothing.
    func testASnapshotReadsItsActivityInPlace() {
        var table = ActivityTable()
        var activity = Fixture.activity(id: "a")
        activity.staleDate = Fixture.t0 + 90
        let position = table.store(activity)
        let snapshot = table.snapshot(position: position)
        XCTAssertEqual(snapshot.id, "a")
        XCTAssertEqual(snapshot.deviceId, activity.deviceId)
        XCTAssertEqual(snapshot.bundleId, activity.bundleId)
        XCTAssertEqual(snapshot.state, activity.state)
        XCTAssertEqual(snapshot.nextDeadline, Fixture.t0 + 90)
        XCTAssertEqual(snapshot.nextDeadline, activity.nextDeadline)
        XCTAssertEqual(snapshot.read { $0.json }, activity.json)
        XCTAssertEqual(snapshot.activity, activity, "reading leaves it as it was")
        XCTAssertTrue(table.snapshot(position: position) === snapshot)

        _ = table[position: position].end(
            content: nil, dismissalPolicy: .immediate, timestamp: nil, rules: .defaults, at: Fixture.t0 + 5)
        let ended = table.snapshot(position: position)
        XCTAssertEqual(ended.state, .dismissed)
        XCTAssertNil(ended.nextDeadline)
        XCTAssertEqual(snapshot.state, activity.state, "the snapshot held before the end is unchanged")
    }

    /// A copy of the table (of the emulator) is a value: changing one leaves the other as it was.
    func testCopiesOfTheTableAreIndependent() {
        var table = ActivityTable()
        let position = table.store(Fixture.activity(id: "a"))
        let copy = table
        _ = table[position: position].update(
            Fixture.update(7), source: .app, frequentPushesEnabled: false, rules: .defaults, at: Fixture.t0 + 1)
        XCTAssertEqual(table["a"]?.contentState, Fixture.content(7))
        XCTAssertEqual(copy["a"]?.contentState, Fixture.activity(id: "a").contentState)
    }
}

final class SeededIdentifiersTests: XCTestCase {
    /// The same seed gives the same bytes however they are drawn, and the values pinned here (a
    /// scenario's timeline prints IDs made from them) never change.
    func testDrawsAreStableAcrossWaysOfDrawing() {
        let arrays = SeededIdentifiers(seed: 42)
        let filled = SeededIdentifiers(seed: 42)
        for count in [16, 3, 8, 40, 1] {
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                filled.fillRandom(buffer)
                initialized = count
            }
            XCTAssertEqual(arrays.randomBytes(count), bytes, "\(count)")
        }
        XCTAssertEqual(SeededIdentifiers(seed: 1).uuid(), SeededIdentifiers(seed: 1).uuid())
        // SplitMix64 from seed 7, little-endian (computed independently).
        XCTAssertEqual(SeededIdentifiers(seed: 7).randomBytes(4), [215, 13, 50, 89])
    }
}
