import XCTest

@testable import RelayCore

/// A connection's remembered topics (`TopicMemo`) answer exactly as the topic checks do.
final class TopicMemoTests: XCTestCase {
    /// Topic values of every kind the checks tell apart: accepted ones, and each refusal.
    private let topics = [
        "com.example.app.push-type.liveactivity", "com.example.other.push-type.liveactivity",
        "com.example.app-2.push-type.liveactivity", "a.push-type.liveactivity",
        "com.example.app.push-type.liveactivity ", "com.example.app.push-type.widgets.push-type.liveactivity",
        "com.example.app", "com.example.app.voip", "com.example.app.push-type.widgets", "push-type.liveactivity",
        "com..app.push-type.liveactivity", "com.app x", "", "COM.EXAMPLE.APP.PUSH-TYPE.LIVEACTIVITY",
        "com.example.app.push-type.liveactivitY",
    ]

    /// What `checkHeaders` answers for `topic`: the checked headers, or the refusal's reason and message.
    private func answer(
        _ topic: String?, memo: inout TopicMemo, authorizeBundle: (String) -> APNsError? = { _ in nil }
    ) -> String {
        switch LiveActivityPushRequest.checkHeaders(
            deviceHeaders(["apns-topic": topic]), topics: &memo, authorizeBundle: authorizeBundle)
        {
        case .success(let headers):
            return "ok \(headers.topic.rawValue) \(headers.bundleID) \(headers.hints)"
        case .failure(let error):
            return "\(error.reason.rawValue): \(error.message)"
        }
    }

    /// Each topic, checked with an empty memo and again with one that has seen every topic (in
    /// both orders, twice), gets the same answer; only accepted topics are remembered.
    func testARememberedTopicAnswersAsTheChecks() {
        var fresh: [String] = []
        for topic in topics {
            var memo = TopicMemo()
            fresh.append(answer(topic, memo: &memo))
            XCTAssertEqual(memo.count, fresh.last!.hasPrefix("ok ") ? 1 : 0, topic)
        }
        XCTAssertEqual(fresh.filter { $0.hasPrefix("ok ") }.count, 4)
        for order in [topics, topics.reversed()] {
            var memo = TopicMemo()
            for _ in 0..<2 {
                for topic in order {
                    let expected = fresh[topics.firstIndex(of: topic)!]
                    XCTAssertEqual(answer(topic, memo: &memo), expected, topic)
                }
            }
            XCTAssertEqual(memo.count, TopicMemo.capacity)
        }
        var memo = TopicMemo()
        XCTAssertTrue(answer(nil, memo: &memo).hasPrefix("MissingTopic"))
        XCTAssertEqual(memo.count, 0)
    }

    /// A remembered topic still goes through bundle authorization, with its bundle ID, every time.
    func testBundleAuthorizationRunsForARememberedTopic() {
        var memo = TopicMemo()
        var seen: [String] = []
        let topic = "com.example.app.push-type.liveactivity"
        XCTAssertTrue(
            answer(topic, memo: &memo) {
                seen.append($0)
                return nil
            }.hasPrefix("ok "))
        let refused = answer(topic, memo: &memo) { bundle in
            seen.append(bundle)
            return APNsError(.topicDisallowed, "the key may not push to \(bundle)")
        }
        XCTAssertEqual(refused, "TopicDisallowed: the key may not push to com.example.app")
        XCTAssertEqual(seen, ["com.example.app", "com.example.app"])
        XCTAssertEqual(memo.find(topic)?.bundleID, "com.example.app")
    }

    /// Past its capacity the memo forgets its oldest topic, which is then checked again.
    func testTheOldestTopicIsForgotten() {
        var memo = TopicMemo()
        let apps = (0...TopicMemo.capacity).map { "com.example.app\($0).push-type.liveactivity" }
        for topic in apps { XCTAssertTrue(answer(topic, memo: &memo).hasPrefix("ok "), topic) }
        XCTAssertEqual(memo.count, TopicMemo.capacity)
        XCTAssertNil(memo.find(apps[0]))
        for topic in apps.dropFirst() { XCTAssertEqual(memo.find(topic)?.topic.rawValue, topic) }
        XCTAssertEqual(memo.find(apps[1])?.bundleID, "com.example.app1")
    }

    /// The whole validation with a memo shared by many requests gives what it gives without one.
    func testValidateWithAMemoAgreesWithout() {
        var memo = TopicMemo()
        for topic in topics + topics {
            let headers = deviceHeaders(["apns-topic": topic])
            let without = validateDevice(headers: headers)
            let with = LiveActivityPushRequest.validate(
                method: "POST", path: "/3/device/\(sampleToken)", headers: headers,
                body: Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8), topics: &memo,
                authenticate: { _ in nil }, authorizeBundle: { _ in nil })
            switch (without, with) {
            case (.success(let one), .success(let other)):
                XCTAssertEqual(one.headers, other.headers, topic)
                XCTAssertEqual(one.bundleID, other.bundleID, topic)
            case (.failure(let one), .failure(let other)):
                XCTAssertEqual(one.reason, other.reason, topic)
                XCTAssertEqual(one.message, other.message, topic)
            default:
                XCTFail("\(topic): \(without) against \(with)")
            }
        }
    }
}
