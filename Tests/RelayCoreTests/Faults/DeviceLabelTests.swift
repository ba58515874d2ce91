import RelayCore
import XCTest

/// Device names and models: what `DeviceLabel` accepts, and that a device keeps them.
final class DeviceLabelTests: XCTestCase {
    func testPrintableNamesPass() throws {
        XCTAssertEqual(try DeviceLabel.parse("Ana’s iPhone 🍎", key: "name"), "Ana’s iPhone 🍎")
        XCTAssertEqual(try DeviceLabel.parse("Zoë", key: "name"), "Zoë")
        XCTAssertNil(try DeviceLabel.parse(nil, key: "name"))
        XCTAssertNil(try DeviceLabel.parse(.null, key: "name"))
    }

    func testControlFormatAndLineSeparatorsFail() {
        for text in ["a\tb", "a\u{7F}", "a\u{200E}", "a\u{2028}b", "a\u{E000}"] {
            XCTAssertThrowsError(try DeviceLabel.parse(.string(text), key: "name"), text.debugDescription)
        }
    }

    func testADeviceKeepsItsNameThroughStorage() throws {
        let device = EmulatedDevice(id: "d", createdAt: 1, keyHash: "h", name: "Kitchen iPad", model: "iPad Air")
        let restored = try EmulatedDevice.fromJSON(device.storedJSON)
        XCTAssertEqual(restored, device)
        XCTAssertEqual(device.json["model"], "iPad Air")
    }
}
