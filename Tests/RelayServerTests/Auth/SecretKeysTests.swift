import RelayNet
import RelayServer
import XCTest

final class SecretKeysTests: XCTestCase {
    func testConstantTimeEqualIsPlainEqualityOfBytes() {
        let table: [(String, String, Bool)] = [
            ("", "", true),
            ("abc", "abc", true),
            ("abc", "abd", false),
            ("abc", "ab", false),
            ("ab", "abc", false),
            ("", "a", false),
            ("a\u{0}", "a", false),
            ("\u{e9}", "e\u{301}", false),  // same Character, different bytes
        ]
        for (lhs, rhs, equal) in table {
            XCTAssertEqual(ConstantTime.equal(lhs, rhs), equal, "\(lhs) \(rhs)")
            XCTAssertEqual(ConstantTime.equal(Array(lhs.utf8), Array(rhs.utf8)), equal, "\(lhs) \(rhs)")
        }
        XCTAssertTrue(ConstantTime.equal([UInt8](repeating: 7, count: 1000), [UInt8](repeating: 7, count: 1000)))
        XCTAssertFalse(ConstantTime.equal([UInt8](repeating: 7, count: 1000), [UInt8](repeating: 7, count: 999) + [6]))
    }

    func testAdminKeyMatchesOnlyItself() throws {
        let key = try AdminKey.generate()
        XCTAssertEqual(key.secret.count, 43)
        XCTAssertEqual(try Base64URL.decode(key.secret).count, 32)
        XCTAssertTrue(key.matches(key.secret))
        XCTAssertFalse(key.matches(String(key.secret.dropLast())))
        XCTAssertFalse(key.matches(key.secret + "x"))
        XCTAssertFalse(key.matches(""))
        XCTAssertFalse(key.matches(try AdminKey.generate().secret))
        XCTAssertNotEqual(try AdminKey.generate().secret, try AdminKey.generate().secret)
    }

    func testAdminKeyTextMustBeAVisibleASCIIToken() {
        XCTAssertNotNil(AdminKey(String(repeating: "k", count: 16)))
        XCTAssertNotNil(AdminKey(String(repeating: "k", count: 512)))
        for bad in [
            String(repeating: "k", count: 15), String(repeating: "k", count: 513), "has a space in the key",
            "tab\there-0123456789", "caf\u{e9}-0123456789abcdef",
        ] {
            XCTAssertNil(AdminKey(bad), bad)
        }
    }

    func testKeysNeverPrintTheirSecret() throws {
        let admin = try AdminKey.generate()
        let device = try DeviceKey.generate()
        for (value, secret, name) in [
            (admin as Any, admin.secret, "AdminKey"), (device as Any, device.secret, "DeviceKey"),
        ] {
            XCTAssertEqual(String(describing: value), "\(name)(redacted)")
            XCTAssertEqual(String(reflecting: value), "\(name)(redacted)")
            var dumped = ""
            dump(value, to: &dumped)
            XCTAssertFalse(dumped.contains(secret), dumped)
            XCTAssertFalse("\([value])".contains(secret))
        }
    }

    func testDeviceKeyHashIsSHA256HexAndMatchesInConstantTime() throws {
        XCTAssertEqual(DeviceKey.hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(DeviceKey.hash(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let key = try DeviceKey.generate()
        XCTAssertEqual(key.secret.count, 43)
        XCTAssertEqual(try Base64URL.decode(key.secret).count, 32)
        XCTAssertEqual(key.hash, DeviceKey.hash(key.secret))
        XCTAssertTrue(DeviceKey.matches(key.secret, hash: key.hash))
        XCTAssertFalse(DeviceKey.matches(key.secret + "=", hash: key.hash))
        XCTAssertFalse(DeviceKey.matches(try DeviceKey.generate().secret, hash: key.hash))
        XCTAssertFalse(DeviceKey.matches(key.secret, hash: key.hash.uppercased()))
        XCTAssertFalse(DeviceKey.matches(key.secret, hash: ""))
    }
}
