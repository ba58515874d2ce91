package import RelayNet

/// The development provider key the console signs its pushes with (team `DEVTEAM000`, key
/// `DEVKEY0000` in a data directory the relay created).
public struct DevProviderKey: Sendable {
    /// The token's `iss`.
    package let teamID: String
    /// The token's `kid`; the keyring must hold this key for the provider API to accept it.
    package let keyID: String
    /// The private key the tokens are signed with (ES256).
    package let key: P256PrivateKey

    /// The key `key` of team `teamID` under ID `keyID`.
    package init(teamID: String, keyID: String, key: P256PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
    }
}
