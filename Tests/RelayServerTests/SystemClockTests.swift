import RelayServer
import XCTest

final class SystemClockTests: XCTestCase {
    func testSystemClockIsNearFoundationsNow() {
        let now = SystemClock().now()
        XCTAssertEqual(now, Date().timeIntervalSince1970, accuracy: 5)
    }
}
