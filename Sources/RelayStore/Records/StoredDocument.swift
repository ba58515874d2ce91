import RelayCore

/// One domain object as the store keeps it: a JSON document plus the columns it is found by.
package struct StoredDocument: Sendable, Equatable {
    /// What kind of object this is, e.g. `"device"`, `"activity"`, `"alarm"`.
    package var kind: String
    /// Its id, unique within its kind.
    package var id: String
    /// The device it belongs to, when it belongs to one.
    package var deviceId: String?
    /// The app it belongs to, when it belongs to one.
    package var bundleId: String?
    /// A short state name for quick filtering (e.g. `"active"`, `"ended"`), when it has one.
    package var state: String?
    /// The object itself, as serialized JSON.
    package var body: [UInt8]

    /// A document of `kind` and `id` with its lookup columns and JSON `body`.
    package init(
        kind: String, id: String, deviceId: String? = nil, bundleId: String? = nil, state: String? = nil,
        body: [UInt8]
    ) {
        self.kind = kind
        self.id = id
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.state = state
        self.body = body
    }
}
