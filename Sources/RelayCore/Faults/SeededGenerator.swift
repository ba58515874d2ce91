/// SplitMix64: a small, fast generator whose whole sequence follows from its seed, so that a
/// fault rule with a share picks the same pushes on every run.
package struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in [0, 1) from the top 53 bits.
    package mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
