import XCTest

@testable import RelayCore

final class APNsHeaderFieldsTests: XCTestCase {
    /// Every name the rules read, looked up through the one-pass index and by a plain scan, agree.
    func testKnownNamesAreFoundAsByAScan() {
        let fields = APNsHeaderName.allCases.enumerated().map { (name: $0.element.rawValue, value: "v\($0.offset)") }
        let headers = APNsHeaderFields(fields)
        for (offset, name) in APNsHeaderName.allCases.enumerated() {
            XCTAssertEqual(headers[name], "v\(offset)", name.rawValue)
            XCTAssertEqual(headers[name.rawValue], "v\(offset)", name.rawValue)
        }
        XCTAssertNil(headers.firstDuplicateName())
    }

    func testNamesThatResembleKnownOnesAreNotThem() {
        let lookalikes = [
            "apns-iD", "apns-ie", "apns-topix", "authorizatiom", "apns-priorit", "apns-push-typf", "apns-unique-ie",
            "apns-expiratiom", "apns-channel-ie", "apns-request-ie", "apns-collapse-ie", "", "a",
        ]
        for name in lookalikes { XCTAssertNil(APNsHeaderName(rawValue: name), name) }
        let headers = APNsHeaderFields([(name: "apns-topix", value: "x"), (name: "x-custom", value: "y")])
        XCTAssertNil(headers[APNsHeaderName.topic])
        XCTAssertEqual(headers["apns-topix"], "x")
        XCTAssertEqual(headers["x-custom"], "y")
        XCTAssertNil(headers["x-other"])
    }

    func testUppercaseNamesAreLowercasedThenIndexed() {
        let headers = APNsHeaderFields([
            (name: "x-Custom", value: "1"), (name: "APNS-Topic", value: "com.example.app"),
            (name: "apns-id", value: "2"),
        ])
        XCTAssertEqual(headers.fields.map(\.name), ["x-custom", "apns-topic", "apns-id"])
        XCTAssertEqual(headers[APNsHeaderName.topic], "com.example.app")
        XCTAssertEqual(headers[APNsHeaderName.id], "2")
        XCTAssertEqual(headers["x-custom"], "1")
    }

    func testFirstValueWinsAndRepeatsAreFound() {
        let known = APNsHeaderFields([
            (name: "apns-topic", value: "first"), (name: "apns-id", value: "x"), (name: "apns-topic", value: "second"),
        ])
        XCTAssertEqual(known[APNsHeaderName.topic], "first")
        XCTAssertEqual(known.firstDuplicateName(), "apns-topic")

        let unknown = APNsHeaderFields([
            (name: "x-a", value: "1"), (name: "apns-topic", value: "t"), (name: "x-a", value: "2"),
        ])
        XCTAssertEqual(unknown.firstDuplicateName(), "x-a")
        XCTAssertEqual(unknown["x-a"], "1")

        // Mixed case repeats are repeats once lowercased.
        let mixed = APNsHeaderFields([(name: "Apns-Priority", value: "10"), (name: "apns-priority", value: "5")])
        XCTAssertEqual(mixed.firstDuplicateName(), "apns-priority")
        XCTAssertEqual(mixed[APNsHeaderName.priority], "10")
    }

    func testKeySetMatchesWholeNamesOnly() {
        let keys = ASCIIKeySet(["event", "alert", "stale-date", "attributes"])
        XCTAssertEqual(keys.index(of: "event"), 0)
        XCTAssertEqual(keys.index(of: "alert"), 1)
        XCTAssertEqual(keys.index(of: "stale-date"), 2)
        XCTAssertEqual(keys.index(of: "attributes"), 3)
        for other in ["Event", "even", "events", "", "attribute\u{301}s", "stale-dat\u{E9}"] {
            XCTAssertNil(keys.index(of: other), other)
        }
    }

    /// Names are found among those of their own length, in any order given, the empty name too.
    func testKeySetFindsEveryNameAmongOthersOfItsLength() {
        let names = ["ccc", "a", "bbb", "", "aaa", "dd", "abc", "x-long-name"]
        let keys = ASCIIKeySet(names)
        for (position, name) in names.enumerated() {
            XCTAssertEqual(keys.index(of: name), position, name)
        }
        for other in [
            "b", "aab", "abd", "bbbb", "x-long-nam", "x-long-names", "x-long-namf", String(repeating: "a", count: 40),
        ] {
            XCTAssertNil(keys.index(of: other), other)
        }
        XCTAssertNil(ASCIIKeySet(["a"]).index(of: ""))
        XCTAssertNil(ASCIIKeySet([]).index(of: "a"))
    }

    /// The byte fast path of `requireLiveActivityBundleID` answers as the checks it replaces.
    func testLiveActivityBundleIDAgreesWithTheTopicRules() {
        let suffix = APNsTopic.liveActivitySuffix
        let topics = [
            "com.example.app" + suffix, "a" + suffix, suffix, "." + suffix, "com..app" + suffix, "com.app." + suffix,
            "com.app.push-type.widgets" + suffix, "com.app.voip" + suffix, "com.app.complication" + suffix,
            "com.app.pushkit.fileprovider" + suffix, "com.app x" + suffix, "com.caf\u{E9}" + suffix, "com.example.app",
            "com.example.app.push-type.liveactivit", "com.example.app.push-type.liveactivity.voip",
            "com.app-2.push-typeX" + suffix,
        ]
        for topic in topics {
            let value = APNsTopic(rawValue: topic)
            let expected: String? = {
                guard let bundle = value.liveActivityBundleID, APNsTopic.isValidBundleID(bundle),
                    APNsTopic(rawValue: bundle).pushTypeSuffix == nil
                else { return nil }
                return bundle
            }()
            switch value.requireLiveActivityBundleID() {
            case .success(let bundle): XCTAssertEqual(bundle, expected, topic)
            case .failure(let error):
                XCTAssertNil(expected, topic)
                XCTAssertEqual(error.reason, .topicDisallowed, topic)
            }
        }
    }

    /// A UUID is 8-4-4-4-12 hex digits in either case: every position is checked.
    func testMessageIDFormIsCheckedAtEveryPosition() {
        let valid = "123e4567-e89b-12d3-a456-4266554400a0"
        XCTAssertTrue(APNsMessageID.isCanonicalForm(valid))
        XCTAssertTrue(APNsMessageID.isCanonicalForm(valid.uppercased()))
        let bytes = Array(valid.utf8)
        for offset in bytes.indices {
            var broken = bytes
            broken[offset] = bytes[offset] == UInt8(ascii: "-") ? UInt8(ascii: "0") : UInt8(ascii: "g")
            XCTAssertFalse(APNsMessageID.isCanonicalForm(String(decoding: broken, as: UTF8.self)), "offset \(offset)")
        }
        for other in ["", String(valid.dropLast()), valid + "0", "123e4567e-89b-12d3-a456-4266554400a0"] {
            XCTAssertFalse(APNsMessageID.isCanonicalForm(other), other)
        }
    }

    /// Every byte value, at a digit's position and at a hyphen's: only hex digits (either case)
    /// and the hyphen where it belongs pass; only `A`-`F` make a valid ID not lowercase.
    func testMessageIDAcceptsExactlyTheHexDigitsAndReportsUppercaseLetters() {
        let valid = Array("123e4567-e89b-12d3-a456-4266554400a0".utf8)
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for value in 0...255 {
            let byte = UInt8(value)
            for offset in [0, 8, 35] {
                var bytes = valid
                bytes[offset] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                let expected = offset == 8 ? byte == UInt8(ascii: "-") : hex.contains(byte)
                XCTAssertEqual(APNsMessageID.isCanonicalForm(text), expected, "byte \(value) at \(offset)")
                if expected {
                    let uppercase = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F")
                    XCTAssertEqual(APNsMessageID(rawValue: text).isCanonicalLowercase, !uppercase, "byte \(value)")
                }
            }
        }
    }

    /// `apns-expiration` is whole Unix seconds: up to Int64.max, leading zeros allowed, nothing else.
    func testExpirationReadsWholeSecondsOnly() {
        let accepted: [(String, Int64)] = [
            ("0", 0), ("1700000000", 1_700_000_000), ("0001", 1), ("9223372036854775807", .max),
        ]
        for (text, value) in accepted { XCTAssertEqual(try? APNsExpiration.parse(text).get().rawValue, value, text) }
        for text in ["", "-1", "+1", "1.5", " 1", "1 ", "9223372036854775808", "99999999999999999999", "１"] {
            XCTAssertEqual(APNsExpiration.parse(text).failureReason, .badExpirationDate, text)
        }
    }
}

extension Result where Failure == APNsError {
    /// The reason of a failure, nil for a success.
    fileprivate var failureReason: APNsReason? {
        if case .failure(let error) = self { return error.reason }
        return nil
    }
}
