public import RelayCore
import RelayNet
import Synchronization

/// Identifiers and tokens from the system's secure random source (OpenSSL's RAND_bytes).
///
/// Small draws (an ID is 16 bytes, and every push takes one or two) are served from a pool
/// refilled 4 KiB at a time: a RAND_bytes call per ID cost more than the rest of making it.
/// Each byte is handed out once; large draws go to the source directly.
public final class SecureIdentifiers: IdentifierGenerator {
    private static let poolSize = 4096
    private static let largestPooledDraw = 64

    private let pool = Mutex(Pool())

    private struct Pool: ~Copyable {
        var bytes: [UInt8] = []
        var next = 0
    }

    public init() {}

    public func randomBytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fillRandom(buffer)
            initialized = count
        }
    }

    /// Fills `buffer` from the pool, with no array in between (a push's IDs are drawn this way).
    public func fillRandom(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard buffer.count <= Self.largestPooledDraw else {
            let bytes = Self.draw(buffer.count)
            for index in buffer.indices { buffer[index] = bytes[index] }
            return
        }
        pool.withLock { pool in
            if pool.bytes.count - pool.next < buffer.count {
                pool.bytes = Self.draw(Self.poolSize)
                pool.next = 0
            }
            for index in buffer.indices { buffer[index] = pool.bytes[pool.next + index] }
            pool.next += buffer.count
        }
    }

    private static func draw(_ count: Int) -> [UInt8] {
        do {
            return try SecureRandom.bytes(count)
        } catch {
            // Without randomness the relay cannot issue safe tokens or keys; stopping is the only honest answer.
            preconditionFailure("the system random source failed: \(error)")
        }
    }
}
