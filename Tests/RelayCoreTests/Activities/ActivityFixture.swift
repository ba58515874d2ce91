import RelayCore
import RelayJSON
import XCTest

/// Shared times and builders for the Live Activity tests.
enum Fixture {
    static let t0: UnixSeconds = 1_767_225_600
    static let hour: Double = 3600

    /// A content state with one number, so updates are told apart by `n`.
    static func content(_ number: Int) -> JSONValue { ["n": .int(Int64(number))] }

    /// An update carrying `content(number)`.
    static func update(_ number: Int, timestamp: UnixSeconds? = nil, staleDate: UnixSeconds? = nil) -> ActivityUpdate {
        ActivityUpdate(contentState: content(number), staleDate: staleDate, timestamp: timestamp)
    }

    /// An activity started at `at` with `content(0)`.
    static func activity(
        at start: UnixSeconds = t0, staleDate: UnixSeconds? = nil, relevance: Double? = nil, id: String = "act-1",
        frequent: Bool = false, rules: RelayRules = .defaults
    ) -> LiveActivity {
        do {
            return try LiveActivity.start(
                id: id, deviceId: "dev-1", bundleId: "com.example.app", attributesType: "DeliveryAttributes",
                attributes: ["order": "42"], contentState: content(0), staleDate: staleDate, relevanceScore: relevance,
                frequentPushesEnabled: frequent, rules: rules, at: start)
        } catch {
            XCTFail("start failed: \(error)")
            preconditionFailure("fixture activity must start")
        }
    }
}

extension ActivityUpdateOutcome {
    /// The release time of a `deferred` or `coalesced` outcome, else nil.
    var heldUntil: UnixSeconds? {
        switch self {
        case .deferred(let until, _), .coalesced(let until, _): return until
        default: return nil
        }
    }
}
