import RelayCore
import RelayJSON
import XCTest

final class ProviderTokenTests: XCTestCase {
    private static let header = #"{"alg":"ES256","kid":"DEVKEY0000"}"#
    private static let claims = #"{"iss":"DEVTEAM000","iat":1700000000}"#
    private static let table: JSONObject = [
        header: ["alg": "ES256", "kid": "DEVKEY0000"],
        claims: ["iss": "DEVTEAM000", "iat": 1_700_000_000],
        #"{"alg":"HS256","kid":"DEVKEY0000"}"#: ["alg": "HS256", "kid": "DEVKEY0000"],
        #"{"alg":"ES256"}"#: ["alg": "ES256"],
        #"{"alg":"ES256","kid":"DEVKEY0000","crit":["exp"]}"#: ["alg": "ES256", "kid": "DEVKEY0000", "crit": ["exp"]],
        #"{"alg":"ES256","kid":"bad key!"}"#: ["alg": "ES256", "kid": "bad key!"],
        #"{"iss":"DEVTEAM000"}"#: ["iss": "DEVTEAM000"],
        #"{"iss":"DEVTEAM000","iat":"now"}"#: ["iss": "DEVTEAM000", "iat": "now"],
        #"{"iss":"DEVTEAM000","iat":1.5}"#: ["iss": "DEVTEAM000", "iat": 1.5],
        #"{"iat":1700000000}"#: ["iat": 1_700_000_000],
        "[]": [],
    ]

    private static func jwt(header: String = header, claims: String = claims, signature: [UInt8] = Array(1...64))
        -> String
    {
        [Array(header.utf8), Array(claims.utf8), signature].map(Base64Codec.encodeURL).joined(separator: ".")
    }

    private func parse(_ authorization: String?) -> Result<ProviderToken, APNsError> {
        ProviderToken.parse(authorization: authorization, parseJSON: parser(table: Self.table))
    }

    func testParsesAValidToken() throws {
        let raw = Self.jwt()
        let token = try parse("bearer \(raw)").get()
        XCTAssertEqual(token.raw, raw)
        XCTAssertEqual(token.keyID, "DEVKEY0000")
        XCTAssertEqual(token.teamID, "DEVTEAM000")
        XCTAssertEqual(token.issuedAt, 1_700_000_000)
        XCTAssertEqual(token.signature, Array(1...64))
        let parts = raw.split(separator: ".")
        XCTAssertEqual(token.signingInput, Array("\(parts[0]).\(parts[1])".utf8))
        XCTAssertEqual(try parse("Bearer  \(raw)").get(), token, "scheme is case-insensitive")
    }

    func testParseErrors() {
        let good = Self.jwt()
        let parts = good.split(separator: ".").map(String.init)
        let cases: [(String, String?, APNsReason)] = [
            ("absent", nil, .missingProviderToken),
            ("empty", "", .missingProviderToken),
            ("spaces", "   ", .missingProviderToken),
            ("bearer only", "bearer", .missingProviderToken),
            ("bearer space", "bearer   ", .missingProviderToken),
            ("basic", "Basic abc", .invalidProviderToken),
            ("two parts", "bearer \(parts[0]).\(parts[1])", .invalidProviderToken),
            ("four parts", "bearer \(good).x", .invalidProviderToken),
            ("empty part", "bearer \(parts[0])..\(parts[2])", .invalidProviderToken),
            ("padding", "bearer \(parts[0]).\(parts[1]).\(parts[2])==", .invalidProviderToken),
            (
                "standard alphabet",
                "bearer \(parts[0]).\(parts[1]).\(parts[2].replacingOccurrences(of: "-", with: "+"))+",
                .invalidProviderToken
            ),
            ("header not JSON", "bearer \(Self.jwt(header: "{nope"))", .invalidProviderToken),
            ("header array", "bearer \(Self.jwt(header: "[]"))", .invalidProviderToken),
            ("HS256", "bearer \(Self.jwt(header: #"{"alg":"HS256","kid":"DEVKEY0000"}"#))", .invalidProviderToken),
            (
                "crit", "bearer \(Self.jwt(header: #"{"alg":"ES256","kid":"DEVKEY0000","crit":["exp"]}"#))",
                .invalidProviderToken
            ),
            ("no kid", "bearer \(Self.jwt(header: #"{"alg":"ES256"}"#))", .invalidProviderToken),
            ("bad kid", "bearer \(Self.jwt(header: #"{"alg":"ES256","kid":"bad key!"}"#))", .invalidProviderToken),
            ("no iat", "bearer \(Self.jwt(claims: #"{"iss":"DEVTEAM000"}"#))", .invalidProviderToken),
            ("string iat", "bearer \(Self.jwt(claims: #"{"iss":"DEVTEAM000","iat":"now"}"#))", .invalidProviderToken),
            ("fractional iat", "bearer \(Self.jwt(claims: #"{"iss":"DEVTEAM000","iat":1.5}"#))", .invalidProviderToken),
            ("no iss", "bearer \(Self.jwt(claims: #"{"iat":1700000000}"#))", .invalidProviderToken),
            ("DER signature", "bearer \(Self.jwt(signature: Array(repeating: 7, count: 70)))", .invalidProviderToken),
            ("short signature", "bearer \(Self.jwt(signature: Array(repeating: 7, count: 63)))", .invalidProviderToken),
            ("huge", "bearer " + String(repeating: "a", count: 5000), .invalidProviderToken),
        ]
        for (name, authorization, expected) in cases {
            let result = parse(authorization)
            XCTAssertEqual(reason(result), expected, name)
            if case .failure(let error) = result { XCTAssertEqual(error.status, 403, name) }
        }
    }

    func testDERSignatureMessageExplainsTheFix() {
        guard case .failure(let error) = parse("bearer \(Self.jwt(signature: Array(repeating: 7, count: 71)))") else {
            return XCTFail("accepted")
        }
        XCTAssertTrue(error.message.contains("r||s"), error.message)
    }

    func testAgeRules() throws {
        let token = try parse("bearer \(Self.jwt())").get()
        let iat = token.issuedAt
        XCTAssertNil(token.checkAge(at: iat))
        XCTAssertNil(token.checkAge(at: iat + 3600), "exactly one hour is still valid")
        XCTAssertEqual(token.checkAge(at: iat + 3601)?.reason, .expiredProviderToken)
        XCTAssertNil(token.checkAge(at: iat - 300), "five minutes of skew")
        XCTAssertEqual(token.checkAge(at: iat - 301)?.reason, .invalidProviderToken)
        XCTAssertEqual(token.checkAge(at: iat + 1, maxAge: 0)?.reason, .expiredProviderToken)
    }

    func testMillisecondsIatIsExplained() {
        let token = ProviderToken(
            raw: "r", keyID: "K", teamID: "T", issuedAt: 1_700_000_000_000, signingInput: [], signature: [])
        let error = token.checkAge(at: 1_700_000_000)
        XCTAssertEqual(error?.reason, .invalidProviderToken)
        XCTAssertTrue(error?.message.contains("milliseconds") == true)
    }

    func testExtremeIatDoesNotTrap() {
        for iat in [Double(Int64.min), Double(Int64.max)] {
            let token = ProviderToken(raw: "r", keyID: "K", teamID: "T", issuedAt: iat, signingInput: [], signature: [])
            XCTAssertNotNil(token.checkAge(at: 1_700_000_000))
        }
    }

    func testWrongSchemeIsNotEchoed() {
        guard case .failure(let error) = parse("Basic dXNlcjpzZWNyZXQ=") else { return XCTFail("accepted") }
        XCTAssertFalse(error.message.contains("dXNlcjpzZWNyZXQ"), error.message)
    }
}
