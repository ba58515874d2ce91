/// The provider-token rules of one connection, on the real clock: a pure value the connection
/// keeps and consults after it verified a token's signature and age.
///
/// Apple's rules (apns-facts §1):
/// - A token different from the last accepted one is refused with
///   `429 TooManyProviderTokenUpdates` while less than `minimumInterval` (20 minutes) has passed
///   since that acceptance; at exactly 20 minutes it is accepted. A refused token does not restart
///   the interval. Apple does not distinguish tokens from different keys of one team, so a second
///   key on the connection falls under the same rule.
/// - One connection cannot carry tokens of two teams: a token whose team differs from the first
///   accepted one is `403 UnrelatedKeyIdInToken`, however much time has passed.
/// - Presenting the accepted token again is always fine (its age is checked separately, with
///   `ProviderToken.checkAge(at:)`).
/// Apple's engineer describes a connection as "unusable" for a while after the 429; the relay
/// keeps serving the token it already accepted and only refuses the new one.
public struct ProviderTokenChurn: Sendable, Hashable {
    /// What presenting a token did.
    package enum Presentation: Sendable, Hashable {
        /// The token is the one already accepted on this connection.
        case known
        /// The token is new and now the connection's current token.
        case accepted
    }

    /// Apple's minimum time between token changes on a connection: 20 minutes.
    public static let defaultMinimumInterval: Double = 20 * 60

    /// Minimum seconds between accepting one token and accepting a different one.
    package let minimumInterval: Double
    /// The token currently accepted on the connection.
    package private(set) var current: ProviderToken?
    /// The real time `current` was accepted.
    package private(set) var acceptedAt: UnixSeconds?
    /// The team bound to the connection by its first accepted token.
    package private(set) var teamID: String?
    /// The `authorization` header that last carried `current` (see `authenticate`); nil until a
    /// header has, and again whenever another token is accepted.
    package internal(set) var currentAuthorization: String?

    /// A fresh connection's state.
    public init(minimumInterval: Double = ProviderTokenChurn.defaultMinimumInterval) {
        self.minimumInterval = minimumInterval
    }

    /// The accepted token when `raw` is exactly it, so the connection can skip parsing and
    /// signature verification for the token it already knows.
    package func known(_ raw: String) -> ProviderToken? {
        guard let current, current.raw == raw else { return nil }
        return current
    }

    /// Presents a verified token at real time `now`.
    package mutating func present(_ token: ProviderToken, at now: UnixSeconds) -> Result<Presentation, APNsError> {
        if let current, current.raw == token.raw { return .success(.known) }
        if let teamID, teamID != token.teamID {
            return .failure(
                APNsError(
                    .unrelatedKeyIdInToken,
                    "this connection carries tokens of team \(teamID); a token of team \(token.teamID) "
                        + "(key \(token.keyID)) needs a new connection"))
        }
        if let acceptedAt {
            let elapsed = now - acceptedAt
            if elapsed < minimumInterval {
                let wait = (minimumInterval - elapsed).rounded(.up).plainText
                return .failure(
                    APNsError(
                        .tooManyProviderTokenUpdates,
                        "a new provider token \(max(0, elapsed).rounded(.down).plainText) s after the last one on this connection; "
                            + "refresh at most every \((minimumInterval / 60).plainText) minutes (\(wait) s to go)"
                    ))
            }
        }
        current = token
        currentAuthorization = nil
        acceptedAt = now
        teamID = token.teamID
        return .success(.accepted)
    }
}
