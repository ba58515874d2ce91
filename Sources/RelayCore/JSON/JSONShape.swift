/// A 64-bit fingerprint of a JSON value's shape: its type, and for an object its keys and the
/// shapes of their values, for an array the shape of its first element. Numbers are one type
/// (an integer and a fraction have the same shape), and so are strings, whatever they hold.
///
/// Members are combined by addition, so the fingerprint does not depend on their order: the
/// parser takes it while it reads (`JSONParser.shape`), in the order the document has, and `of`
/// takes it from a value, whose members are sorted. Both give the same number for the same value.
///
/// Containers `maxDepth` levels or more below the value are fingerprinted by their type alone.
/// Two different shapes get the same fingerprint with a chance of about 2^-64. The numbers are
/// for comparing within one process, never stored.
enum JSONShape {
    /// How deep containers are looked into (see `ContentStateShape.maxDepth`).
    static let maxDepth = 16

    static let null = leaf(1)
    static let bool = leaf(2)
    static let number = leaf(3)
    static let string = leaf(4)
    /// An empty array, or one too deep to look into.
    static let arrayUnseen = leaf(6)
    /// An object too deep to look into.
    static let objectUnseen = leaf(7)

    /// The fingerprint of `value`, which is `depth` containers below the value fingerprinted.
    static func of(_ value: JSONValue, depth: Int = 0) -> UInt64 {
        switch value {
        case .null: return null
        case .bool: return bool
        case .int, .double: return number
        case .string: return string
        case .array(let elements):
            guard depth < maxDepth, let first = elements.first else { return arrayUnseen }
            return array(first: of(first, depth: depth + 1))
        case .object(let members):
            guard depth < maxDepth else { return objectUnseen }
            var sum: UInt64 = 0
            var count = 0
            for (key, value) in members {
                var key = key
                let keyHash = key.withUTF8 { self.key($0) }
                sum &+= member(key: keyHash, value: of(value, depth: depth + 1))
                count += 1
            }
            return object(count: count, memberSum: sum)
        }
    }

    /// A non-empty array looked into, whose first element has the fingerprint `first`.
    static func array(first: UInt64) -> UInt64 { mix(mix(seed, 5), first) }

    /// An object looked into, with `count` members whose `member` fingerprints add up to `memberSum`.
    static func object(count: Int, memberSum: UInt64) -> UInt64 {
        mix(mix(mix(seed, 8), UInt64(truncatingIfNeeded: count)), memberSum)
    }

    /// One member: its key's `key` hash and its value's fingerprint.
    static func member(key: UInt64, value: UInt64) -> UInt64 { mix(mix(seed, key), value) }

    /// The hash of a key's UTF-8 bytes, eight at a time.
    static func key(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash = mix(seed, UInt64(bytes.count))
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = mix(hash, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
            hash = mix(hash, tail)
        }
        return hash
    }

    private static let seed: UInt64 = 0xcbf2_9ce4_8422_2325

    private static func leaf(_ tag: UInt64) -> UInt64 { mix(seed, tag) }

    /// Folds `word` into `hash`: multiply, then fold the high bits down so they reach the low ones.
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let product = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
        return product ^ (product >> 29)
    }
}
