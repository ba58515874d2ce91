public import RelayCore
import RelayNet

/// Identifiers and tokens from the system's secure random source (OpenSSL's RAND_bytes).
public final class SecureIdentifiers: IdentifierGenerator {
    public init() {}

    public func randomBytes(_ count: Int) -> [UInt8] {
        do {
            return try SecureRandom.bytes(count)
        } catch {
            // Without randomness the relay cannot issue safe tokens or keys; stopping is the only honest answer.
            preconditionFailure("the system random source failed: \(error)")
        }
    }
}
