/// The emulator's activities, kept in the order they were first stored and found by ID through
/// one index.
///
/// A push reaches its activity through its token's entry, which holds the activity's position
/// here, so the hot path reads and changes the activity in place with no lookup of its ID (a
/// 36-character string to hash). Activities are never removed: a dismissed one stays, as on the
/// app API.
public struct ActivityTable: Sendable {
    private var storage: [LiveActivity] = []
    private var positions: [String: Int] = [:]

    /// An empty table.
    public init() {}

    /// The activity with `id`, or nil.
    public subscript(id: String) -> LiveActivity? {
        guard let position = positions[id] else { return nil }
        return storage[position]
    }

    /// Every activity, in the order first stored.
    public var values: [LiveActivity] { storage }

    /// How many activities there are.
    public var count: Int { storage.count }

    /// The position of the activity with `id`, or nil.
    func position(of id: String) -> Int? { positions[id] }

    /// The activity at `position` (from `position(of:)` or `store`), read and changed in place.
    subscript(position position: Int) -> LiveActivity {
        // Borrowed and modified in place: a copy of an activity retains every string in it.
        _read { yield storage[position] }
        _modify { yield &storage[position] }
    }

    /// Stores `activity` in place of the one with its ID, or after the others; its position.
    @discardableResult
    mutating func store(_ activity: LiveActivity) -> Int {
        if let position = positions[activity.id] {
            storage[position] = activity
            return position
        }
        storage.append(activity)
        positions[activity.id] = storage.count - 1
        return storage.count - 1
    }
}
