/// A JSON object's members, kept sorted by the UTF-8 bytes of their keys, each key once.
///
/// Not a `Dictionary`: the objects the relay handles are small (a push's `aps`, a content state),
/// and for those a sorted array beats hashing. Parsing appends members and sorts once, lookups
/// are a binary search with no hashing, and serialization writes the members in the order they
/// are kept, which is the deterministic order the relay's JSON promises, with no sort per write.
/// Iteration yields `(key, value)` in that order.
///
/// Keys are compared by their bytes, as JSON defines members: `"é"` (U+00E9) and `"e\u{301}"`
/// are two members, each found by its own spelling, and both are written back as they came.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member.
    public typealias Element = (key: String, value: JSONValue)

    /// One member as kept. A struct rather than the `Element` tuple: an array of tuples is
    /// destroyed through the runtime's generic walk of the tuple's fields, one of a struct by
    /// code compiled for it, and every push frees a few objects' members.
    struct Member: Sendable {
        var key: String
        var value: JSONValue
    }

    /// The members, sorted by key, each key once.
    private var members: [Member]

    /// An empty object.
    package init() { members = [] }

    /// Members in any order; a repeated key keeps its last value, as JSON parsers do.
    ///
    /// `[:]` is common (an event's `extra`, a default argument) and is made where it is written,
    /// with nothing to map or sort: only a literal with members calls out.
    @inline(__always)
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        if elements.isEmpty {
            self.init()
        } else {
            self.init(literalMembers: elements)
        }
    }

    /// The members of a literal that has some.
    private init(literalMembers elements: [(String, JSONValue)]) {
        self.init(kept: elements.map { Member(key: $0.0, value: $0.1) })
    }

    /// The members of a dictionary.
    package init(_ dictionary: [String: JSONValue]) {
        self.init(kept: dictionary.map { Member(key: $0.key, value: $0.value) })
    }

    /// Members in any order; a repeated key keeps the value that comes last.
    package init(members unordered: [Element]) {
        self.init(kept: unordered.map { Member(key: $0.key, value: $0.value) })
    }

    /// Members in any order, as the parser collects them; a repeated key keeps the value that
    /// comes last.
    init(kept unordered: [Member]) {
        members = Self.ordered(unordered)
    }

    /// `unordered` sorted by key, the last of each repeated key kept; sorted in place when the
    /// caller gave up its array.
    private static func ordered(_ unordered: consuming [Member]) -> [Member] {
        var members = unordered
        guard members.count > 1 else { return members }
        // One pass over neighbours tells sorted and free of repeats apart from the rest: the
        // usual case (what the relay itself writes) costs one comparison per member.
        var ordered = true
        for i in 1..<members.count where compare(members[i - 1].key, members[i].key) >= 0 {
            ordered = false
            break
        }
        if ordered { return members }
        if members.count <= 32 {
            members.withUnsafeMutableBufferPointer { insertionSort($0) }
        } else {
            // Stable by position, so that among equal keys the last stays last and wins.
            let order = members.indices.sorted {
                let order = compare(members[$0].key, members[$1].key)
                return order == 0 ? $0 < $1 : order < 0
            }
            let sorted = order.map { members[$0] }
            members = sorted
        }
        var duplicates = false
        for i in 1..<members.count where compare(members[i - 1].key, members[i].key) == 0 {
            duplicates = true
            break
        }
        guard duplicates else { return members }
        var unique: [Member] = []
        unique.reserveCapacity(members.count)
        for member in members {
            if let last = unique.last, compare(last.key, member.key) == 0 {
                unique[unique.count - 1] = member
            } else {
                unique.append(member)
            }
        }
        return unique
    }

    /// A stable sort in place for the few members of a typical object; already sorted input
    /// (what the relay itself writes) costs one comparison per member.
    private static func insertionSort(_ members: UnsafeMutableBufferPointer<Member>) {
        guard let base = members.baseAddress else { return }
        for i in 1..<members.count where compare(base[i - 1].key, base[i].key) > 0 {
            let item = (base + i).move()
            var j = i
            while j > 0, compare(base[j - 1].key, item.key) > 0 {
                (base + j).moveInitialize(from: base + j - 1, count: 1)
                j -= 1
            }
            (base + j).initialize(to: item)
        }
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }
    public subscript(position: Int) -> Element {
        let member = members[position]
        return (member.key, member.value)
    }

    // MARK: Members by key

    /// The value of `key`; setting nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .found(let index) = find(key) else { return nil }
            return members[index].value
        }
        set {
            switch (find(key), newValue) {
            case (.found(let index), let value?): members[index].value = value
            case (.found(let index), nil): members.remove(at: index)
            case (.insert(let index), let value?): members.insert(Member(key: key, value: value), at: index)
            case (.insert, nil): break
            }
        }
    }

    /// Removes `key`, returning its value if it was there.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> JSONValue? {
        guard case .found(let index) = find(key) else { return nil }
        return members.remove(at: index).value
    }

    /// The keys, in order.
    package var keys: [String] { members.map(\.key) }

    /// The values, in key order.
    package var values: [JSONValue] { members.map(\.value) }

    /// The same keys with transformed values.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var members = self.members
        for index in members.indices { members[index].value = try transform(members[index].value) }
        return JSONObject(kept: members)
    }

    /// These members with `other`'s added, `other` winning where both have a key.
    package func merging(_ other: JSONObject) -> JSONObject {
        var result = self
        for (key, value) in other { result[key] = value }
        return result
    }

    /// The members as a dictionary.
    package var dictionary: [String: JSONValue] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    // MARK: Equality

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        let (lhs, rhs) = (lhs.members, rhs.members)
        guard lhs.count == rhs.count else { return false }
        for (left, right) in zip(lhs, rhs)
        where compare(left.key, right.key) != 0 || left.value != right.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }

    // MARK: Search

    private enum Position {
        case found(Int)
        case insert(Int)
    }

    private func find(_ key: String) -> Position {
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            switch Self.compare(members[middle].key, key) {
            case 0: return .found(middle)
            case ..<0: low = middle + 1
            default: high = middle
            }
        }
        return .insert(low)
    }

    /// Byte-wise (UTF-8, hence code point) order: the order JSON tools sort keys by. Swift's `<`
    /// on String compares canonical equivalents equal.
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool { compare(lhs, rhs) < 0 }

    /// Negative, zero or positive as `lhs` sorts before, equal to or after `rhs`, by bytes.
    package static func compare(_ lhs: String, _ rhs: String) -> Int {
        let contiguous = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let shared = Swift.min(left.count, right.count)
                var i = 0
                while i < shared {
                    if left[i] != right[i] { return Int(left[i]) - Int(right[i]) }
                    i += 1
                }
                return left.count - right.count
            }
        }
        if let result = contiguous ?? nil { return result }
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }
}
