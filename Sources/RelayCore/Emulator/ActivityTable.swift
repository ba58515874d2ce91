/// The emulator's activities, kept in the order they were first stored and found by ID through
/// one index.
///
/// A push reaches its activity through its token's entry, which holds the activity's position
/// here, so the hot path reads and changes the activity in place with no lookup of its ID (a
/// 36-character string to hash). Activities are never removed: a dismissed one stays, as on the
/// app API.
package struct ActivityTable: Sendable {
    /// Each activity in the snapshot that records its current state (see `ActivitySnapshot`).
    private var storage: [ActivitySnapshot] = []
    private var positions: [String: Int] = [:]

    /// An empty table.
    package init() {}

    /// The activity with `id`, or nil.
    package subscript(id: String) -> LiveActivity? {
        guard let position = positions[id] else { return nil }
        return storage[position].activity
    }

    /// Every activity, in the order first stored.
    package var values: [LiveActivity] { storage.map(\.activity) }

    /// How many activities there are.
    package var count: Int { storage.count }

    /// The position of the activity with `id`, or nil.
    func position(of id: String) -> Int? { positions[id] }

    /// The activity at `position` (from `position(of:)` or `store`), read and changed in place.
    subscript(position position: Int) -> LiveActivity {
        // Borrowed and modified in place: a copy of an activity retains every string in it.
        _read { yield storage[position].activity }
        _modify {
            // A snapshot someone else holds (an event, a document) keeps the state it recorded.
            if !isKnownUniquelyReferenced(&storage[position]) {
                storage[position] = ActivitySnapshot(storage[position].activity, position: position)
            }
            yield &storage[position].activity
        }
    }

    /// The activity at `position` as recorded now: the table's own snapshot, shared until the
    /// activity next changes.
    func snapshot(position: Int) -> ActivitySnapshot { storage[position] }

    /// Stores `activity` in place of the one with its ID, or after the others; its position.
    @discardableResult
    mutating func store(_ activity: LiveActivity) -> Int {
        if let position = positions[activity.id] {
            if isKnownUniquelyReferenced(&storage[position]) {
                storage[position].activity = activity
            } else {
                storage[position] = ActivitySnapshot(activity, position: position)
            }
            return position
        }
        storage.append(ActivitySnapshot(activity, position: storage.count))
        positions[activity.id] = storage.count - 1
        return storage.count - 1
    }
}

/// An activity as recorded at one moment: its document and the events about that state share one
/// snapshot, so serializing a batch recognises them by identity instead of comparing activities.
///
/// It is also where `ActivityTable` keeps the activity. Recording the activity's state is then a
/// reference to the object the table holds, not a copy of the activity (224 bytes and a dozen
/// retains). The table changes `activity` in place only while it holds the one reference (copy
/// on write, `ActivityTable.subscript(position:)`); while any event or document holds the
/// snapshot, the table first puts a copy in its place. So a snapshot that anyone else can see
/// never changes, on this thread or another, which is what makes it `Sendable`.
final class ActivitySnapshot: @unchecked Sendable {
    /// Set only by `ActivityTable`, and only while the table's reference is the only one.
    fileprivate(set) var activity: LiveActivity
    /// The activity's position in the table that made the snapshot: snapshots of one emulator's
    /// activity share it, those of two activities never do. The effects of a command tell an
    /// activity's document from another's by it, with no comparison of IDs.
    let position: Int

    fileprivate init(_ activity: LiveActivity, position: Int) {
        self.activity = activity
        self.position = position
    }

    /// `body`'s answer about the activity, read where it is kept.
    ///
    /// `snapshot.activity.id` copies the whole activity (a dozen retains, as many releases)
    /// before it reads one field: the compiler cannot lend out a struct stored in a class, which
    /// any holder of the object could change meanwhile. Through an exclusive access (which
    /// costs nothing here, see `activity`) it can, and nothing is copied. `body` only reads.
    func read<Result>(_ body: (borrowing LiveActivity) -> Result) -> Result {
        Self.inPlace(&activity) { body($0) }
    }

    private static func inPlace<Result>(
        _ activity: inout LiveActivity, _ body: (inout LiveActivity) -> Result
    ) -> Result {
        body(&activity)
    }

    var id: String { read { $0.id } }
    var deviceId: String { read { $0.deviceId } }
    var bundleId: String { read { $0.bundleId } }
    var state: ActivityState { read { $0.state } }
    var nextDeadline: UnixSeconds? { read { $0.nextDeadline } }

    /// Whether both record the same state: the same snapshot, or equal activities.
    func recordsSameState(as other: ActivitySnapshot) -> Bool {
        self === other || read { mine in other.read { mine == $0 } }
    }
}
