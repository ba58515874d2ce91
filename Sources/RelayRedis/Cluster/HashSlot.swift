/// Redis Cluster's key-to-slot function: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the
/// key, or of its hash tag, modulo 16384.
///
/// A hash tag is the part between the first `{` and the first `}` after it, when that part is not
/// empty: `{user1000}.following` and `{user1000}.followers` share a slot, which is what lets one
/// script touch both. https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/
package enum HashSlot {
    /// Number of slots in a Redis Cluster.
    package static let count = 16_384

    /// The slot of `key`.
    package static func slot(of key: some Collection<UInt8>) -> Int {
        Int(crc16(hashedPart(of: key)) & 0x3FFF)
    }

    /// The slot of a UTF-8 key.
    package static func slot(of key: String) -> Int { slot(of: Array(key.utf8)) }

    /// The bytes that are hashed: the hash tag if the key has a non-empty one, else the whole key.
    package static func hashedPart<Key: Collection<UInt8>>(of key: Key) -> Key.SubSequence {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key[...] }
        let afterOpen = key.index(after: open)
        guard let close = key[afterOpen...].firstIndex(of: UInt8(ascii: "}")), close != afterOpen else {
            return key[...]
        }
        return key[afterOpen..<close]
    }

    /// CRC16/XMODEM of `bytes`.
    package static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
