/// Comparisons of secrets whose running time does not depend on where the inputs differ, so a
/// client timing its failed attempts learns nothing about the secret.
package enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes. The time depends only on the lengths:
    /// every byte of the longer input is visited whatever the contents. Compare fixed-length
    /// digests (see `AdminKey`, `DeviceKey`) so that the length reveals nothing either.
    package static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        var difference = UInt(bitPattern: lhs.count ^ rhs.count)
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        for _ in 0..<max(lhs.count, rhs.count) {
            let a = left.next() ?? 0
            let b = right.next() ?? 0
            difference |= UInt(a ^ b)
        }
        return difference == 0
    }

    /// True when two strings hold the same UTF-8 bytes, compared as in `equal(_:_:)`.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool { equal(lhs.utf8, rhs.utf8) }
}
