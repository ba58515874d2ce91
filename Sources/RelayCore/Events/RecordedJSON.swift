import RelayJSON

/// The JSON of an event's subject or a document's body as the emulator records it: either JSON
/// already built, or the value it is built from, turned into JSON only when someone reads it.
///
/// A push changes an activity and records it twice (the document to store and the event to
/// stream) plus the push record; building those dictionaries eagerly cost more than everything
/// else the core does with the push. Keeping the value is a copy; the JSON is the same either way.
enum RecordedJSON: Sendable {
    case json(JSONValue)
    case activity(ActivitySnapshot)
    // Boxed: events are copied on their way to the store and the stream, and these values are large.
    indirect case alarm(Alarm)
    indirect case push(PushRecord)

    /// The JSON, built now when it was deferred.
    var json: JSONValue {
        switch self {
        case .json(let value): return value
        case .activity(let snapshot): return snapshot.read { $0.json }
        case .alarm(let alarm): return alarm.json
        case .push(let record): return record.json
        }
    }
}
