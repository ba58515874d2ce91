/// The regular header fields of a provider API request, as name/value pairs in arrival order.
///
/// RelayCore does not depend on RelayHTTP, so the server hands its `HTTPHeaders` over as pairs.
/// Names are compared in lowercase (HTTP/2 sends them lowercase; HTTP/1.1 is case-insensitive).
/// Pseudo-headers (`:method`, `:path`) are not part of this list.
///
/// The headers the APNs rules read (`APNsHeaderName`) are found once, when the fields are wrapped:
/// a push looks up eight of them, and comparing each against every field name cost more than the
/// rest of the header checks.
public struct APNsHeaderFields: Sendable {
    /// The fields, names lowercased.
    public private(set) var fields: [(name: String, value: String)]
    /// Per `APNsHeaderName`, the offset of its first field, or -1.
    private var known: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
    )
    /// The first known name seen twice, if any.
    private var repeatedKnown: String?
    /// Whether any field has a name that is not an `APNsHeaderName`.
    private var hasUnknown = false

    /// Wraps pairs; names are lowercased.
    public init(_ fields: [(name: String, value: String)]) {
        // HTTP/2 names arrive lowercase: keep the array as it is rather than copy it. A known name
        // matched its lowercase spelling, so only the others are checked for uppercase letters.
        self.fields = fields
        if !classify() {
            self.fields = fields.map { (APNsASCII.lowercased($0.name), $0.value) }
            known = (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1)
            repeatedKnown = nil
            hasUnknown = false
            _ = classify()
        }
    }

    /// Finds the known names among `fields`; false (and stops) at a name with uppercase letters.
    private mutating func classify() -> Bool {
        let fields = self.fields
        return fields.withUnsafeBufferPointer { fields in
            for offset in fields.indices {
                guard let name = APNsHeaderName(fields[offset].name) else {
                    if APNsASCII.hasUppercase(fields[offset].name) { return false }
                    hasUnknown = true
                    continue
                }
                if slot(name) < 0 {
                    setSlot(name, Int32(truncatingIfNeeded: offset))
                } else if repeatedKnown == nil {
                    repeatedKnown = fields[offset].name
                }
            }
            return true
        }
    }

    /// The first value of `name` (lowercase), or nil.
    public subscript(name: String) -> String? {
        if let known = APNsHeaderName(name) { return self[known] }
        for field in fields where field.name == name { return field.value }
        return nil
    }

    /// The first value of a header the APNs rules read, or nil.
    subscript(name: APNsHeaderName) -> String? {
        let offset = slot(name)
        return offset < 0 ? nil : fields[Int(offset)].value
    }

    /// The first header name that appears more than once, or nil. APNs answers such a request
    /// with `DuplicateHeaders`.
    public func firstDuplicateName() -> String? {
        if fields.count < 2 { return nil }
        // Only known names seen: the wrapping pass already found any repeat.
        if !hasUnknown { return repeatedKnown }
        // A push carries a handful of headers: comparing pairs beats hashing every name into a set.
        if fields.count <= 16 {
            for later in 1..<fields.count {
                let name = fields[later].name
                let length = name.utf8.count
                for earlier in 0..<later where fields[earlier].name.utf8.count == length && fields[earlier].name == name
                {
                    return name
                }
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: fields.count)
        for field in fields where !seen.insert(field.name).inserted { return field.name }
        return nil
    }

    /// `DuplicateHeaders` for the first repeated name, or nil.
    func checkDuplicates() -> APNsError? {
        guard let name = firstDuplicateName() else { return nil }
        return APNsError(.duplicateHeaders, "header '\(name)' appears more than once")
    }

    private func slot(_ name: APNsHeaderName) -> Int32 {
        switch name {
        case .authorization: return known.0
        case .pushType: return known.1
        case .topic: return known.2
        case .id: return known.3
        case .priority: return known.4
        case .expiration: return known.5
        case .collapseID: return known.6
        case .channelID: return known.7
        case .requestID: return known.8
        case .uniqueID: return known.9
        }
    }

    private mutating func setSlot(_ name: APNsHeaderName, _ offset: Int32) {
        switch name {
        case .authorization: known.0 = offset
        case .pushType: known.1 = offset
        case .topic: known.2 = offset
        case .id: known.3 = offset
        case .priority: known.4 = offset
        case .expiration: known.5 = offset
        case .collapseID: known.6 = offset
        case .channelID: known.7 = offset
        case .requestID: known.8 = offset
        case .uniqueID: known.9 = offset
        }
    }
}

/// The request headers the provider API's rules read.
enum APNsHeaderName: Int, CaseIterable {
    case authorization, pushType, topic, id, priority, expiration, collapseID, channelID, requestID, uniqueID

    /// The wire name, lowercase.
    var text: String {
        switch self {
        case .authorization: return "authorization"
        case .pushType: return "apns-push-type"
        case .topic: return "apns-topic"
        case .id: return "apns-id"
        case .priority: return "apns-priority"
        case .expiration: return "apns-expiration"
        case .collapseID: return "apns-collapse-id"
        case .channelID: return "apns-channel-id"
        case .requestID: return "apns-request-id"
        case .uniqueID: return "apns-unique-id"
        }
    }

    /// The header a lowercase `name` is, or nil for any other name.
    ///
    /// Told apart by length, then compared with the literal. A name of fifteen bytes or fewer is
    /// a small string, its bytes held in the `String` value itself, as are the literals: an equal
    /// one compares as two words. Finding the name by its bytes in a key set (`ASCIIKeySet`) cost
    /// ~160 instructions a field (callgrind, `bench-core`). The names are spelled again here, as
    /// literals (comparing with `text` instead cost ~230 instructions a push more);
    /// `APNsHeaderFieldsTests.testEveryNameAndEveryOneByteChangeOfIt` keeps the two in step.
    init?(_ name: String) {
        switch name.utf8.count {
        case 7 where name == "apns-id": self = .id
        case 10 where name == "apns-topic": self = .topic
        case 13 where name == "authorization": self = .authorization
        case 13 where name == "apns-priority": self = .priority
        case 14 where name == "apns-push-type": self = .pushType
        case 14 where name == "apns-unique-id": self = .uniqueID
        case 15 where name == "apns-expiration": self = .expiration
        case 15 where name == "apns-channel-id": self = .channelID
        case 15 where name == "apns-request-id": self = .requestID
        case 16 where name == "apns-collapse-id": self = .collapseID
        default: return nil
        }
    }
}
