package import RelayJSON

extension ContentStateShape {
    /// A 64-bit hash of the shape `differences` compares: equal fingerprints mean the same keys
    /// with the same types down to `maxDepth` (arrays by their first element, as `differences`
    /// compares them), so a caller that keeps each content state's fingerprint can skip
    /// `differences` without touching the previous content state. Different fingerprints do not
    /// always mean a difference (an empty array has no first element to compare), so the caller
    /// then asks `differences`. Two different shapes share a fingerprint with a chance of about
    /// 2^-64, and only a hint would be lost.
    ///
    /// Taken in one pass over the value, apart from parsing: its type, and for an object its
    /// keys and the shapes of their values, for an array the shape of its first element. Numbers
    /// are one type (an integer and a fraction have the same shape), and so are strings, whatever
    /// they hold. Containers `maxDepth` levels or more below the value count by their type alone.
    /// The numbers are for comparing within one process, never stored.
    package static func fingerprint(of contentState: JSONValue) -> UInt64 {
        Fingerprint.of(contentState, depth: 0)
    }

    /// The pieces of `fingerprint(of:)`. Members are combined by addition, so that the fingerprint
    /// does not depend on their order.
    private enum Fingerprint {
        static let null = leaf(1)
        static let bool = leaf(2)
        static let number = leaf(3)
        static let string = leaf(4)
        /// An empty array, or one too deep to look into.
        static let arrayUnseen = leaf(6)
        /// An object too deep to look into.
        static let objectUnseen = leaf(7)

        /// The fingerprint of `value`, which is `depth` containers below the value fingerprinted.
        static func of(_ value: JSONValue, depth: Int) -> UInt64 {
            switch value {
            case .null: return null
            case .bool: return bool
            case .int, .double: return number
            case .string: return string
            case .array(let elements):
                guard depth < ContentStateShape.maxDepth, let first = elements.first else { return arrayUnseen }
                return mix(mix(seed, 5), of(first, depth: depth + 1))
            case .object(let members):
                guard depth < ContentStateShape.maxDepth else { return objectUnseen }
                var sum: UInt64 = 0
                for (key, value) in members {
                    var key = key
                    let keyHash = key.withUTF8 { self.key($0) }
                    sum &+= mix(mix(seed, keyHash), of(value, depth: depth + 1))
                }
                return mix(mix(mix(seed, 8), UInt64(truncatingIfNeeded: members.count)), sum)
            }
        }

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
}
