public import RelayJSON

/// Reading `authorization: bearer <JWT>` into a `ProviderToken`, with APNs' reasons:
/// - no header, an empty one, or `bearer` with nothing after it: `403 MissingProviderToken`;
/// - any other fault (another scheme, not three base64url parts, header or claims not JSON
///   objects, `alg` other than `ES256`, a `crit` header parameter (the relay understands no
///   extension, so any critical one makes the token unacceptable: RFC 7515 §4.1.11), missing or malformed `kid`/`iss`/`iat`, a signature that
///   is not 64 bytes): `403 InvalidProviderToken`, with a message naming the fault.
extension ProviderToken {
    /// Wire names in the JWT header and claims.
    private enum Key {
        static let algorithm = "alg"
        static let keyID = "kid"
        static let critical = "crit"
        static let issuer = "iss"
        static let issuedAt = "iat"
    }

    /// Longest `kid` or `iss` read; Apple's are 10 characters.
    package static let maxIdentifierLength = 64

    /// Parses the `authorization` header value (nil when absent). `parseJSON` reads the decoded
    /// header and claims JSON.
    public static func parse(authorization: String?, parseJSON: APNsBodyParser) -> Result<ProviderToken, APNsError> {
        bearerToken(in: authorization).flatMap { parse(token: $0, parseJSON: parseJSON) }
    }

    /// The token after `bearer ` (the scheme in any letter case), or the reason it is missing.
    package static func bearerToken(in authorization: String?) -> Result<String, APNsError> {
        guard let authorization, !authorization.utf8.allSatisfy({ $0 == UInt8(ascii: " ") }) else {
            return .failure(APNsError(.missingProviderToken, "no authorization header; send 'bearer <provider token>'"))
        }
        let utf8 = authorization.utf8
        let scheme = utf8.prefix { $0 != UInt8(ascii: " ") }
        let schemeName = String(decoding: scheme, as: UTF8.self)
        guard APNsASCII.lowercased(schemeName) == "bearer" else {
            // Only the scheme is quoted: the rest may be someone's credentials.
            return .failure(
                invalid(
                    "the authorization scheme is \(APNsASCII.quoted(schemeName, limit: 16)); "
                        + "send 'bearer <provider token>'"))
        }
        let token = String(decoding: utf8.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
        guard !token.isEmpty else {
            return .failure(APNsError(.missingProviderToken, "the authorization header has no token after 'bearer'"))
        }
        return .success(token)
    }

    /// Parses the token itself (what follows `bearer `).
    package static func parse(token: String, parseJSON: APNsBodyParser) -> Result<ProviderToken, APNsError> {
        guard token.utf8.count <= maxLength else {
            return .failure(invalid("the provider token is \(token.utf8.count) bytes; the limit is \(maxLength)"))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            return .failure(invalid("a provider token is three base64url parts joined by '.', found \(parts.count)"))
        }
        let names = ["header", "claims", "signature"]
        var decoded: [[UInt8]] = []
        for (index, part) in parts.enumerated() {
            guard let bytes = Base64Codec.decodeURL(part) else {
                return .failure(invalid("the token's \(names[index]) is not unpadded base64url"))
            }
            decoded.append(bytes)
        }
        do throws(APNsError) {
            let header = try object(decoded[0], name: "header", parseJSON: parseJSON)
            let algorithm = header[Key.algorithm]?.stringValue
            guard algorithm == "ES256" else {
                throw invalid("alg is \(algorithm.map { APNsASCII.quoted($0) } ?? "missing"); APNs accepts only ES256")
            }
            guard header[Key.critical] == nil else {
                throw invalid("the token's header has crit; the relay understands no critical JWS extension")
            }
            let keyID = try identifier(header[Key.keyID], name: "kid (key ID)")
            let claims = try object(decoded[1], name: "claims", parseJSON: parseJSON)
            let teamID = try identifier(claims[Key.issuer], name: "iss (team ID)")
            guard let issuedAtValue = claims[Key.issuedAt], let issuedAt = issuedAtValue.int64Value else {
                throw invalid("iat must be whole Unix seconds")
            }
            let signature = decoded[2]
            guard signature.count == 64 else {
                throw invalid(
                    "the ES256 signature is \(signature.count) bytes; JWS uses the 64-byte r||s form, not DER")
            }
            let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
            return .success(
                ProviderToken(
                    raw: token, keyID: keyID, teamID: teamID, issuedAt: UnixSeconds(issuedAt),
                    signingInput: signingInput, signature: signature))
        } catch {
            return .failure(error)
        }
    }

    private static func invalid(_ message: String) -> APNsError { APNsError(.invalidProviderToken, message) }

    private static func object(_ bytes: [UInt8], name: String, parseJSON: APNsBodyParser) throws(APNsError)
        -> JSONObject
    {
        let value: JSONValue
        do {
            value = try parseJSON(bytes)
        } catch {
            throw invalid("the token's \(name) is not JSON: \(error)")
        }
        guard case .object(let members) = value else { throw invalid("the token's \(name) is not a JSON object") }
        return members
    }

    /// `kid` and `iss`: 1 to 64 ASCII letters and digits.
    private static func identifier(_ value: JSONValue?, name: String) throws(APNsError) -> String {
        guard case .string(let text)? = value else { throw invalid("\(name) is missing or not a string") }
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maxIdentifierLength, utf8.allSatisfy(APNsASCII.isAlphanumeric) else {
            throw invalid("\(name) \(APNsASCII.quoted(text)) is not 1 to \(maxIdentifierLength) letters and digits")
        }
        return text
    }
}
