import RelayStore
import XCTest

final class StoreErrorTests: XCTestCase {
    func testDescriptionNamesOperation() {
        XCTAssertEqual(
            StoreError(operation: "open", code: 14, message: "unable to open").description,
            "store open failed (14): unable to open")
    }
}
