import Foundation
import RelayCore
import RelayNet
import XCTest

@testable import RelayServer

/// A connection's `ProviderTokenChurn` remembers the header that carried its accepted token; the
/// answers through `ProviderAuthenticator` must stay those of the full check on every request.
final class ProviderAuthenticatorTests: XCTestCase {
    private var devKey: P256PrivateKey!
    private var authenticator: ProviderAuthenticator!

    override func setUpWithError() throws {
        devKey = try P256PrivateKey()
        let keyring = ProviderKeyring(keys: [
            ProviderKeyring.Key(
                teamID: "DEVTEAM000", keyID: "DEVKEY0000", publicKey: try devKey.publicKey, bundleIDs: .any)
        ])
        authenticator = ProviderAuthenticator(keyring: keyring, clock: RelayTimeSource())
    }

    private func header(iat: Int64) throws -> String {
        "bearer "
            + (try JWTSigner.makeProviderToken(teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: iat, key: devKey))
    }

    private func reason(_ result: Result<ProviderToken, APNsError>) -> String? {
        if case .failure(let error) = result { return error.reason.rawValue }
        return nil
    }

    func testTheRememberedHeaderStillHasItsTokenAgedAndOtherHeadersTakeTheFullCheck() throws {
        let context = ConnectionContext()
        // Valid for one to two more seconds: the age is checked on the remembered path too.
        let now = Int64(Date().timeIntervalSince1970)
        let ageing = try header(iat: now - 3598)
        XCTAssertNil(reason(authenticator.authenticate(ageing, context: context)))
        XCTAssertNil(reason(authenticator.authenticate(ageing, context: context)))
        XCTAssertEqual(context.providerTokens.currentAuthorization, ageing)
        // The same token with other spacing is known to the churn rules, not by its header.
        let spaced = ageing.replacingOccurrences(of: "bearer ", with: "bearer   ")
        XCTAssertNil(reason(authenticator.authenticate(spaced, context: context)))
        // A different token within 20 minutes is refused and leaves the remembered one in place.
        XCTAssertEqual(
            reason(authenticator.authenticate(try header(iat: now), context: context)), "TooManyProviderTokenUpdates")
        XCTAssertEqual(context.providerTokens.currentAuthorization, spaced)
        XCTAssertEqual(reason(authenticator.authenticate(nil, context: context)), "MissingProviderToken")
        Thread.sleep(forTimeInterval: 2.2)
        XCTAssertEqual(reason(authenticator.authenticate(spaced, context: context)), "ExpiredProviderToken")
        XCTAssertEqual(reason(authenticator.authenticate(ageing, context: context)), "ExpiredProviderToken")
    }
}
