/// The topics a connection sent lately that passed the topic checks of a device push (check 6 of
/// `LiveActivityPushRequest`), each with its bundle ID.
///
/// A provider pushes to one app or a few over a connection, so the same `apns-topic` comes back
/// push after push. A remembered topic costs one comparison instead of the checks (the topic's
/// bytes, the suffix, another push type's marker) and a new string for its bundle ID: about 1,600
/// instructions a push less in `bench-core` (callgrind). Only topics that passed are kept: a
/// refused topic is checked every time, so its answer and message never depend on what came
/// before. Bundle authorization is not part of it and runs for every push. Like the connection's
/// other state, one memo is used by one thread at a time.
public struct TopicMemo: Sendable {
    private var entries: [Entry] = []

    private struct Entry: Sendable {
        var value: String
        var topic: APNsTopic
        var bundleID: String
    }

    /// Topics kept; the oldest is forgotten for a new one past this.
    static let capacity = 4

    public init() {}

    /// How many topics are remembered.
    var count: Int { entries.count }

    /// The checked topic of the header value `value` and its bundle ID, when it was remembered.
    func find(_ value: String) -> (topic: APNsTopic, bundleID: String)? {
        // Lengths first: a string keeps its length, and `==` on two different strings goes
        // through the standard library's general comparison (~90 instructions here).
        let length = value.utf8.count
        for entry in entries where entry.value.utf8.count == length && entry.value == value {
            return (entry.topic, entry.bundleID)
        }
        return nil
    }

    /// Remembers that `value` passed the topic checks as `topic` with `bundleID`.
    mutating func remember(_ value: String, topic: APNsTopic, bundleID: String) {
        if entries.count == Self.capacity { entries.removeFirst() }
        entries.append(Entry(value: value, topic: topic, bundleID: bundleID))
    }
}
