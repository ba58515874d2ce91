/// Makes provider authentication tokens the way a provider server does for APNs.
public enum JWTSigner {
    /// A compact ES256 JWT with header `{"alg":"ES256","kid":keyID}` and claims
    /// `{"iss":teamID,"iat":issuedAt}` (Unix seconds), signed with `key`.
    public static func makeProviderToken(
        teamID: String, keyID: String, issuedAt: Int64, key: P256PrivateKey
    ) throws(CryptoError) -> String {
        let header = #"{"alg":"ES256","kid":"# + jsonString(keyID) + "}"
        let claims = #"{"iss":"# + jsonString(teamID) + #","iat":"# + String(issuedAt) + "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try ES256.sign(Array(signingInput.utf8), key: key)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// `text` as a JSON string literal, quotes included.
    static func jsonString(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
