/// An ordered list of header fields. Names are stored lowercased (HTTP/2 requires it and
/// HTTP/1.1 names are case-insensitive), values as received.
public struct HTTPHeaders: Sendable, Hashable, Sequence {
    /// The fields in order, names lowercased.
    package private(set) var fields: [HTTPField]

    /// Empty headers.
    public init() { fields = [] }

    /// Headers from name/value pairs; names are lowercased.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { HTTPField(name: $0.0, value: $0.1) }
    }

    /// Appends a field (the name is lowercased).
    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Appends a field whose name is known to be lowercase already (HTTP/2 refuses any other, and
    /// the relay's own names are), without lowercasing it again.
    package mutating func add(lowercaseName name: String, _ value: String) {
        fields.append(HTTPField(lowercaseName: name, value: value))
    }

    /// Makes room for `count` fields.
    package mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    /// Replaces every field called `name` with one field.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field called `name`.
    package mutating func remove(_ name: String) {
        let lowered = name.lowercased()
        fields.removeAll { $0.name == lowered }
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name == lowered }?.value
    }

    /// Every value of `name`, in order.
    package func values(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name == lowered }.map(\.value)
    }

    /// The number of fields.
    package var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }
}

/// One header field; the name is lowercased on creation.
public struct HTTPField: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name.lowercased()
        self.value = value
    }

    /// A field whose name is already lowercase.
    package init(lowercaseName name: String, value: String) {
        self.name = name
        self.value = value
    }
}
