public import RelayNet

/// The admin API key: the bearer key that reaches everything under `/v1`. It lives in the data
/// directory's `admin-key` file (one line, mode 0600).
///
/// Only its SHA-256 digest is kept for checking, and a presented key is compared by digest in
/// constant time. The key itself prints as `AdminKey(redacted)` so it never lands in a log;
/// `secret` is for writing the file and for the startup hint, nothing else.
public struct AdminKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key text.
    package let secret: String
    /// SHA-256 of the key's UTF-8 bytes.
    private let digest: [UInt8]

    /// Shortest and longest key accepted from the `admin-key` file.
    static let lengths = 16...512

    /// A key from its text (such as the `admin-key` file's line); nil unless it is 16 to 512
    /// visible ASCII characters (no spaces), which keeps it usable in an `authorization` header.
    public init?(_ secret: String) {
        let utf8 = secret.utf8
        guard Self.lengths.contains(utf8.count), utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        self.secret = secret
        digest = SHA256.hash(Array(utf8))
    }

    /// A new key: 32 random bytes, base64url (43 characters).
    public static func generate() throws(TLSError) -> AdminKey {
        let text = Base64URL.encode(try SecureRandom.bytes(32))
        guard let key = AdminKey(text) else {
            // 43 base64url characters always pass the checks above.
            throw TLSError(operation: "generate admin key", reason: "generated key \(text.count) characters long")
        }
        return key
    }

    /// True when `presented` (the token after `bearer `) is this key. Constant time: both sides
    /// are hashed to 32 bytes first.
    package func matches(_ presented: String) -> Bool {
        ConstantTime.equal(SHA256.hash(Array(presented.utf8)), digest)
    }

    /// `AdminKey(redacted)`.
    public var description: String { "AdminKey(redacted)" }
    /// `AdminKey(redacted)`.
    public var debugDescription: String { description }
    /// No children, so `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
