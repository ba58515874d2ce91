package import RelayJSON

/// The kinds of durable documents the emulator keeps.
package enum DocumentKind: String, Sendable, Hashable, CaseIterable {
    case device
    case activity
    case alarm
    case channel
}

/// One document to write (or, with a nil body, to delete) for the emulator's state to survive a restart.
public struct DocumentWrite: Sendable, Hashable {
    package var kind: DocumentKind {
        switch storage {
        case .activity: .activity
        case .members(let members): members.kind
        }
    }
    package var id: String {
        switch storage {
        case .activity(let snapshot): snapshot.id
        case .members(let members): members.id
        }
    }
    package var deviceId: String? {
        switch storage {
        case .activity(let snapshot): snapshot.deviceId
        case .members(let members): members.deviceId
        }
    }
    package var bundleId: String? {
        switch storage {
        case .activity(let snapshot): snapshot.bundleId
        case .members(let members): members.bundleId
        }
    }
    package var state: String? {
        switch storage {
        case .activity(let snapshot): snapshot.state.rawValue
        case .members(let members): members.state
        }
    }
    /// The document; nil deletes it. Documents the emulator writes keep the object's value and
    /// build this JSON each time it is read (see `RecordedJSON`); read it once per write.
    package var body: JSONValue? { source?.json }
    /// Where `body` comes from; nil deletes the document.
    var source: RecordedJSON? {
        switch storage {
        case .activity(let snapshot): .activity(snapshot)
        case .members(let members): members.source
        }
    }

    /// The members, behind one reference: a write is copied from the emulator to its effects and
    /// on to the store batch. An activity's document (a push writes one) reads them from the
    /// activity it stores and allocates nothing of its own.
    private let storage: Storage

    private enum Storage: Sendable {
        case activity(ActivitySnapshot)
        case members(Members)
    }

    private final class Members: Sendable {
        let kind: DocumentKind
        let id: String
        let deviceId: String?
        let bundleId: String?
        let state: String?
        let source: RecordedJSON?

        init(
            kind: DocumentKind, id: String, deviceId: String?, bundleId: String?, state: String?,
            source: RecordedJSON?
        ) {
            self.kind = kind
            self.id = id
            self.deviceId = deviceId
            self.bundleId = bundleId
            self.state = state
            self.source = source
        }
    }

    /// A write of `body`. No document is JSON `null` (`JSONValue` takes the `nil` literal as
    /// `null`, so a `nil` meant as "delete" arrives here as one): a null body deletes the
    /// document, as `deletion(kind:id:)` says outright.
    package init(
        kind: DocumentKind, id: String, deviceId: String? = nil, bundleId: String? = nil, state: String? = nil,
        body: JSONValue
    ) {
        self.init(
            kind: kind, id: id, deviceId: deviceId, bundleId: bundleId, state: state,
            source: body.isNull ? nil : .json(body))
    }

    /// The write that deletes document `id` of `kind`, which belonged to `deviceId` (if to a device).
    package static func deletion(kind: DocumentKind, id: String, deviceId: String? = nil) -> DocumentWrite {
        DocumentWrite(kind: kind, id: id, deviceId: deviceId, source: nil)
    }

    /// A write whose body is built from `source` when read.
    init(
        kind: DocumentKind, id: String, deviceId: String? = nil, bundleId: String? = nil, state: String? = nil,
        source: RecordedJSON?
    ) {
        storage = .members(
            Members(kind: kind, id: id, deviceId: deviceId, bundleId: bundleId, state: state, source: source))
    }

    /// The activity document of the activity in `snapshot`: its ID, device, bundle and state.
    init(activity snapshot: ActivitySnapshot) {
        storage = .activity(snapshot)
    }

    /// Whether both write the same document (of one emulator's command): two activities' by
    /// their position in its table, which an ID names too, anything else by kind and ID.
    func isSameDocument(as other: DocumentWrite) -> Bool {
        switch (storage, other.storage) {
        case (.activity(let one), .activity(let other)): one.position == other.position
        case (.members(let one), .members(let other)): one.kind == other.kind && one.id == other.id
        case (.activity(let snapshot), .members(let members)), (.members(let members), .activity(let snapshot)):
            members.kind == .activity && members.id == snapshot.id
        }
    }

    /// Writes are equal when every member and the body's JSON are, however the body is kept.
    public static func == (lhs: DocumentWrite, rhs: DocumentWrite) -> Bool {
        lhs.kind == rhs.kind && lhs.id == rhs.id && lhs.deviceId == rhs.deviceId && lhs.bundleId == rhs.bundleId
            && lhs.state == rhs.state && lhs.body == rhs.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(id)
        hasher.combine(deviceId)
        hasher.combine(bundleId)
        hasher.combine(state)
        hasher.combine(body)
    }
}

/// Everything a command changed: the sequenced events, the documents to persist and the push
/// records to log. The server commits all of it in one store batch before it answers.
public struct EmulatorEffects: Sendable {
    public private(set) var events: [RelayEvent] = []
    /// The push records to log: each push's `push.received` event carries its record, so the
    /// record is kept there once, not in a second list built under the emulator's lock.
    package var pushRecords: [PushRecord] { events.compactMap(\.loggedPushRecord) }
    /// The documents to write, each once with its last state, in the order first touched.
    public private(set) var documents: [DocumentWrite] = []
    /// Index of each document in `documents`, built only once there are more than a few: a push
    /// writes one or two, which a scan finds faster than a hash of the ID. Made with `()`, not
    /// `[:]`: the literal goes through `init(dictionaryLiteral:)` and its empty array, ~60
    /// instructions for every command's effects (callgrind, `bench-core`).
    private var documentIndex = [DocumentKey: Int]()

    private struct DocumentKey: Hashable, Sendable {
        var kind: DocumentKind
        var id: String
    }

    /// Documents past which `documentIndex` is kept.
    private static let scanLimit = 8

    public init() {}

    /// True when the command changed nothing durable.
    package var isEmpty: Bool { events.isEmpty && documents.isEmpty }

    mutating func append(_ event: consuming RelayEvent) {
        // A push records two or three events: room for four at once, instead of growing twice.
        if events.capacity == 0 { events.reserveCapacity(4) }
        events.append(event)
    }

    mutating func write(_ document: consuming DocumentWrite) {
        if documents.count <= Self.scanLimit {
            if let index = documents.firstIndex(where: { $0.isSameDocument(as: document) }) {
                documents[index] = document
                return
            }
            if documents.capacity == 0 { documents.reserveCapacity(2) }
            documents.append(document)
            if documents.count > Self.scanLimit {
                for (index, written) in documents.enumerated() {
                    documentIndex[DocumentKey(kind: written.kind, id: written.id)] = index
                }
            }
            return
        }
        let key = DocumentKey(kind: document.kind, id: document.id)
        if let index = documentIndex[key] {
            documents[index] = document
        } else {
            documentIndex[key] = documents.count
            documents.append(document)
        }
    }
}
