import RelayJSON

/// The bytes the server stores and streams for one command's effects: each document body, each
/// event's `data` and each push record, with every subject serialized once.
///
/// A push changes an activity and records it as a document and inside its `activity.updated`
/// event; serializing the same state twice was the larger part of what a push cost the server.
/// A push record is its `push.received` event's subject, so its bytes are that subject's. The
/// bytes are exactly those of `serialized()` on each JSON (`body`, `data`, `json`).
public struct SerializedEffects: Sendable {
    /// Each document's body in `EmulatorEffects.documents` order; nil for a delete.
    public var documents: [[UInt8]?]
    /// Each event's `data`, in `EmulatorEffects.events` order.
    public var events: [[UInt8]]
    /// Each push record's JSON, in `EmulatorEffects.pushRecords` order.
    public var pushRecords: [[UInt8]]
}

extension EmulatorEffects {
    /// Serializes every document body, event and push record, sharing the bytes of a subject
    /// recorded more than once in the same state (an event's activity and its document) and of
    /// each push record with the event that carries it.
    public func serialized() -> SerializedEffects {
        var cache = SubjectCache()
        var eventBytes: [[UInt8]] = []
        var recordBytes: [[UInt8]] = []
        eventBytes.reserveCapacity(events.count)
        for index in events.indices {
            let subject = cache.bytes(for: events[index].source)
            eventBytes.append(events[index].serializedData(subject: subject))
            if events[index].loggedPushRecord != nil { recordBytes.append(subject) }
        }
        var documentBytes: [[UInt8]?] = []
        documentBytes.reserveCapacity(documents.count)
        for index in documents.indices {
            documentBytes.append(documents[index].source.map { cache.bytes(for: $0) })
        }
        return SerializedEffects(documents: documentBytes, events: eventBytes, pushRecords: recordBytes)
    }
}

/// The last serialized state of each activity and alarm seen in one batch, by ID; a subject
/// equal to it reuses its bytes. (A push record is the subject of one event only.)
private struct SubjectCache {
    private var activities = SerializedSubjects<ActivitySnapshot>()
    private var alarms = SerializedSubjects<Alarm>()

    mutating func bytes(for source: RecordedJSON) -> [UInt8] {
        switch source {
        case .json(let value): return value.serialized()
        case .activity(let snapshot):
            return activities.bytes(
                snapshot, id: snapshot.id, same: { $0.recordsSameState(as: $1) },
                serialize: { $0.read { $0.serializedJSON() } })
        case .alarm(let alarm): return alarms.bytes(alarm, id: alarm.id, same: ==) { $0.json.serialized() }
        case .push(let record): return record.serializedJSON()
        }
    }
}

/// The last serialized state of each subject of one kind, by ID. A push's batch holds one or
/// two, which a scan finds faster than hashing a 36-character ID; past a few, an index is kept.
private struct SerializedSubjects<Subject> {
    private var entries: [(id: String, subject: Subject, bytes: [UInt8])] = []
    /// Made with `()`, not `[:]`, as `EmulatorEffects.documentIndex` is: one per serialized batch.
    private var index = [String: Int]()
    private static var scanLimit: Int { 8 }

    /// The bytes of `subject` (whose ID is `id`): the cached ones when it equals the last state
    /// serialized under `id`, else `serialize(subject)`, remembered.
    mutating func bytes(
        _ subject: Subject, id: String, same: (Subject, Subject) -> Bool, serialize: (Subject) -> [UInt8]
    ) -> [UInt8] {
        let position = entries.count <= Self.scanLimit ? entries.firstIndex { $0.id == id } : index[id]
        if let position, same(entries[position].subject, subject) { return entries[position].bytes }
        let bytes = serialize(subject)
        if let position {
            entries[position] = (id, subject, bytes)
        } else {
            entries.append((id, subject, bytes))
            if entries.count > Self.scanLimit {
                if index.isEmpty {
                    for (position, entry) in entries.enumerated() { index[entry.id] = position }
                } else {
                    index[id] = entries.count - 1
                }
            }
        }
        return bytes
    }
}

extension RelayEvent {
    /// The bytes of `data.serialized()`, with `subject` (the subject's serialized JSON) spliced in
    /// under `subjectKey` instead of being built and serialized again.
    func serializedData(subject: [UInt8]) -> [UInt8] {
        if let bytes = serializedDataInUsualShape(subject: subject) { return bytes }
        // The members in key order; the same precedence as `data`: the subject over everything,
        // the fixed members over `extra`.
        var members: [(key: String, piece: DataPiece)] = [
            ("at", .at), ("seq", .seq), ("type", .type),
        ]
        members.reserveCapacity(5 + extra.count)
        if deviceId != nil { members.append(("deviceId", .deviceId)) }
        if let index = members.firstIndex(where: { $0.key == subjectKey }) {
            members[index].piece = .subject
        } else {
            members.append((subjectKey, .subject))
        }
        for (key, value) in extra where !members.contains(where: { $0.key == key }) {
            members.append((key, .extra(value)))
        }
        members.sort { JSONObject.precedes($0.key, $1.key) }
        var out = JSONOutput(capacity: subject.count + 128)
        out.append(UInt8(ascii: "{"))
        for (position, member) in members.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch member.piece {
            case .subject: out.append(subject)
            case .seq: JSONWriter.writeInteger(Int64(clamping: seq), to: &out)
            case .type: JSONWriter.writeString(type.rawValue, to: &out)
            case .at: JSONValue.number(at).write(to: &out)
            case .deviceId: JSONWriter.writeString(deviceId ?? "", to: &out)
            case .extra(let value): value.write(to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        return out.bytes()
    }

    /// The subject keys the emulator uses, in the order `serializedDataInUsualShape` tells them apart.
    private static let usualSubjectKeys = ASCIIKeySet(["activity", "alarm", "push"])

    /// `serializedData` for the events the emulator records (subject `activity`, `alarm` or
    /// `push`; `extra` empty or only `cause`), written in key order without sorting anything:
    /// `activity` < `alarm` < `at` < `cause` < `deviceId` < `push` < `seq` < `type` by bytes.
    /// Nil for any other shape, which the general path writes.
    private func serializedDataInUsualShape(subject: [UInt8]) -> [UInt8]? {
        guard let subjectPosition = Self.usualSubjectKeys.index(of: subjectKey) else { return nil }
        var cause: JSONValue?
        switch extra.count {
        case 0: break
        case 1 where extra[0].key == "cause": cause = extra[0].value
        default: return nil
        }
        var out = JSONOutput(capacity: subject.count + 160)
        out.append(UInt8(ascii: "{"))
        switch subjectPosition {
        case 0: out.append("\"activity\":")
        case 1: out.append("\"alarm\":")
        default: break
        }
        if subjectPosition < 2 {
            out.append(subject)
            out.append(UInt8(ascii: ","))
        }
        out.append("\"at\":")
        JSONValue.number(at).write(to: &out)
        if let cause {
            out.append(",\"cause\":")
            cause.write(to: &out)
        }
        if let deviceId {
            out.append(",\"deviceId\":")
            JSONWriter.writeString(deviceId, to: &out)
        }
        if subjectPosition == 2 {
            out.append(",\"push\":")
            out.append(subject)
        }
        out.append(",\"seq\":")
        JSONWriter.writeInteger(Int64(clamping: seq), to: &out)
        out.append(",\"type\":")
        JSONWriter.writeString(type.rawValue, to: &out)
        out.append(UInt8(ascii: "}"))
        return out.bytes()
    }

    /// What one member of an event's `data` is written from.
    private enum DataPiece {
        case subject, seq, type, at, deviceId
        case extra(JSONValue)
    }
}
