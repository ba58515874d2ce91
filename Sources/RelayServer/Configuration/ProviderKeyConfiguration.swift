import RelayCore

/// One provider signing key from the config file's `providerKeys`: the team and key IDs a
/// provider token names, the file holding the key, and the bundle IDs it may push to.
///
/// ```json
/// {"teamId": "ABCDE12345", "keyId": "KEY1234567", "p8Path": "AuthKey_KEY1234567.p8", "bundleIds": ["com.example.app"]}
/// ```
/// The key file is either the `.p8` private key Apple issues (`p8Path`) or, so that the relay
/// never needs the secret, its public half as SubjectPublicKeyInfo PEM (`publicKeyPath`, made
/// with `openssl pkey -in AuthKey.p8 -pubout`). The files are read by `ProviderKeyring`.
package struct ProviderKeyConfiguration: Sendable, Hashable {
    /// Where the key material is.
    package enum KeyFile: Sendable, Hashable {
        /// A PKCS#8 (`.p8`) or SEC1 PEM private key; only its public half is kept.
        case privateKey(path: String)
        /// A SubjectPublicKeyInfo PEM public key.
        case publicKey(path: String)

        /// The file's path.
        package var path: String {
            switch self {
            case .privateKey(let path), .publicKey(let path): path
            }
        }
    }

    /// `iss`: the developer team's ID.
    package var teamID: String
    /// `kid`: the key's ID.
    package var keyID: String
    /// The key file.
    package var keyFile: KeyFile
    /// The bundle IDs tokens signed with this key may push to.
    package var bundleIDs: AllowedBundleIDs
    /// Where the entry was configured, for messages: `providerKeys[0]`.
    package var origin: String

    /// A key entry.
    package init(teamID: String, keyID: String, keyFile: KeyFile, bundleIDs: AllowedBundleIDs, origin: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyFile = keyFile
        self.bundleIDs = bundleIDs
        self.origin = origin
    }

    /// Most keys one config may list (Apple allows 200 topic-specific keys per environment).
    static let maxCount = 1000
    /// The config keys of one entry.
    static let keys: Set<String> = ["teamId", "keyId", "p8Path", "publicKeyPath", "bundleIds"]
    /// What a team or key ID must be: what `ProviderToken` accepts in `iss` and `kid`.
    static let identifierExpectation =
        "1 to \(ProviderToken.maxIdentifierLength) ASCII letters and digits (Apple's are 10)"

    /// True for 1 to 64 ASCII letters and digits.
    static func isIdentifier(_ text: String) -> Bool {
        let utf8 = text.utf8
        return !utf8.isEmpty && utf8.count <= ProviderToken.maxIdentifierLength
            && utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
    }

    /// Reads one entry of `providerKeys`; relative paths are resolved against `base`.
    init(fields: ConfigFields, base: String) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        teamID = try fields.requireString("teamId", Self.identifierExpectation)
        guard Self.isIdentifier(teamID) else { throw fields.error("teamId", "must be \(Self.identifierExpectation)") }
        keyID = try fields.requireString("keyId", Self.identifierExpectation)
        guard Self.isIdentifier(keyID) else { throw fields.error("keyId", "must be \(Self.identifierExpectation)") }
        switch (try fields.string("p8Path"), try fields.string("publicKeyPath")) {
        case (let p8?, nil) where !p8.isEmpty:
            keyFile = .privateKey(path: FileSystem.absolute(p8, relativeTo: base))
        case (nil, let pem?) where !pem.isEmpty:
            keyFile = .publicKey(path: FileSystem.absolute(pem, relativeTo: base))
        case (_?, _?):
            throw fields.error("publicKeyPath", "cannot be given together with p8Path; give one of them")
        default:
            throw JSONFieldError(
                key: fields.path, found: nil,
                message: "needs p8Path (the .p8 private key) or publicKeyPath (its public key PEM), a non-empty path")
        }
        guard let list = try fields.array("bundleIds", limit: 10_000) else {
            throw fields.error("bundleIds", "is required (bundle IDs this key may push to, or [\"*\"] for any)")
        }
        bundleIDs = try AllowedBundleIDs(list, fields: fields, key: "bundleIds")
        origin = fields.path
    }
}
