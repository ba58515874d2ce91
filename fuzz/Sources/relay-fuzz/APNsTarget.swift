import Foundation
import RelayCore
import RelayHTTP
import RelayJSON

/// The provider API's requests with a hostile body, through validation and, for those that pass,
/// the emulated device. The first input byte picks the route and the header variants; the rest
/// is the body.
enum APNsTarget {
    static let bundleId = "com.example.fuzz"
    static let start: UnixSeconds = 1_750_000_000

    /// A device with a running activity (update token), a push-to-start token and a channel
    /// with a stored message policy, as each input finds them.
    struct Setup {
        var emulator: DeviceEmulator
        var activityToken: String
        var startToken: String
        var channelId: String
    }

    static let setup: Setup = {
        let ids = SeededIdentifiers(seed: 0xF022)
        var emulator = DeviceEmulator(rules: .defaults, ids: ids, now: start)
        let device = emulator.createDevice(keyHash: "fuzz", at: start)
        let body: JSONValue = [
            "deviceId": .string(device.id), "bundleId": .string(bundleId), "attributesType": "FuzzAttributes",
            "attributes": ["name": "fuzz"], "contentState": ["step": 0, "label": "zero"], "pushType": "token",
        ]
        guard let activity = try? emulator.startActivity(body: body, at: start), let activityToken = activity.pushToken,
            let startToken = try? emulator.pushToStartToken(
                deviceId: device.id, bundleId: bundleId, attributesType: "FuzzAttributes", at: start),
            case .success(let channel) = emulator.createChannel(
                bundleId: bundleId, policy: .mostRecentMessageStored, at: start)
        else { fatalError("the fuzz target's device could not be set up") }
        _ = emulator.takeEffects()
        return Setup(
            emulator: emulator, activityToken: activityToken, startToken: startToken.token, channelId: channel.id)
    }()

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let body = Array(bytes.dropFirst())
        var setup = setup
        let now = start + 60
        var headers: [(name: String, value: String)] = [("authorization", "bearer fuzz")]
        if selector & 0x04 == 0 { headers.append(("apns-push-type", "liveactivity")) }
        headers.append(("apns-topic", bundleId + (selector & 0x08 == 0 ? ".push-type.liveactivity" : "")))
        headers.append(("apns-priority", selector & 0x10 == 0 ? "10" : "5"))
        if selector & 0x20 != 0 { headers.append(("apns-expiration", "0")) }
        let context = PushContext(
            apnsId: "8e8c4f48-35e2-4b3d-9b5d-5c9f7c1b2a01", uniqueId: "1d3b5f7a-1111-4222-8333-944455556666",
            headers: .fields(headers), payload: .json(body))
        let result: PushResult
        switch selector & 0x03 {
        case 0, 1:
            let token = selector & 0x03 == 0 ? setup.activityToken : setup.startToken
            let validated = LiveActivityPushRequest.validate(
                method: "POST", path: LiveActivityPushRequest.pathPrefix + token, headers: APNsHeaderFields(headers),
                body: body, authenticate: { _ in nil }, authorizeBundle: { _ in nil })
            checkSameAsGeneralParse(validated, token: token, headers: headers, body: body)
            guard case .success(let push) = validated else { return }
            result = setup.emulator.deliver(push, context: context, at: now)
        case 2:
            var broadcastHeaders = headers
            broadcastHeaders.append(("apns-channel-id", setup.channelId))
            let validated = BroadcastPushRequest.validate(
                method: "POST", path: BroadcastPushRequest.pathPrefix + bundleId,
                headers: APNsHeaderFields(broadcastHeaders), body: body, parseJSON: { try JSONValue(parsing: $0) },
                authorize: { _, _ in nil }, storagePolicy: { _, _ in .mostRecentMessageStored })
            guard case .success(let push) = validated else { return }
            result = setup.emulator.deliverBroadcast(push, context: context, at: now)
        default:
            _ = ChannelManagementRequest.validate(
                method: selector & 0x40 == 0 ? "POST" : "DELETE", path: "/1/apps/\(bundleId)/channels",
                headers: APNsHeaderFields(headers), body: body, parseJSON: { try JSONValue(parsing: $0) },
                authorize: { _, _ in nil })
            return
        }
        _ = result.status
        checkEffects(&setup.emulator)
        setup.emulator.advance(to: now + 13 * 3600)
        checkEffects(&setup.emulator)
    }

    /// The provider API's reading of a body (member by member, a content state kept as its text
    /// when canonical) must answer as the general parser does, and a content state must be
    /// written with the same bytes either way.
    static func checkSameAsGeneralParse(
        _ validated: Result<LiveActivityPushRequest, APNsError>, token: String,
        headers: [(name: String, value: String)], body: [UInt8]
    ) {
        let general = LiveActivityPushRequest.validate(
            method: "POST", path: LiveActivityPushRequest.pathPrefix + token, headers: APNsHeaderFields(headers),
            body: body, parseJSON: { try JSONValue(parsing: $0) }, authenticate: { _ in nil },
            authorizeBundle: { _ in nil })
        switch (validated, general) {
        case (.success(let fast), .success(let slow)):
            guard fast.payload == slow.payload else { fatalError("the payload differs from the general parse") }
            let written = fast.payload.contentState.map { JSONValue.object($0).serialized() }
            guard written == slow.payload.contentState.map({ JSONValue.object($0).serialized() }) else {
                fatalError("the content state is written otherwise than the general parse's")
            }
        case (.failure(let fast), .failure(let slow)):
            guard fast == slow else { fatalError("refused as \(fast), the general parse as \(slow)") }
        default:
            fatalError("validated \(validated), the general parse \(general)")
        }
    }

    /// Every event, document and push record the emulator would store must be JSON.
    static func checkEffects(_ emulator: inout DeviceEmulator) {
        let serialized = emulator.takeEffects().serialized()
        for bytes in serialized.events + serialized.pushRecords + serialized.documents.compactMap({ $0 }) {
            requireJSON(bytes, "a record the emulator wrote")
        }
    }
}
