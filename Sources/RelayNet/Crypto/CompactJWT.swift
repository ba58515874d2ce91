/// A compact JWS (`header.payload.signature`, each base64url) split and decoded, ready for the
/// caller to parse the JSON parts and check the signature.
package struct CompactJWT: Sendable, Equatable {
    /// The longest token accepted; provider tokens are a few hundred bytes.
    package static let maxLength = 8 * 1024

    /// The decoded header JSON.
    package var header: [UInt8]
    /// The decoded payload (claims) JSON.
    package var payload: [UInt8]
    /// The decoded signature (64 bytes for ES256).
    package var signature: [UInt8]
    /// The signed text: the first two parts as they appear in the token, with the dot.
    package var signingInput: [UInt8]

    /// Splits and decodes `token`; refuses oversized tokens, a part count other than three, and
    /// any part that is not strict base64url.
    package init(parsing token: String) throws(JWTError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxLength else {
            throw JWTError(reason: "token of \(bytes.count) bytes, at most \(Self.maxLength)")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JWTError(reason: "token has \(parts.count) parts, expected 3") }
        func decoded(_ index: Int, _ name: String) throws(JWTError) -> [UInt8] {
            do {
                return try Base64URL.decode(bytes: parts[index])
            } catch {
                throw JWTError(reason: "\(name): \(error.description)")
            }
        }
        header = try decoded(0, "header")
        payload = try decoded(1, "payload")
        signature = try decoded(2, "signature")
        signingInput = Array(bytes[..<parts[1].endIndex])
    }

    /// True when the signature is `key`'s ES256 signature of the signing input. The caller must
    /// also check that the header's `alg` is `ES256`.
    package func hasValidES256Signature(key: P256PublicKey) -> Bool {
        ES256.verify(signature: signature, message: signingInput, key: key)
    }
}

/// A token that is not a well-formed compact JWS, and why.
package struct JWTError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why the token was refused.
    package var reason: String

    /// A refusal for `reason`.
    package init(reason: String) { self.reason = reason }

    package var description: String { "malformed JWT: \(reason)" }
}
