import RelayCore
import RelayJSON
import XCTest

/// The emulator's wiring of the core: tokens, restore, channels and the order of timed transitions.
final class DeviceEmulatorTests: XCTestCase {
    private let start: UnixSeconds = 1_767_225_600
    private let bundle = "com.example.app"

    private func emulator() -> DeviceEmulator {
        DeviceEmulator(rules: .defaults, ids: SeededIdentifiers(seed: 7), now: start)
    }

    private func push(_ token: String, topic: String? = nil, _ aps: JSONValue, priority: String = "10")
        -> LiveActivityPushRequest?
    {
        let payload: JSONValue = ["aps": aps]
        let headers: [(name: String, value: String)] = [
            ("apns-push-type", "liveactivity"), ("apns-topic", topic ?? bundle + ".push-type.liveactivity"),
            ("apns-priority", priority),
        ]
        return try? LiveActivityPushRequest.validate(
            method: "POST", path: "/3/device/" + token, headers: APNsHeaderFields(headers), body: payload.serialized(),
            parseJSON: { try JSONValue(parsing: $0) }, authenticate: { _ in nil }, authorizeBundle: { _ in nil }
        ).get()
    }

    private func context() -> PushContext { PushContext(apnsId: "a", uniqueId: "u", headers: [:], payload: .null) }

    /// A new emulator restored from the latest document of each subject `emulator` wrote.
    private func restore(_ emulator: inout DeviceEmulator, at now: UnixSeconds) throws -> DeviceEmulator {
        var documents: [(kind: DocumentKind, body: JSONValue)] = []
        var latest: [String: DocumentWrite] = [:]
        for write in emulator.takeEffects().documents { latest["\(write.kind)/\(write.id)"] = write }
        for write in latest.values { if let body = write.body { documents.append((write.kind, body)) } }
        return try DeviceEmulator.restore(
            rules: .defaults, ids: SeededIdentifiers(seed: 9), now: now, nextSeq: emulator.nextSeq,
            documents: documents)
    }

    private func startActivity(
        _ emulator: inout DeviceEmulator, device: String, token: Bool = true, channel: String? = nil
    ) throws -> LiveActivity {
        var body: JSONValue = [
            "deviceId": .string(device), "bundleId": .string(bundle), "attributesType": "A", "attributes": [:],
            "contentState": ["n": 0],
        ]
        if case .object(var members) = body {
            if token { members["pushType"] = "token" }
            if let channel { members["pushType"] = ["channel": .string(channel)] }
            body = .object(members)
        }
        return try emulator.startActivity(body: body, at: start)
    }

    /// A push finds its activity by the whole token, however the provider spells it: in uppercase
    /// it is the same token; one digit off anywhere is `BadDeviceToken`, and after a restore the
    /// token still finds the activity.
    func testDeviceShowsItsPushToStartBudgetsButNotItsKeyHash() throws {
        var device = EmulatedDevice(id: "d1", createdAt: start, keyHash: "secret-hash")
        var budget = PushToStartBudget(rules: .defaults, at: start)
        XCTAssertTrue(budget.take(rules: .defaults, at: start))
        device.pushToStartBudgets[bundle] = budget
        let shown = try XCTUnwrap(device.json["pushToStartBudgets"]?[bundle])
        XCTAssertEqual(shown["tokens"]?.doubleValue, Double(RelayRules.defaults.pushToStartBudget.capacity - 1))
        XCTAssertNil(device.json["keyHash"])
        XCTAssertEqual(device.storedJSON["keyHash"]?.stringValue, "secret-hash")
        XCTAssertEqual(try EmulatedDevice.fromJSON(device.storedJSON).pushToStartBudgets[bundle], budget)
    }

    func testAPushFindsItsActivityByTheWholeToken() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "k", at: start)
        let activity = try startActivity(&emulator, device: device.id)
        let token = try XCTUnwrap(activity.pushToken)
        XCTAssertEqual(token.utf8.count, 80)
        let update: JSONValue = ["event": "update", "timestamp": .number(start + 1), "content-state": ["n": 1]]
        for spelling in [token, token.uppercased()] {
            let request = try XCTUnwrap(push(spelling, update))
            let result = emulator.deliver(request, context: context(), at: start + 1)
            XCTAssertEqual(result.status, 200, spelling)
            XCTAssertEqual(result.record.activityId, activity.id, spelling)
        }
        let digits = Array(token.utf8)
        for position in [0, 31, 32, 79] {
            var changed = digits
            changed[position] = changed[position] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            let request = try XCTUnwrap(push(String(decoding: changed, as: UTF8.self), update))
            let result = emulator.deliver(request, context: context(), at: start + 2)
            XCTAssertEqual(result.error?.reason, .badDeviceToken, "digit \(position)")
        }
        var restored = try restore(&emulator, at: start + 3)
        let request = try XCTUnwrap(
            push(token, ["event": "update", "timestamp": .number(start + 3), "content-state": ["n": 2]]))
        let result = restored.deliver(request, context: context(), at: start + 3)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.record.activityId, activity.id)
    }

    /// The per-token burst: `tokenBurst.capacity` pushes in a row, then `429 TooManyRequests`
    /// until a token has come back. The bucket is full however long after the token's issue the
    /// first push comes, and a burst rule changed before that push is the one it follows.
    func testTheBurstLimitCountsFromTheFirstPushUnderTheRulesThen() throws {
        var rules = RelayRules.defaults
        rules.tokenBurst = BucketRule(capacity: 3, refillInterval: 10)
        var emulator = DeviceEmulator(rules: rules, ids: SeededIdentifiers(seed: 7), now: start)
        let device = emulator.createDevice(keyHash: "k", at: start)
        let token = try XCTUnwrap(try startActivity(&emulator, device: device.id).pushToken)
        emulator.rules.tokenBurst = BucketRule(capacity: 2, refillInterval: 10)
        let later = start + 3600
        func send(at time: UnixSeconds) throws -> PushResult {
            let request = try XCTUnwrap(
                push(token, ["event": "update", "timestamp": .number(time), "content-state": ["n": 1]]))
            return emulator.deliver(request, context: context(), at: time)
        }
        XCTAssertEqual(try send(at: later).status, 200)
        XCTAssertEqual(try send(at: later).status, 200)
        let refused = try send(at: later)
        XCTAssertEqual(refused.error?.reason, .tooManyRequests)
        XCTAssertEqual(refused.error?.message.contains("retry after"), true, refused.error?.message ?? "")
        XCTAssertEqual(try send(at: later + 10).status, 200)
        XCTAssertEqual(try send(at: later + 10).error?.reason, .tooManyRequests)
    }

    /// Pushes draw on the budget the app's setting gives: 10 an hour, then 60 once frequent
    /// pushes are turned on (the running activity's budget is resized), and 10 again when off.
    func testPushesFollowTheFrequentPushesSetting() throws {
        var rules = RelayRules.defaults
        rules.tokenBurst = BucketRule(capacity: 1000, refillInterval: 1)  // only the update budget limits here
        var emulator = DeviceEmulator(rules: rules, ids: SeededIdentifiers(seed: 7), now: start)
        let device = emulator.createDevice(keyHash: "h", at: start)
        let token = try XCTUnwrap(try startActivity(&emulator, device: device.id).pushToken)
        func outcomes(_ count: Int, from first: Int, at time: UnixSeconds) throws -> [PushOutcome] {
            try (first..<first + count).map { step in
                let update: JSONValue = [
                    "event": "update", "timestamp": .number(time), "content-state": ["n": .int(Int64(step))],
                ]
                return emulator.deliver(try XCTUnwrap(push(token, update)), context: context(), at: time).record.outcome
            }
        }
        XCTAssertEqual(try outcomes(11, from: 0, at: start + 1).filter { $0 == .applied }.count, 10)
        _ = try emulator.updateAppSettings(
            deviceId: device.id, bundleId: bundle, body: ["frequentPushesEnabled": true], at: start + 2)
        // 60 in the hour: 10 before, the update held then (released at once when the budget grew), 49 now.
        XCTAssertEqual(try outcomes(60, from: 100, at: start + 3).filter { $0 == .applied }.count, 49)
        _ = try emulator.updateAppSettings(
            deviceId: device.id, bundleId: bundle, body: ["frequentPushesEnabled": false], at: start + 4)
        XCTAssertEqual(try outcomes(5, from: 200, at: start + 5).filter { $0 == .applied }.count, 0, "over 10 again")
    }

    func testUnknownTokenAndOtherAppsTokenAreRefusedAsAPNsWould() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "h", at: start)
        let activity = try startActivity(&emulator, device: device.id)
        let update: JSONValue = ["event": "update", "timestamp": .number(start), "content-state": ["n": 1]]
        let unknown = emulator.deliver(
            try XCTUnwrap(push(String(repeating: "ab", count: 32), update)), context: context(), at: start)
        XCTAssertEqual(unknown.error?.reason, .badDeviceToken)
        let token = try XCTUnwrap(activity.pushToken)
        let other = emulator.deliver(
            try XCTUnwrap(push(token, topic: "com.other.app.push-type.liveactivity", update)), context: context(),
            at: start)
        XCTAssertEqual(other.error?.reason, .deviceTokenNotForTopic)
        let good = emulator.deliver(try XCTUnwrap(push(token, update)), context: context(), at: start)
        XCTAssertNil(good.error)
        XCTAssertEqual(good.record.outcome, .applied)
        XCTAssertEqual(emulator.activities[activity.id]?.contentState, ["n": 1])
    }

    func testRestoreFromDocumentsGivesTheSameStateAndTimeline() throws {
        var original = emulator()
        let created = original.createDevice(keyHash: "h", at: start)
        let activity = try startActivity(&original, device: created.id)
        _ = try original.scheduleAlarm(
            body: [
                "deviceId": .string(created.id), "bundleId": .string(bundle), "countdownDuration": ["preAlert": 600],
                "presentation": ["alert": ["title": "t"]],
            ], at: start)
        var restored = try restore(&original, at: start)
        XCTAssertEqual(restored.activities[activity.id]?.json, original.activities[activity.id]?.json)
        XCTAssertEqual(restored.alarms.count, 1)
        original.advance(to: start + 9 * 3600)
        restored.advance(to: start + 9 * 3600)
        XCTAssertEqual(
            original.takeEffects().events.map { "\($0.seq) \($0.type) \($0.at)" },
            restored.takeEffects().events.map { "\($0.seq) \($0.type) \($0.at)" })
        let update: JSONValue = ["event": "update", "timestamp": .number(start), "content-state": ["n": 1]]
        let afterEnd = restored.deliver(
            try XCTUnwrap(push(try XCTUnwrap(activity.pushToken), update)), context: context(), at: start + 9 * 3600)
        XCTAssertEqual(afterEnd.error?.reason, .unregistered)
        XCTAssertEqual(afterEnd.error?.timestamp, start + 8 * 3600)
    }

    /// A push is told when its content state's shape differs from the one shown, whichever way
    /// that one got there: a start, a push, the app, a held update released later, or a restore.
    func testShapeHintsCompareWithTheContentStateShownHoweverItWasSet() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "h", at: start)
        let activity = try startActivity(&emulator, device: device.id)
        let token = try XCTUnwrap(activity.pushToken)
        var time = start
        func shapeHint(
            _ emulator: inout DeviceEmulator, _ content: JSONValue, priority: String = "10"
        ) throws -> String? {
            time += 1
            let aps: JSONValue = ["event": "update", "timestamp": .number(time), "content-state": content]
            let result = emulator.deliver(
                try XCTUnwrap(push(token, aps, priority: priority)), context: context(), at: time)
            XCTAssertNil(result.error)
            let prefix = "content-state differs in shape from the previous state (the app may fail to decode it): "
            guard let hint = result.record.hint, hint.hasPrefix(prefix) else { return nil }
            return String(hint.dropFirst(prefix.count))
        }
        XCTAssertNil(try shapeHint(&emulator, ["n": 1]), "the start's shape")
        XCTAssertEqual(try shapeHint(&emulator, ["n": "x"]), "n: was number, now string")
        XCTAssertEqual(try shapeHint(&emulator, ["n": 2]), "n: was string, now number")
        XCTAssertEqual(try shapeHint(&emulator, ["n": 2.5]), nil, "an integer and a fraction are both numbers")
        time += 1
        _ = try emulator.updateActivity(id: activity.id, body: ["contentState": ["n": [], "m": 1]], at: time)
        XCTAssertEqual(try shapeHint(&emulator, ["n": 3]), "m: missing (was number); n: was array, now number")
        XCTAssertNil(try shapeHint(&emulator, ["n": 3]))
        // Held for `lowPriorityDelay` (15 s), then shown: the next push compares with it.
        XCTAssertEqual(
            try shapeHint(&emulator, ["n": [1], "m": 1], priority: "5"),
            "m: new key (number); n: was number, now array; priority 5 is applied opportunistically; held until "
                + "2026-01-01T00:00:23Z"
        )
        time += 60
        emulator.advance(to: time)
        XCTAssertEqual(emulator.activities[activity.id]?.contentState, ["n": [1], "m": 1])
        XCTAssertNil(try shapeHint(&emulator, ["n": [], "m": 2]), "an empty list has no element to compare")
        XCTAssertNil(try shapeHint(&emulator, ["n": [4], "m": 2]))
        var restored = try restore(&emulator, at: time)
        XCTAssertNil(try shapeHint(&restored, ["n": [5], "m": 3]))
        XCTAssertEqual(try shapeHint(&restored, ["n": ["five"], "m": 3]), "n[0]: was number, now string")
    }

    func testStoredBroadcastReachesActivitiesThatJoinLater() throws {
        var emulator = emulator()
        let device = emulator.createDevice(keyHash: "h", at: start)
        let channel = try emulator.createChannel(bundleId: bundle, policy: .mostRecentMessageStored, at: start).get()
        let headers: [(name: String, value: String)] = [
            ("apns-push-type", "liveactivity"), ("apns-channel-id", channel.id), ("apns-priority", "10"),
        ]
        let payload: JSONValue = ["aps": ["event": "update", "timestamp": .number(start), "content-state": ["n": 42]]]
        let channels = emulator.channels
        let request = try BroadcastPushRequest.validate(
            method: "POST", path: "/4/broadcasts/apps/" + bundle, headers: APNsHeaderFields(headers),
            body: payload.serialized(), parseJSON: { try JSONValue(parsing: $0) }, authorize: { _, _ in nil },
            storagePolicy: { id, _ in channels[id.rawValue].map { MessageStoragePolicy(rawValue: $0.storagePolicy) } }
        ).get()
        let early = try startActivity(&emulator, device: device.id, token: false, channel: channel.id)
        let result = emulator.deliverBroadcast(request, context: context(), at: start + 60)
        XCTAssertEqual(result.record.outcome, .broadcast)
        XCTAssertEqual(emulator.activities[early.id]?.contentState, ["n": 42])
        var late = try startActivity(&emulator, device: device.id, token: false, channel: channel.id)
        late = try emulator.activity(late.id)
        XCTAssertEqual(late.contentState, ["n": 42], "a policy-1 channel's last message reaches a late joiner")
        _ = try emulator.deleteChannel(channel.id, bundleId: bundle, at: start + 120).get()
        XCTAssertEqual(emulator.channelIDs(bundleId: bundle), [])
    }

    /// Cluster mode runs a broadcast's steps apart: the channel alone keeps the message; a device
    /// that was lent the channel (never writing it) applies it to its subscribers, only those that
    /// joined since a time when asked; the record counts what was delivered.
    func testBroadcastStepsRunApart() throws {
        var channelSide = emulator()
        let channel = try channelSide.createChannel(bundleId: bundle, policy: .mostRecentMessageStored, at: start).get()
        var deviceSide = emulator()
        deviceSide.lend(channel)
        let device = deviceSide.createDevice(keyHash: "h", at: start)
        let early = try startActivity(&deviceSide, device: device.id, token: false, channel: channel.id)
        let late = try deviceSide.startActivity(
            body: [
                "deviceId": .string(device.id), "bundleId": .string(bundle), "attributesType": "A", "attributes": [:],
                "contentState": ["n": 0], "pushType": ["channel": .string(channel.id)],
            ], at: start + 30)
        XCTAssertFalse(
            deviceSide.takeEffects().documents.contains { $0.kind == .channel }, "a lent channel is not written")
        let headers: [(name: String, value: String)] = [
            ("apns-push-type", "liveactivity"), ("apns-channel-id", channel.id), ("apns-priority", "10"),
        ]
        let payload: JSONValue = [
            "aps": ["event": "update", "timestamp": .number(start + 60), "content-state": ["n": 42]]
        ]
        let request = try BroadcastPushRequest.validate(
            method: "POST", path: "/4/broadcasts/apps/" + bundle, headers: APNsHeaderFields(headers),
            body: payload.serialized(), parseJSON: { try JSONValue(parsing: $0) }, authorize: { _, _ in nil },
            storagePolicy: { _, _ in .mostRecentMessageStored }
        ).get()
        var hints = request.hintNotes
        let message = try XCTUnwrap(channelSide.storeBroadcast(request, hints: &hints, at: start + 60).get())
        XCTAssertEqual(channelSide.channels[channel.id]?.storedMessage, message)
        let delivery = deviceSide.applyBroadcast(
            message, toSubscribersOf: channel.id, priority: 10, joinedSince: start + 30, at: start + 60)
        XCTAssertEqual(delivery, BroadcastDelivery(subscribers: 1, applied: 1))
        XCTAssertEqual(deviceSide.activities[early.id]?.contentState, ["n": 0], "it joined before")
        XCTAssertEqual(deviceSide.activities[late.id]?.contentState, ["n": 42])
        let result = channelSide.finishBroadcast(
            request, context: context(), outcome: .success(delivery), hints: hints, at: start + 60)
        XCTAssertEqual(result.record.outcome, .broadcast)
        XCTAssertNil(result.error)
    }

    /// Channels come back from their documents, a policy-1 channel with its stored message, which
    /// still reaches an activity that joins after the restart, until it expires.
    func testRestoredChannelKeepsItsStoredMessage() throws {
        var original = emulator()
        let device = original.createDevice(keyHash: "h", at: start)
        let keeping = try original.createChannel(bundleId: bundle, policy: .mostRecentMessageStored, at: start).get()
        let plain = try original.createChannel(bundleId: bundle, policy: .noMessageStored, at: start).get()
        for channel in [keeping, plain] {
            let headers: [(name: String, value: String)] = [
                ("apns-push-type", "liveactivity"), ("apns-channel-id", channel.id), ("apns-priority", "10"),
            ]
            let payload: JSONValue = [
                "aps": [
                    "event": "update", "timestamp": .number(start), "content-state": ["n": 7],
                    "stale-date": .number(start + 600),
                ]
            ]
            let channels = original.channels
            let request = try BroadcastPushRequest.validate(
                method: "POST", path: "/4/broadcasts/apps/" + bundle, headers: APNsHeaderFields(headers),
                body: payload.serialized(), parseJSON: { try JSONValue(parsing: $0) }, authorize: { _, _ in nil },
                storagePolicy: { id, _ in channels[id.rawValue].map { MessageStoragePolicy(rawValue: $0.storagePolicy) }
                }
            ).get()
            XCTAssertEqual(
                original.deliverBroadcast(request, context: context(), at: start + 60).record.outcome, .broadcast)
        }
        XCTAssertNotNil(original.channels[keeping.id]?.storedMessage)
        XCTAssertNil(original.channels[plain.id]?.storedMessage)

        var latest: [String: DocumentWrite] = [:]
        for write in original.takeEffects().documents { latest["\(write.kind)/\(write.id)"] = write }
        let documents = latest.values.compactMap { write in write.body.map { (kind: write.kind, body: $0) } }
        XCTAssertEqual(documents.filter { $0.kind == .channel }.count, 2)
        var restored = try DeviceEmulator.restore(
            rules: .defaults, ids: SeededIdentifiers(seed: 9), now: start + 60, nextSeq: original.nextSeq,
            documents: documents)
        XCTAssertEqual(restored.channels, original.channels)

        let joined = try startActivity(&restored, device: device.id, token: false, channel: keeping.id)
        XCTAssertEqual(try restored.activity(joined.id).contentState, ["n": 7], "the stored message survives")
        XCTAssertEqual(try restored.activity(joined.id).staleDate, start + 600)
        let other = try startActivity(&restored, device: device.id, token: false, channel: plain.id)
        XCTAssertEqual(try restored.activity(other.id).contentState, ["n": 0], "policy 0 kept nothing")
    }
}
