package import RelayNet

/// A device key: the bearer key `POST /v1/devices` returns, which reaches only that device's
/// apps, activities, alarms and stream.
///
/// The relay stores only `DeviceKey.hash(_:)` of it (SHA-256, hex); a presented key is checked
/// with `matches(_:hash:)`, which compares digests in constant time. A `DeviceKey` value prints
/// as `DeviceKey(redacted)`; `secret` is for the one response that hands it to the client.
package struct DeviceKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key text: 32 random bytes, base64url (43 characters).
    package let secret: String

    /// Wraps a key text.
    package init(secret: String) { self.secret = secret }

    /// A new random key.
    package static func generate() throws(TLSError) -> DeviceKey {
        DeviceKey(secret: Base64URL.encode(try SecureRandom.bytes(32)))
    }

    /// The value to store for this key: `hash(secret)`.
    package var hash: String { Self.hash(secret) }

    /// SHA-256 of `key`'s UTF-8 bytes as 64 lowercase hex digits.
    package static func hash(_ key: String) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(Array(key.utf8)) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// True when `presented` hashes to `storedHash`, compared in constant time (both are 64
    /// hex digits, so neither length nor content leaks through timing).
    package static func matches(_ presented: String, hash storedHash: String) -> Bool {
        ConstantTime.equal(hash(presented), storedHash)
    }

    /// `DeviceKey(redacted)`.
    package var description: String { "DeviceKey(redacted)" }
    /// `DeviceKey(redacted)`.
    package var debugDescription: String { description }
    /// No children, so `dump` shows nothing secret.
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
