/// The kinds of durable documents the emulator keeps.
public enum DocumentKind: String, Sendable, Hashable, CaseIterable {
    case device
    case activity
    case alarm
    case channel
}

/// One document to write (or, with a nil body, to delete) for the emulator's state to survive a restart.
public struct DocumentWrite: Sendable, Hashable {
    public var kind: DocumentKind
    public var id: String
    public var deviceId: String?
    public var bundleId: String?
    public var state: String?
    /// The document; nil deletes it.
    public var body: JSONValue?

    public init(
        kind: DocumentKind, id: String, deviceId: String? = nil, bundleId: String? = nil, state: String? = nil,
        body: JSONValue?
    ) {
        self.kind = kind
        self.id = id
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.state = state
        self.body = body
    }
}

/// Everything a command changed: the sequenced events, the documents to persist and the push
/// records to log. The server commits all of it in one store batch before it answers.
public struct EmulatorEffects: Sendable {
    public private(set) var events: [RelayEvent] = []
    public private(set) var pushRecords: [PushRecord] = []
    private var documentOrder: [DocumentKey] = []
    private var documentsByKey: [DocumentKey: DocumentWrite] = [:]

    private struct DocumentKey: Hashable, Sendable {
        var kind: DocumentKind
        var id: String
    }

    public init() {}

    /// The documents to write, each once with its last state, in the order first touched.
    public var documents: [DocumentWrite] { documentOrder.compactMap { documentsByKey[$0] } }

    /// True when the command changed nothing durable.
    public var isEmpty: Bool { events.isEmpty && pushRecords.isEmpty && documentOrder.isEmpty }

    mutating func append(_ event: RelayEvent) { events.append(event) }

    mutating func append(_ record: PushRecord) { pushRecords.append(record) }

    mutating func write(_ document: DocumentWrite) {
        let key = DocumentKey(kind: document.kind, id: document.id)
        if documentsByKey.updateValue(document, forKey: key) == nil { documentOrder.append(key) }
    }
}
