import RelayCore
import XCTest

final class ProviderTokenChurnTests: XCTestCase {
    private func token(_ raw: String, team: String = "TEAM000000", key: String = "KEY0000000") -> ProviderToken {
        ProviderToken(raw: raw, keyID: key, teamID: team, issuedAt: 0, signingInput: [], signature: [])
    }

    func testFirstTokenIsAcceptedAndThenKnown() {
        var churn = ProviderTokenChurn()
        XCTAssertEqual(try churn.present(token("a"), at: 1000).get(), .accepted)
        XCTAssertEqual(try churn.present(token("a"), at: 1001).get(), .known)
        XCTAssertEqual(churn.known("a")?.raw, "a")
        XCTAssertNil(churn.known("b"))
    }

    func testNewTokenWithinTwentyMinutesIsRefused() {
        let edges: [(Double, APNsReason?)] = [
            (0, .tooManyProviderTokenUpdates), (60, .tooManyProviderTokenUpdates),
            (19 * 60 + 59, .tooManyProviderTokenUpdates), (20 * 60, nil), (3 * 3600, nil),
        ]
        for (elapsed, expected) in edges {
            var churn = ProviderTokenChurn()
            _ = churn.present(token("a"), at: 1000)
            let result = churn.present(token("b"), at: 1000 + elapsed)
            XCTAssertEqual(reason(result), expected, "after \(elapsed) s")
            if case .failure(let error) = result { XCTAssertEqual(error.status, 429) }
        }
    }

    func testRefusalDoesNotRestartTheInterval() {
        var churn = ProviderTokenChurn()
        _ = churn.present(token("a"), at: 0)
        XCTAssertEqual(reason(churn.present(token("b"), at: 600)), .tooManyProviderTokenUpdates)
        XCTAssertEqual(try churn.present(token("a"), at: 700).get(), .known, "the accepted token still works")
        XCTAssertEqual(try churn.present(token("b"), at: 1200).get(), .accepted)
        XCTAssertEqual(churn.current?.raw, "b")
        XCTAssertEqual(churn.acceptedAt, 1200)
        XCTAssertEqual(reason(churn.present(token("c"), at: 2399)), .tooManyProviderTokenUpdates)
    }

    func testAnotherKeyOfTheSameTeamFollowsTheSameRule() {
        var churn = ProviderTokenChurn()
        _ = churn.present(token("a", key: "KEY1111111"), at: 0)
        XCTAssertEqual(reason(churn.present(token("b", key: "KEY2222222"), at: 10)), .tooManyProviderTokenUpdates)
        XCTAssertEqual(try churn.present(token("b", key: "KEY2222222"), at: 1200).get(), .accepted)
    }

    func testAnotherTeamIsUnrelated() {
        var churn = ProviderTokenChurn()
        _ = churn.present(token("a"), at: 0)
        let result = churn.present(token("b", team: "OTHERTEAM0"), at: 5000)
        XCTAssertEqual(reason(result), .unrelatedKeyIdInToken)
        XCTAssertEqual(churn.current?.raw, "a")
    }

    func testIntervalIsConfigurable() {
        var churn = ProviderTokenChurn(minimumInterval: 60)
        _ = churn.present(token("a"), at: 0)
        XCTAssertEqual(reason(churn.present(token("b"), at: 59)), .tooManyProviderTokenUpdates)
        XCTAssertNil(reason(churn.present(token("b"), at: 60)))
    }

    func testClockGoingBackwardsRefusesNewTokens() {
        var churn = ProviderTokenChurn()
        _ = churn.present(token("a"), at: 5000)
        XCTAssertEqual(reason(churn.present(token("b"), at: 100)), .tooManyProviderTokenUpdates)
    }
}
