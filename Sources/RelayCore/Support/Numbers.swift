extension Double {
    /// The number as people write it: a whole value without a fraction (`3`, not `3.0`, and
    /// every digit up to 2^53), anything else as Swift prints it. For hints, configuration errors
    /// and the startup line.
    package var plainText: String {
        if isFinite, rounded() == self, abs(self) < 9.0e15 { return String(Int64(self)) }
        return String(self)
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
