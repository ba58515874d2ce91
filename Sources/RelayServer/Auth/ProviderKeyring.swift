package import RelayCore
public import RelayNet

/// The provider keys the relay accepts tokens from: the configured ones plus the data
/// directory's development key. Public keys are loaded once, at startup.
///
/// `verify(_:)` is the closure `ProviderTokenChurn.authenticate` takes; `mayPush(keyID:bundleID:)`
/// decides `TopicDisallowed`.
public struct ProviderKeyring: Sendable {
    /// One accepted key.
    public struct Key: Sendable {
        /// `iss` tokens signed with this key must carry.
        package let teamID: String
        /// `kid`.
        package let keyID: String
        /// The key that checks signatures.
        package let publicKey: P256PublicKey
        /// The bundle IDs tokens from this key may push to.
        package let bundleIDs: AllowedBundleIDs

        /// A key entry.
        public init(teamID: String, keyID: String, publicKey: P256PublicKey, bundleIDs: AllowedBundleIDs) {
            self.teamID = teamID
            self.keyID = keyID
            self.publicKey = publicKey
            self.bundleIDs = bundleIDs
        }
    }

    /// The keys by `kid`.
    private let keys: [String: Key]

    /// A keyring of `keys`; a later key with the same ID replaces an earlier one.
    public init(keys: [Key]) {
        var byID: [String: Key] = [:]
        for key in keys { byID[key.keyID] = key }
        self.keys = byID
    }

    /// The configured keys, loaded from their files, plus the development key (team
    /// `DEVTEAM000`, key `DEVKEY0000`, any bundle ID). A key file that cannot be read or is not
    /// a P-256 key is an error naming the config entry and the file.
    package init(configuration: RelayConfiguration, developmentKey: P256PrivateKey) throws(ConfigurationError) {
        try self.init(configured: try Self.configuredKeys(configuration), developmentKey: developmentKey)
    }

    /// The keys `configuration` names, read from their files: `serve` reads them before it
    /// prepares the data directory, so a config that fails here leaves no new directory behind.
    package static func configuredKeys(_ configuration: RelayConfiguration) throws(ConfigurationError) -> [Key] {
        var loaded: [Key] = []
        let subject = configuration.configFile ?? "providerKeys"
        for entry in configuration.providerKeys {
            let publicKey = try Self.load(entry, subject: subject)
            loaded.append(
                Key(teamID: entry.teamID, keyID: entry.keyID, publicKey: publicKey, bundleIDs: entry.bundleIDs))
        }
        return loaded
    }

    /// The `configured` keys plus the development key.
    package init(configured: [Key], developmentKey: P256PrivateKey) throws(ConfigurationError) {
        var loaded = configured
        do {
            loaded.append(
                Key(
                    teamID: DataDirectory.devTeamID, keyID: DataDirectory.devKeyID,
                    publicKey: try developmentKey.publicKey, bundleIDs: .any))
        } catch {
            throw ConfigurationError(DataDirectory.devProviderKeyFileName, "\(error)")
        }
        self.init(keys: loaded)
    }

    /// The key with ID `keyID`, if configured.
    package func key(_ keyID: String) -> Key? { keys[keyID] }

    /// The configured key IDs, sorted.
    package var keyIDs: [String] { keys.keys.sorted() }

    /// Checks a parsed token against the keyring: `kid` must name a known key, `iss` must be
    /// that key's team and the ES256 signature must hold. Returns nil when it does, else
    /// `403 InvalidProviderToken` with a message naming the fault.
    package func verify(_ token: ProviderToken) -> APNsError? {
        // kid and iss are 1 to 64 letters and digits (ProviderToken.parse checked), safe to quote.
        guard let key = keys[token.keyID] else {
            return APNsError(
                .invalidProviderToken,
                "kid '\(token.keyID)' is not a key this relay knows; configured: \(keyIDs.joined(separator: ", "))")
        }
        guard token.teamID == key.teamID else {
            return APNsError(
                .invalidProviderToken, "iss '\(token.teamID)' is not the team of key '\(key.keyID)' (\(key.teamID))")
        }
        guard ES256.verify(signature: token.signature, message: token.signingInput, key: key.publicKey) else {
            return APNsError(.invalidProviderToken, "the ES256 signature does not verify with key '\(key.keyID)'")
        }
        return nil
    }

    /// True when tokens of key `keyID` may push to `bundleID`; false for an unknown key.
    package func mayPush(keyID: String, bundleID: String) -> Bool {
        keys[keyID]?.bundleIDs.allows(bundleID) ?? false
    }

    /// The largest key file read.
    static let maxKeyFileBytes = 64 * 1024

    private static func load(_ entry: ProviderKeyConfiguration, subject: String) throws(ConfigurationError)
        -> P256PublicKey
    {
        let (field, path) =
            switch entry.keyFile {
            case .privateKey(let path): ("p8Path", path)
            case .publicKey(let path): ("publicKeyPath", path)
            }
        let location = "\(entry.origin).\(field)"
        let text: String
        do {
            text = String(decoding: try FileSystem.read(path, limit: maxKeyFileBytes), as: UTF8.self)
        } catch {
            throw ConfigurationError(subject, "\(location): \(error)")
        }
        do {
            switch entry.keyFile {
            case .privateKey: return try P256PrivateKey(pem: text).publicKey
            case .publicKey: return try P256PublicKey(pem: text)
            }
        } catch {
            throw ConfigurationError(subject, "\(location): \(path) is not a P-256 key: \(error)")
        }
    }
}
