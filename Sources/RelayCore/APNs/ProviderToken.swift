/// A provider authentication token (JWT) from `authorization: bearer <token>`, parsed but not yet
/// verified: the server checks `signature` over `signingInput` with the key named by `keyID`
/// (ES256, using libcrypto), then applies `checkAge(at:)` and `ProviderTokenChurn`.
///
/// Apple's rules (apns-facts §1): header `{"alg": "ES256", "kid": <10-character key ID>}`, claims
/// `{"iss": <10-character team ID>, "iat": <Unix seconds>}`, base64url without padding, joined
/// with dots; the signature is the 64-byte `r || s` of JWS, not DER.
public struct ProviderToken: Sendable, Hashable {
    /// The token exactly as sent after `bearer `.
    package let raw: String
    /// `kid`: the signing key's ID.
    package let keyID: String
    /// `iss`: the developer team's ID.
    package let teamID: String
    /// `iat`: when the token was issued, Unix seconds.
    package let issuedAt: UnixSeconds
    /// The bytes the signature covers: `<header>.<claims>` as sent, ASCII.
    package let signingInput: [UInt8]
    /// The ES256 signature: 32 bytes of `r` then 32 bytes of `s`.
    package let signature: [UInt8]

    /// A parsed token.
    package init(
        raw: String, keyID: String, teamID: String, issuedAt: UnixSeconds, signingInput: [UInt8], signature: [UInt8]
    ) {
        self.raw = raw
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.signingInput = signingInput
        self.signature = signature
    }

    /// Longest token the relay reads; Apple's tokens are about 200 characters.
    package static let maxLength = 4096
    /// Oldest a token may be: Apple refuses an `iat` more than one hour old.
    package static let maxAge: Double = 3600
    /// How far in the future `iat` may lie before the token is refused. Apple only says `iat`
    /// must be within an hour of now; the relay allows five minutes of clock skew for a future
    /// `iat` and refuses more as `InvalidProviderToken` (a token from the future was not issued
    /// correctly, and it would otherwise outlive the one-hour rule).
    package static let defaultMaxFutureSkew: Double = 300

    /// The age rule at real time `now`: `403 ExpiredProviderToken` when `iat` is more than
    /// `maxAge` seconds ago (exactly `maxAge` is still valid), `403 InvalidProviderToken` when it is
    /// more than `maxFutureSkew` seconds ahead; nil when the token may be used.
    package func checkAge(
        at now: UnixSeconds, maxAge: Double = ProviderToken.maxAge,
        maxFutureSkew: Double = ProviderToken.defaultMaxFutureSkew
    ) -> APNsError? {
        let age = now - issuedAt
        if age > maxAge {
            return APNsError(
                .expiredProviderToken,
                "the provider token was issued \(age.rounded(.down).plainText) s ago (iat \(issuedAt.plainText)); "
                    + "tokens are valid for \(maxAge.plainText) s, refresh every 20 to 60 minutes")
        }
        if -age > maxFutureSkew {
            var message =
                "the provider token's iat \(issuedAt.plainText) is \((-age).rounded(.down).plainText) s in the future"
            if issuedAt > APNsHint.millisecondsThreshold { message += "; iat looks like milliseconds, use seconds" }
            return APNsError(.invalidProviderToken, message)
        }
        return nil
    }
}
