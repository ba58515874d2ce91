import RelayCore

/// One domain object as the store keeps it: a JSON document plus the columns it is found by.
public struct StoredDocument: Sendable, Equatable {
    /// What kind of object this is, e.g. `"device"`, `"activity"`, `"alarm"`.
    public var kind: String {
        get { members.value.kind }
        set { members.value.kind = newValue }
    }
    /// Its id, unique within its kind.
    public var id: String {
        get { members.value.id }
        set { members.value.id = newValue }
    }
    /// The device it belongs to, when it belongs to one.
    public var deviceId: String? {
        get { members.value.deviceId }
        set { members.value.deviceId = newValue }
    }
    /// The app it belongs to, when it belongs to one.
    public var bundleId: String? {
        get { members.value.bundleId }
        set { members.value.bundleId = newValue }
    }
    /// A short state name for quick filtering (e.g. `"active"`, `"ended"`), when it has one.
    public var state: String? {
        get { members.value.state }
        set { members.value.state = newValue }
    }
    /// The object itself, as serialized JSON.
    public var body: [UInt8] {
        get { members.value.body }
        set { members.value.body = newValue }
    }

    /// The members behind one box (see `CopyOnWrite`): a document is copied into its batch and
    /// again as the writer applies it.
    private var members: CopyOnWrite<Members>

    private struct Members: Sendable, Equatable {
        var kind: String
        var id: String
        var deviceId: String?
        var bundleId: String?
        var state: String?
        var body: [UInt8]
    }

    /// A document of `kind` and `id` with its lookup columns and JSON `body`.
    public init(
        kind: String, id: String, deviceId: String? = nil, bundleId: String? = nil, state: String? = nil,
        body: [UInt8]
    ) {
        members = CopyOnWrite(
            Members(kind: kind, id: id, deviceId: deviceId, bundleId: bundleId, state: state, body: body))
    }
}
