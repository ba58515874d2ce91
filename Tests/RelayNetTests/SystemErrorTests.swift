import RelayNet
import XCTest

final class SystemErrorTests: XCTestCase {
    func testDescriptionNamesCallAndErrno() {
        let error = SystemError(call: "bind", errno: 98)
        XCTAssertTrue(error.description.hasPrefix("bind failed: "))
        XCTAssertTrue(error.description.hasSuffix("(errno 98)"))
    }
}
