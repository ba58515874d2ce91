import RelayCore
import RelayNet
import Synchronization

/// Stream tickets: what a browser's EventSource (which cannot send headers) presents instead of
/// a key. A ticket is 32 random bytes (base64url), valid for one `GET /v1/stream` within its
/// lifetime, bound to the caller and filter of the request that minted it, and kept in memory only.
///
/// Tickets are held by the SHA-256 of their text, so looking one up reveals nothing about the
/// others through timing, and the digest found is then compared in constant time.
final class StreamTickets: Sendable {
    /// What a ticket grants.
    struct Grant: Sendable, Equatable {
        let principal: AppPrincipal
        let filter: EventFilter
        /// Real Unix seconds after which it is refused.
        let expiresAt: Double
    }

    /// Tickets outstanding at once; past it, minting is refused until some are used or expire.
    static let capacity = 10_000

    let lifetime: Double
    private let state = Mutex<State>(State())

    private struct State {
        var tickets: [String: (digest: [UInt8], grant: Grant)] = [:]
        var nextSweep: Double = 0

        /// Drops expired tickets, at most once a second unless `force`.
        mutating func sweep(now: Double, force: Bool = false) {
            guard force || now >= nextSweep else { return }
            nextSweep = now + 1
            tickets = tickets.filter { $0.value.grant.expiresAt > now }
        }
    }

    /// Tickets valid for `lifetime` seconds.
    init(lifetime: Double) { self.lifetime = lifetime }

    /// Tickets outstanding (expired ones included until the next sweep).
    var count: Int { state.withLock { $0.tickets.count } }

    /// A new ticket for `principal` and `filter` at real time `now`, kept nowhere yet: its text,
    /// the key it is kept under (`key(of:)`) and what it grants.
    func mint(principal: AppPrincipal, filter: EventFilter, now: Double) -> Result<
        (ticket: String, key: String, grant: Grant), StreamError
    > {
        let bytes: [UInt8]
        do {
            bytes = try SecureRandom.bytes(32)
        } catch {
            return .failure(StreamError(500, "internal", "no random bytes for a ticket: \(error)"))
        }
        let ticket = Base64URL.encode(bytes)
        let grant = Grant(principal: principal, filter: filter, expiresAt: now + lifetime)
        return .success((ticket, Self.key(SHA256.hash(Array(ticket.utf8))), grant))
    }

    /// The key `ticket` is kept under (the base64url of its SHA-256); nil for text no ticket has.
    static func key(of ticket: String) -> String? {
        guard ticket.utf8.count <= 128 else { return nil }
        return key(SHA256.hash(Array(ticket.utf8)))
    }

    /// Mints a ticket for `principal` and `filter` at real time `now` and keeps it in memory.
    func issue(principal: AppPrincipal, filter: EventFilter, now: Double) -> Result<
        (ticket: String, grant: Grant), StreamError
    > {
        let minted: (ticket: String, key: String, grant: Grant)
        switch mint(principal: principal, filter: filter, now: now) {
        case .failure(let error): return .failure(error)
        case .success(let made): minted = made
        }
        let (ticket, grant) = (minted.ticket, minted.grant)
        let digest = SHA256.hash(Array(ticket.utf8))
        return state.withLock { state in
            state.sweep(now: now, force: state.tickets.count >= Self.capacity)
            guard state.tickets.count < Self.capacity else {
                return .failure(
                    StreamError(
                        429, "tooManyTickets", "\(Self.capacity) stream tickets are outstanding; use or let some expire"
                    ))
            }
            state.tickets[Self.key(digest)] = (digest, grant)
            return .success((ticket, grant))
        }
    }

    /// Takes the ticket (it is single-use) and returns its grant; nil when unknown, used or
    /// expired at real time `now`.
    func redeem(_ ticket: String, now: Double) -> Grant? {
        guard ticket.utf8.count <= 128 else { return nil }
        let digest = SHA256.hash(Array(ticket.utf8))
        return state.withLock { state in
            state.sweep(now: now)
            let key = Self.key(digest)
            guard let entry = state.tickets[key], ConstantTime.equal(entry.digest, digest) else { return nil }
            state.tickets[key] = nil
            return entry.grant.expiresAt > now ? entry.grant : nil
        }
    }

    private static func key(_ digest: [UInt8]) -> String { Base64URL.encode(digest) }
}
