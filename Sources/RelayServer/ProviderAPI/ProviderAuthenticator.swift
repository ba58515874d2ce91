import RelayCore
import RelayJSON
import RelayNet

/// Provider-token checks of the provider API: the connection's `ProviderTokenChurn` decides,
/// the keyring verifies `kid`, `iss` and the ES256 signature, and the real clock dates the token.
///
/// A token the connection already accepted is recognised by its text and only its age is
/// checked, so the ECDSA verification is paid once per token and connection, not per push.
struct ProviderAuthenticator: Sendable {
    /// The keys tokens may be signed with.
    let keyring: ProviderKeyring
    /// The relay's clocks; tokens follow the real one.
    let clock: RelayTimeSource

    /// The parser the provider API hands to RelayCore's rules.
    static func parseJSON(_ bytes: [UInt8]) throws -> JSONValue { try JSONValue(parsing: bytes) }

    /// Authenticates one request's `authorization` header on `context`'s connection. A valid
    /// token lifts the connection's one-stream gate. Call on the connection's loop only (the
    /// token state is confined there), i.e. from `RouteGroup.handle`.
    func authenticate(_ authorization: String?, context: ConnectionContext) -> Result<ProviderToken, APNsError> {
        let result = context.providerTokens.authenticate(
            authorization: authorization, at: clock.realNow(), parseJSON: Self.parseJSON, verify: keyring.verify)
        if case .success = result { context.markTrusted() }
        return result
    }

    /// Nil when `token`'s key may push to `bundleID`; otherwise `reason` naming the key and app.
    func authorize(_ token: ProviderToken, bundleID: String, reason: APNsReason) -> APNsError? {
        guard !keyring.mayPush(keyID: token.keyID, bundleID: bundleID) else { return nil }
        return APNsError(reason, "key '\(token.keyID)' of team '\(token.teamID)' may not push to \(bundleID)")
    }

    /// The checks broadcast and channel management take as their `authorize` closure: a valid
    /// token whose key may use `bundleID` (`403 TopicMismatch` otherwise: Apple's reason when the
    /// token does not match the bundle ID in the path).
    func authorizeApp(
        _ authorization: String?, bundleID: String, context: ConnectionContext, token: inout ProviderToken?
    ) -> APNsError? {
        switch authenticate(authorization, context: context) {
        case .failure(let error):
            return error
        case .success(let verified):
            token = verified
            return authorize(verified, bundleID: bundleID, reason: .topicMismatch)
        }
    }
}
