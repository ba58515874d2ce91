import RelayCore
import XCTest

final class DevicePushValidationTests: XCTestCase {
    func testValidPushWithDefaults() throws {
        let request = try validateDevice().get()
        XCTAssertEqual(request.deviceToken.hex, sampleToken)
        XCTAssertEqual(request.bundleID, "com.example.app")
        XCTAssertEqual(request.priority, .immediate)
        XCTAssertNil(request.headers.priorityHeader)
        XCTAssertNil(request.headers.apnsID)
        XCTAssertNil(request.headers.expiration)
        XCTAssertEqual(request.payload.event, .update)
        XCTAssertEqual(request.hints, [])
    }

    func testOptionalHeadersAreRead() throws {
        let request = try validateDevice(
            headers: deviceHeaders([
                "apns-id": "123e4567-e89b-12d3-a456-4266554400a0", "apns-priority": "5",
                "apns-expiration": "0", "apns-collapse-id": "score",
            ])
        ).get()
        XCTAssertEqual(request.headers.apnsID?.rawValue, "123e4567-e89b-12d3-a456-4266554400a0")
        XCTAssertEqual(request.priority, .powerConsiderate)
        XCTAssertEqual(request.headers.expiration, .immediately)
        XCTAssertEqual(request.headers.collapseID?.rawValue, "score")
    }

    /// One fault per row; every reason the device-push rules produce.
    func testEachFaultGetsItsReason() {
        let tooLong = String(repeating: "a", count: 65)
        let cases: [(String, Result<LiveActivityPushRequest, APNsError>, APNsReason)] = [
            ("GET", validateDevice(method: "GET"), .methodNotAllowed),
            ("wrong path", validateDevice(path: "/3/devices/\(sampleToken)"), .badPath),
            ("no slash", validateDevice(path: "/3/device"), .badPath),
            ("empty token", validateDevice(path: "/3/device/"), .missingDeviceToken),
            ("non-hex", validateDevice(path: "/3/device/" + String(repeating: "zz", count: 32)), .badDeviceToken),
            ("odd", validateDevice(path: "/3/device/" + sampleToken + "a"), .badDeviceToken),
            ("short", validateDevice(path: "/3/device/abcd"), .badDeviceToken),
            ("huge", validateDevice(path: "/3/device/" + String(repeating: "ab", count: 201)), .badDeviceToken),
            ("extra segment", validateDevice(path: "/3/device/\(sampleToken)/x"), .badDeviceToken),
            (
                "auth", validateDevice(authenticate: { _ in APNsError(.missingProviderToken, "none") }),
                .missingProviderToken
            ),
            (
                "duplicate",
                validateDevice(headers: deviceHeaders(extra: [("apns-priority", "5"), ("apns-priority", "10")])),
                .duplicateHeaders
            ),
            ("push type alert", validateDevice(headers: deviceHeaders(["apns-push-type": "alert"])), .invalidPushType),
            (
                "push type case", validateDevice(headers: deviceHeaders(["apns-push-type": "LiveActivity"])),
                .invalidPushType
            ),
            ("no topic", validateDevice(headers: deviceHeaders(["apns-topic": nil])), .missingTopic),
            ("empty topic", validateDevice(headers: deviceHeaders(["apns-topic": ""])), .missingTopic),
            (
                "bad topic", validateDevice(headers: deviceHeaders(["apns-topic": "com..app.push-type.liveactivity"])),
                .badTopic
            ),
            ("topic space", validateDevice(headers: deviceHeaders(["apns-topic": "com.app x"])), .badTopic),
            ("no suffix", validateDevice(headers: deviceHeaders(["apns-topic": "com.example.app"])), .topicDisallowed),
            (
                "voip suffix", validateDevice(headers: deviceHeaders(["apns-topic": "com.example.app.voip"])),
                .topicDisallowed
            ),
            (
                "bare suffix", validateDevice(headers: deviceHeaders(["apns-topic": "push-type.liveactivity"])),
                .topicDisallowed
            ),
            (
                "bundle refused",
                validateDevice(authorizeBundle: { _ in APNsError(.topicDisallowed, "not this key's") }),
                .topicDisallowed
            ),
            ("apns-id", validateDevice(headers: deviceHeaders(["apns-id": "not-a-uuid"])), .badMessageId),
            (
                "apns-id braces",
                validateDevice(headers: deviceHeaders(["apns-id": "{123e4567-e89b-12d3-a456-4266554400a0}"])),
                .badMessageId
            ),
            (
                "apns-id no hyphens",
                validateDevice(headers: deviceHeaders(["apns-id": "123e4567e89b12d3a4564266554400a0"])), .badMessageId
            ),
            ("priority", validateDevice(headers: deviceHeaders(["apns-priority": "7"])), .badPriority),
            (
                "expiration text", validateDevice(headers: deviceHeaders(["apns-expiration": "soon"])),
                .badExpirationDate
            ),
            (
                "expiration negative", validateDevice(headers: deviceHeaders(["apns-expiration": "-1"])),
                .badExpirationDate
            ),
            (
                "expiration fraction", validateDevice(headers: deviceHeaders(["apns-expiration": "1.5"])),
                .badExpirationDate
            ),
            (
                "expiration overflow",
                validateDevice(headers: deviceHeaders(["apns-expiration": "99999999999999999999"])), .badExpirationDate
            ),
            ("collapse", validateDevice(headers: deviceHeaders(["apns-collapse-id": tooLong])), .badCollapseId),
            ("no body", validateDevice(body: nil), .payloadEmpty),
            ("empty body", validateDevice(body: []), .payloadEmpty),
            ("too large", validateDevice(body: [UInt8](repeating: 32, count: 4097)), .payloadTooLarge),
            ("not JSON", validateDevice(json: nil), .badRequestPayload),
            ("array", validateDevice(json: [1, 2]), .badRequestPayload),
            ("no aps", validateDevice(json: ["event": "update"]), .badRequestPayload),
            ("aps string", validateDevice(json: ["aps": "update"]), .badRequestPayload),
            ("no event", validateDevice(json: ["aps": ["timestamp": 1]]), .badRequestPayload),
            ("event number", validateDevice(json: ["aps": ["event": 1]]), .badRequestPayload),
            (
                "timestamp string", validateDevice(json: ["aps": ["event": "update", "timestamp": "1"]]),
                .badRequestPayload
            ),
            (
                "state array", validateDevice(json: ["aps": ["event": "update", "content-state": [1]]]),
                .badRequestPayload
            ),
            ("alert number", validateDevice(json: ["aps": ["event": "start", "alert": 3]]), .badRequestPayload),
            (
                "input token 2", validateDevice(json: ["aps": ["event": "start", "input-push-token": 2]]),
                .badRequestPayload
            ),
        ]
        for (name, result, expected) in cases {
            XCTAssertEqual(reason(result), expected, name)
            if case .failure(let error) = result {
                XCTAssertEqual(error.status, expected.status, name)
                XCTAssertFalse(error.message.isEmpty, name)
            }
        }
    }

    func testBoundaryValuesAreAccepted() {
        let cases: [(String, Result<LiveActivityPushRequest, APNsError>)] = [
            ("4096 bytes", validateDevice(body: [UInt8](repeating: 32, count: 4096))),
            (
                "64-byte collapse id",
                validateDevice(headers: deviceHeaders(["apns-collapse-id": String(repeating: "c", count: 64)]))
            ),
            ("empty collapse id", validateDevice(headers: deviceHeaders(["apns-collapse-id": ""]))),
            ("priority 1", validateDevice(headers: deviceHeaders(["apns-priority": "1"]))),
            ("past expiration", validateDevice(headers: deviceHeaders(["apns-expiration": "1"]))),
            ("16-byte token", validateDevice(path: "/3/device/" + String(repeating: "0f", count: 16))),
            ("200-byte token", validateDevice(path: "/3/device/" + String(repeating: "0f", count: 200))),
            ("uppercase token", validateDevice(path: "/3/device/" + sampleToken.uppercased())),
            (
                "uppercase apns-id",
                validateDevice(headers: deviceHeaders(["apns-id": "123E4567-E89B-12D3-A456-4266554400A0"]))
            ),
            ("no push type", validateDevice(headers: deviceHeaders(["apns-push-type": nil]))),
            (
                "hyphenated bundle",
                validateDevice(headers: deviceHeaders(["apns-topic": "com.ex-ample.app.push-type.liveactivity"]))
            ),
        ]
        for (name, result) in cases {
            XCTAssertNil(reason(result), name)
        }
    }

    func testUppercaseTokenIsNormalized() throws {
        let request = try validateDevice(path: "/3/device/" + sampleToken.uppercased()).get()
        XCTAssertEqual(request.deviceToken.hex, sampleToken)
    }

    func testLenientHeadersEarnHints() throws {
        let request = try validateDevice(
            headers: deviceHeaders([
                "apns-push-type": nil, "apns-id": "123E4567-E89B-12D3-A456-4266554400A0", "apns-priority": "1",
            ])
        ).get()
        XCTAssertEqual(request.headers.apnsID?.rawValue, "123E4567-E89B-12D3-A456-4266554400A0", "echoed as sent")
        XCTAssertEqual(request.headers.pushType, .liveActivity)
        XCTAssertEqual(
            request.hints.map(\.code), ["pushTypeMissing", "messageIDUppercase", "priorityOneOnLiveActivity"])
    }

    /// Two faults: the earlier check's reason wins.
    func testFirstFailingCheckWins() {
        let badBody: [UInt8] = []
        let cases: [(String, Result<LiveActivityPushRequest, APNsError>, APNsReason)] = [
            ("method before path", validateDevice(method: "PUT", path: "/nope"), .methodNotAllowed),
            (
                "path before auth",
                validateDevice(path: "/3/device/", authenticate: { _ in APNsError(.invalidProviderToken, "x") }),
                .missingDeviceToken
            ),
            (
                "auth before headers",
                validateDevice(
                    headers: deviceHeaders(["apns-topic": nil]),
                    authenticate: { _ in APNsError(.expiredProviderToken, "x") }),
                .expiredProviderToken
            ),
            (
                "duplicates before push type",
                validateDevice(headers: deviceHeaders(["apns-push-type": "alert"], extra: [("apns-topic", "x")])),
                .duplicateHeaders
            ),
            (
                "push type before topic",
                validateDevice(headers: deviceHeaders(["apns-push-type": "alert", "apns-topic": nil])), .invalidPushType
            ),
            (
                "topic before bundle auth",
                validateDevice(
                    headers: deviceHeaders(["apns-topic": "com.example.app"]),
                    authorizeBundle: { _ in APNsError(.forbidden, "x") }), .topicDisallowed
            ),
            (
                "bundle auth before apns-id",
                validateDevice(
                    headers: deviceHeaders(["apns-id": "x"]), authorizeBundle: { _ in APNsError(.forbidden, "x") }),
                .forbidden
            ),
            (
                "apns-id before priority",
                validateDevice(headers: deviceHeaders(["apns-id": "x", "apns-priority": "7"])), .badMessageId
            ),
            (
                "priority before expiration",
                validateDevice(headers: deviceHeaders(["apns-priority": "7", "apns-expiration": "x"])), .badPriority
            ),
            (
                "expiration before collapse",
                validateDevice(
                    headers: deviceHeaders([
                        "apns-expiration": "x", "apns-collapse-id": String(repeating: "c", count: 65),
                    ])), .badExpirationDate
            ),
            (
                "collapse before body",
                validateDevice(
                    headers: deviceHeaders(["apns-collapse-id": String(repeating: "c", count: 65)]), body: badBody),
                .badCollapseId
            ),
            (
                "size before JSON", validateDevice(body: [UInt8](repeating: 32, count: 5000), json: nil),
                .payloadTooLarge
            ),
        ]
        for (name, result, expected) in cases {
            XCTAssertEqual(reason(result), expected, name)
        }
    }

    func testHooksSeeAuthorizationAndBundle() {
        var seenAuthorization: String?
        var seenBundle: String?
        _ = validateDevice(
            authenticate: {
                seenAuthorization = $0
                return nil
            },
            authorizeBundle: {
                seenBundle = $0
                return nil
            })
        XCTAssertEqual(seenAuthorization, "bearer x")
        XCTAssertEqual(seenBundle, "com.example.app")

        var called = false
        _ = validateDevice(
            method: "GET",
            authenticate: { _ in
                called = true
                return nil
            })
        XCTAssertFalse(called, "authentication runs after the route checks")
    }

    func testMalformedJSONNamesTheParserError() {
        guard case .failure(let error) = validateDevice(json: nil) else { return XCTFail("accepted") }
        XCTAssertTrue(error.message.contains("unexpected byte at 0"), error.message)
    }

    func testParserRunsOnlyOnBodiesWithinTheLimit() {
        var parsed = false
        let result = LiveActivityPushRequest.validate(
            method: "POST", path: "/3/device/\(sampleToken)", headers: deviceHeaders(),
            body: [UInt8](repeating: 32, count: 4097),
            parseJSON: { _ in
                parsed = true
                return sampleUpdate
            },
            authenticate: { _ in nil }, authorizeBundle: { _ in nil })
        XCTAssertEqual(reason(result), .payloadTooLarge)
        XCTAssertFalse(parsed)
    }

    func testTopicHelpers() {
        let topic = APNsTopic.liveActivity(bundleID: "com.example.app")
        XCTAssertEqual(topic.rawValue, "com.example.app.push-type.liveactivity")
        XCTAssertEqual(topic.liveActivityBundleID, "com.example.app")
        XCTAssertNil(APNsTopic(rawValue: "com.example.app").liveActivityBundleID)
        XCTAssertEqual(APNsTopic(rawValue: "com.example.app.push-type.widgets").pushTypeSuffix, ".push-type.widgets")
        XCTAssertEqual(APNsTopic(rawValue: "com.example.app.complication").pushTypeSuffix, ".complication")
        XCTAssertNil(APNsTopic(rawValue: "com.example.app").pushTypeSuffix)
        XCTAssertTrue(APNsTopic.isValidBundleID("com.example.app-2"))
        for bad in [
            "", ".com", "com.", "com..app", "com/app", "com_app", "cöm.app", String(repeating: "a", count: 256),
        ] {
            XCTAssertFalse(APNsTopic.isValidBundleID(bad), bad)
        }
    }

    /// The bundle-ID check against its definition, for every byte value at the start, middle and
    /// end, and for every arrangement of dots and letters up to six bytes.
    func testBundleIDCheckAgreesWithItsDefinition() {
        func expected(_ bytes: [UInt8]) -> Bool {
            guard !bytes.isEmpty, bytes.count <= APNsTopic.maxLength else { return false }
            let allowed = bytes.allSatisfy { byte in
                byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            }
            let components = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            return allowed && components.allSatisfy { !$0.isEmpty }
        }
        func check(_ bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertEqual(APNsTopic.isValidBundleID(text), expected(Array(text.utf8)), "\(Array(text.utf8))")
        }
        let base = Array("com.example.app".utf8)
        for value in 0...255 {
            for offset in [0, 3, 7, base.count - 1] {
                var bytes = base
                bytes[offset] = UInt8(value)
                check(bytes)
            }
        }
        let alphabet = Array(".a-".utf8)
        var arrangements: [[UInt8]] = [[]]
        for _ in 1...6 {
            arrangements = arrangements.flatMap { prefix in alphabet.map { prefix + [$0] } }
            arrangements.forEach(check)
        }
        check(Array(repeating: UInt8(ascii: "a"), count: 255))
        check(Array(repeating: UInt8(ascii: "a"), count: 256))
    }

    /// Every byte value, at every place of a word's eight (the token is read eight bytes at a
    /// time), in the middle and at the end, of tokens whose length is and is not a multiple of
    /// eight: hex digits of either case are accepted (uppercase made lowercase), anything else is
    /// refused naming its offset.
    func testEveryByteAtEveryPlaceOfAToken() {
        let mixed = String(repeating: "09afAF", count: 8) + "0f"
        for base in [Array(sampleToken.utf8), Array(sampleToken.utf8.prefix(38)), Array(mixed.utf8)] {
            checkEveryByteAtEveryPlace(of: base)
        }
    }

    private func checkEveryByteAtEveryPlace(of base: [UInt8]) {
        for value in 0...255 {
            let byte = UInt8(value)
            let isHex = (0x30...0x39).contains(value) || (0x61...0x66).contains(value) || (0x41...0x46).contains(value)
            for offset in Array(0..<16) + [base.count / 2] + Array(base.count - 8..<base.count) {
                var bytes = base
                bytes[offset] = byte
                // A byte of 0x80 or more alone is not UTF-8; the String repairs it into three bytes.
                let text = String(decoding: bytes, as: UTF8.self)
                switch APNsDeviceToken.parse(text) {
                case .success(let token):
                    XCTAssertTrue(isHex, "byte \(value) at \(offset) was accepted")
                    let lowered = bytes.map { (0x41...0x46).contains($0) ? $0 + 0x20 : $0 }
                    XCTAssertEqual(token.hex, String(decoding: lowered, as: UTF8.self))
                case .failure(let error):
                    XCTAssertFalse(isHex, "byte \(value) at \(offset): \(error.message)")
                    XCTAssertEqual(error.reason, .badDeviceToken)
                    if value < 0x80 {
                        XCTAssertTrue(error.message.hasSuffix("at offset \(offset)"), error.message)
                    }
                }
            }
        }
    }

    func testDeviceTokenAndMessageIDRoundTrip() {
        let token = APNsDeviceToken(bytes: Array(0..<32))
        XCTAssertEqual(token.hex.prefix(8), "00010203")
        XCTAssertEqual(token.bytes, Array(0..<32))
        XCTAssertEqual(try APNsDeviceToken.parse(token.hex).get(), token)

        let id = APNsMessageID(randomBytes: Array(repeating: 0xFF, count: 16))
        XCTAssertEqual(id.rawValue, "ffffffff-ffff-4fff-bfff-ffffffffffff")
        XCTAssertTrue(id.isCanonicalLowercase)
        XCTAssertEqual(try APNsMessageID.parse(id.rawValue).get(), id)
    }

    func testMissingSuffixMessageShowsTheFix() {
        guard case .failure(let error) = validateDevice(headers: deviceHeaders(["apns-topic": "com.example.app"]))
        else {
            return XCTFail("accepted")
        }
        XCTAssertTrue(error.message.contains("'com.example.app.push-type.liveactivity'"), error.message)
    }
}
