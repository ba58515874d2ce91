import Foundation
import RelayCore
import XCTest

final class VirtualClockTests: XCTestCase {
    private let start: UnixSeconds = 1_700_000_000

    func testNewClockStartsAtTheRealTimeAndStandsStill() {
        let clock = VirtualClock(startingAt: start)
        XCTAssertEqual(clock.rate, 0)
        XCTAssertEqual(clock.now(real: start), start)
        XCTAssertEqual(clock.now(real: start + 3_600), start)
    }

    func testAdvanceMovesForwardFromTheCurrentReading() throws {
        var clock = VirtualClock(startingAt: start)
        try clock.advance(by: 8 * 3_600, real: start + 5)
        XCTAssertEqual(clock.now(real: start + 10), start + 8 * 3_600)
        try clock.advance(by: 0, real: start + 20)
        XCTAssertEqual(clock.now(real: start + 20), start + 8 * 3_600)
    }

    func testAdvanceRefusesNegativeAndNonFiniteAmounts() {
        var clock = VirtualClock(startingAt: start)
        for amount: Double in [-1, -.leastNonzeroMagnitude, .nan, .infinity] {
            XCTAssertThrowsError(try clock.advance(by: amount, real: start)) { error in
                guard case .invalidAdvance = error as? ClockError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertEqual(clock, VirtualClock(startingAt: start))
    }

    func testSetMovesForwardButNeverBackwards() throws {
        var clock = VirtualClock(startingAt: start)
        try clock.set(start + 100, real: start)
        try clock.set(start + 100, real: start + 1)
        XCTAssertEqual(clock.now(real: start + 2), start + 100)
        XCTAssertThrowsError(try clock.set(start + 99, real: start + 2)) { error in
            XCTAssertEqual(error as? ClockError, .backwards(now: start + 100, requested: start + 99))
        }
        XCTAssertEqual(clock.now(real: start + 2), start + 100)
    }

    func testRateRunsVirtualTimeFromTheMomentItIsSet() throws {
        var clock = VirtualClock(startingAt: start)
        try clock.setRate(60, real: start + 10)
        XCTAssertEqual(clock.now(real: start + 10), start)
        XCTAssertEqual(clock.now(real: start + 12), start + 120)
        try clock.setRate(1, real: start + 12)
        XCTAssertEqual(clock.now(real: start + 13), start + 121)
        try clock.setRate(0, real: start + 20)
        XCTAssertEqual(clock.now(real: start + 1_000), start + 128)
    }

    func testChangesReanchorSoEarlierTimeIsNotRewritten() throws {
        var clock = VirtualClock(startingAt: start)
        try clock.setRate(2, real: start)
        try clock.advance(by: 50, real: start + 10)
        XCTAssertEqual(clock.realAnchor, start + 10)
        XCTAssertEqual(clock.virtualAnchor, start + 70)
        XCTAssertEqual(clock.now(real: start + 15), start + 80)
        XCTAssertThrowsError(try clock.set(start + 79, real: start + 15))
        try clock.set(start + 1_000, real: start + 15)
        XCTAssertEqual(clock.now(real: start + 16), start + 1_002)
    }

    func testRateMustBeFiniteAndNotNegative() {
        var clock = VirtualClock(startingAt: start)
        for rate: Double in [-1, -.ulpOfOne, .nan, .infinity] {
            XCTAssertThrowsError(try clock.setRate(rate, real: start)) { error in
                guard case .invalidRate = error as? ClockError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertEqual(clock.rate, 0)
    }

    func testARealClockSteppingBackDoesNotRunVirtualTimeBackwards() throws {
        var clock = VirtualClock(startingAt: start)
        try clock.setRate(1, real: start + 100)
        XCTAssertEqual(clock.now(real: start + 50), start)
        try clock.advance(by: 10, real: start + 50)
        XCTAssertEqual(clock.now(real: start + 60), start + 10)
        XCTAssertEqual(clock.now(real: start + 101), start + 11)
    }

    func testTimeIsBoundedToTheLatestCalendarDate() throws {
        var clock = VirtualClock(startingAt: start)
        XCTAssertThrowsError(try clock.set(.infinity, real: start))
        XCTAssertThrowsError(try clock.set(VirtualClock.latestTime + 1, real: start)) { error in
            XCTAssertEqual(error as? ClockError, .outOfRange(requested: VirtualClock.latestTime + 1))
        }
        XCTAssertThrowsError(try clock.advance(by: 1e300, real: start))
        try clock.setRate(1e12, real: start)
        XCTAssertEqual(clock.now(real: start + 1_000), VirtualClock.latestTime)
    }

    func testCodableRoundTripAndRejectsImpossibleValues() throws {
        var clock = VirtualClock(startingAt: start)
        try clock.setRate(3, real: start + 1)
        try clock.advance(by: 5, real: start + 2)
        let data = try JSONEncoder().encode(clock)
        XCTAssertEqual(try JSONDecoder().decode(VirtualClock.self, from: data), clock)
        let negative = Data(#"{"realAnchor":1,"virtualAnchor":1,"rate":-1}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(VirtualClock.self, from: negative))
    }

    func testErrorsDescribeThemselves() {
        XCTAssertEqual(
            ClockError.backwards(now: 20, requested: 10).description,
            "the clock cannot move backwards: requested 10.0 is before now (20.0)")
        XCTAssertEqual(
            ClockError.invalidRate(-2).description, "invalid clock rate -2.0: the rate must be finite and not negative")
    }
}
