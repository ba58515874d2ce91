import RelayCore
import RelayJSON
import RelayNet
import RelayServer
import XCTest

final class ProviderKeyringTests: XCTestCase {
    var scratch: ScratchDirectory!
    var devKey: P256PrivateKey!
    var teamKey: P256PrivateKey!
    var publicOnlyKey: P256PrivateKey!
    var keyring: ProviderKeyring!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory()
        devKey = try P256PrivateKey()
        teamKey = try P256PrivateKey()
        publicOnlyKey = try P256PrivateKey()
        try scratch.write("keys/team.p8", try teamKey.pemRepresentation())
        try scratch.write("keys/public.pem", try publicOnlyKey.publicKey.pemRepresentation())
        try scratch.write(
            "relay.json",
            """
            {"providerKeys": [
              {"teamId": "TEAM000001", "keyId": "KEY0000001", "p8Path": "keys/team.p8", "bundleIds": ["com.example.app"]},
              {"teamId": "TEAM000001", "keyId": "KEY0000002", "publicKeyPath": "keys/public.pem", "bundleIds": ["*"]}]}
            """)
        let configuration = try RelayConfiguration.parse(
            arguments: ["--config", "relay.json"], workingDirectory: scratch.path)
        keyring = try ProviderKeyring(configuration: configuration, developmentKey: devKey)
    }

    override func tearDown() { scratch.remove() }

    private func token(team: String, key: String, signedWith signer: P256PrivateKey, iat: Int64 = 1_700_000_000) throws
        -> ProviderToken
    {
        let text = try JWTSigner.makeProviderToken(teamID: team, keyID: key, issuedAt: iat, key: signer)
        return try ProviderToken.parse(token: text) { try JSONValue(parsing: $0) }.get()
    }

    func testTokensOfEveryKnownKeyVerify() throws {
        XCTAssertEqual(keyring.keyIDs, ["DEVKEY0000", "KEY0000001", "KEY0000002"])
        XCTAssertNil(keyring.verify(try token(team: "DEVTEAM000", key: "DEVKEY0000", signedWith: devKey)))
        XCTAssertNil(keyring.verify(try token(team: "TEAM000001", key: "KEY0000001", signedWith: teamKey)))
        XCTAssertNil(keyring.verify(try token(team: "TEAM000001", key: "KEY0000002", signedWith: publicOnlyKey)))
    }

    func testUnknownKidWrongTeamAndBadSignatureAreInvalidProviderToken() throws {
        let table: [(ProviderToken, String)] = [
            (
                try token(team: "DEVTEAM000", key: "NOSUCHKEY1", signedWith: devKey),
                "kid 'NOSUCHKEY1' is not a key this relay knows; configured: DEVKEY0000, KEY0000001, KEY0000002"
            ),
            (
                try token(team: "TEAM000001", key: "DEVKEY0000", signedWith: devKey),
                "iss 'TEAM000001' is not the team of key 'DEVKEY0000' (DEVTEAM000)"
            ),
            (
                try token(team: "TEAM000001", key: "KEY0000001", signedWith: devKey),
                "the ES256 signature does not verify with key 'KEY0000001'"
            ),
            (
                try token(team: "TEAM000001", key: "KEY0000002", signedWith: teamKey),
                "the ES256 signature does not verify with key 'KEY0000002'"
            ),
        ]
        for (token, message) in table {
            XCTAssertEqual(keyring.verify(token), APNsError(.invalidProviderToken, message))
            XCTAssertEqual(keyring.verify(token)?.status, 403)
        }
        let good = try token(team: "DEVTEAM000", key: "DEVKEY0000", signedWith: devKey)
        var flipped = good.signature
        flipped[10] ^= 1
        let tampered = ProviderToken(
            raw: good.raw, keyID: good.keyID, teamID: good.teamID, issuedAt: good.issuedAt,
            signingInput: good.signingInput + [0x20], signature: good.signature)
        let badSignature = ProviderToken(
            raw: good.raw, keyID: good.keyID, teamID: good.teamID, issuedAt: good.issuedAt,
            signingInput: good.signingInput, signature: flipped)
        XCTAssertEqual(keyring.verify(tampered)?.reason, .invalidProviderToken)
        XCTAssertEqual(keyring.verify(badSignature)?.reason, .invalidProviderToken)
    }

    func testMayPushFollowsEachKeysBundleIDs() {
        let table: [(String, String, Bool)] = [
            ("DEVKEY0000", "com.anything.at.all", true),
            ("KEY0000001", "com.example.app", true),
            ("KEY0000001", "com.example.other", false),
            ("KEY0000001", "com.example.app.extension", false),
            ("KEY0000002", "org.whatever", true),
            ("UNKNOWN000", "com.example.app", false),
        ]
        for (keyID, bundleID, allowed) in table {
            XCTAssertEqual(keyring.mayPush(keyID: keyID, bundleID: bundleID), allowed, "\(keyID) \(bundleID)")
        }
    }

    func testKeyringPlugsIntoProviderTokenChurn() throws {
        let now: UnixSeconds = 1_700_000_100
        var churn = ProviderTokenChurn()
        let text = try JWTSigner.makeProviderToken(
            teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: 1_700_000_000, key: devKey)
        let accepted = churn.authenticate(
            authorization: "bearer " + text, at: now, parseJSON: { try JSONValue(parsing: $0) }, verify: keyring.verify)
        XCTAssertEqual(try accepted.get().keyID, "DEVKEY0000")
        let forged = try JWTSigner.makeProviderToken(
            teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: 1_700_000_000, key: teamKey)
        var fresh = ProviderTokenChurn()
        let refused = fresh.authenticate(
            authorization: "bearer " + forged, at: now, parseJSON: { try JSONValue(parsing: $0) },
            verify: keyring.verify)
        XCTAssertEqual(refused.failureReason, .invalidProviderToken)
    }

    func testUnreadableOrWrongKeyFilesAreConfigurationErrors() throws {
        try scratch.write("keys/team.p8", "garbage")
        let configuration = try RelayConfiguration.parse(
            arguments: ["--config", "relay.json"], workingDirectory: scratch.path)
        XCTAssertThrowsError(try ProviderKeyring(configuration: configuration, developmentKey: devKey)) { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            XCTAssertTrue(
                text.hasPrefix(
                    "relay.json: providerKeys[0].p8Path: \(self.scratch.file("keys/team.p8")) is not a P-256 key: "),
                text)
        }
        try FileManager.default.removeItem(atPath: scratch.file("keys/public.pem"))
        try scratch.write("keys/team.p8", try teamKey.pemRepresentation())
        XCTAssertThrowsError(try ProviderKeyring(configuration: configuration, developmentKey: devKey)) { error in
            XCTAssertEqual(
                (error as? ConfigurationError)?.description,
                "relay.json: providerKeys[1].publicKeyPath: cannot read \(self.scratch.file("keys/public.pem")): No such file or directory"
            )
        }
    }
}

extension Result {
    fileprivate var failureReason: APNsReason? {
        if case .failure(let error as APNsError) = self { return error.reason }
        return nil
    }
}
