public import RelayJSON

/// The whole provider-token check of one request, in order, with the cryptography left to the
/// caller:
///
/// 1. `bearer <token>` is present, else `403 MissingProviderToken` (`InvalidProviderToken` for
///    another scheme).
/// 2. The connection's accepted token again: only its age is checked (`ExpiredProviderToken`);
///    parsing and signature verification are skipped.
/// 3. A new token is parsed (`InvalidProviderToken`), then `verify` runs — the server checks that
///    `kid` names a configured key of team `iss` and that the ES256 signature over
///    `signingInput` holds (`InvalidProviderToken` otherwise).
/// 4. Its age (`ExpiredProviderToken`, or `InvalidProviderToken` for a future `iat`).
/// 5. The connection rules of `present(_:at:)` (`UnrelatedKeyIdInToken`,
///    `429 TooManyProviderTokenUpdates`).
/// A token that fails any step leaves the connection's state unchanged. Time is the real clock.
///
/// The header that last carried the accepted token is remembered (`currentAuthorization`): a
/// client sends one header for many requests, and the same header again goes straight to step 2
/// without the token being read out of it.
extension ProviderTokenChurn {
    /// Authenticates one request's `authorization` header at real time `now`.
    public mutating func authenticate(
        authorization: String?, at now: UnixSeconds, parseJSON: APNsBodyParser,
        verify: (_ token: ProviderToken) -> APNsError?
    ) -> Result<ProviderToken, APNsError> {
        if let authorization, let current, authorization == currentAuthorization {
            if let error = current.checkAge(at: now) { return .failure(error) }
            return .success(current)
        }
        do throws(APNsError) {
            let raw = try ProviderToken.bearerToken(in: authorization).get()
            if let current = known(raw) {
                if let error = current.checkAge(at: now) { throw error }
                currentAuthorization = authorization
                return .success(current)
            }
            let token = try ProviderToken.parse(token: raw, parseJSON: parseJSON).get()
            if let error = verify(token) { throw error }
            if let error = token.checkAge(at: now) { throw error }
            _ = try present(token, at: now).get()
            currentAuthorization = authorization
            return .success(token)
        } catch {
            return .failure(error)
        }
    }
}
