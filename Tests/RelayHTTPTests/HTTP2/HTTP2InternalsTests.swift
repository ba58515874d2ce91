import XCTest

@testable import RelayHTTP

/// The small value types the connection is built from.
final class HTTP2InternalsTests: XCTestCase {
    func testWindowArithmetic() {
        var window = HTTP2FlowControlWindow(10)
        XCTAssertTrue(window.allows(10))
        XCTAssertFalse(window.allows(11))
        window.consume(10)
        XCTAssertTrue(window.adjust(by: -5))
        XCTAssertEqual(window.size, -5)
        XCTAssertEqual(window.available, 0)
        XCTAssertTrue(window.increase(by: 0x7fff_ffff))
        XCTAssertFalse(window.increase(by: 6), "2^31-1 is the ceiling")
        XCTAssertEqual(window.size, 0x7fff_fffa)
    }

    func testStreamStateTransitions() {
        var state = HTTP2StreamState.open
        state.receiveEndStream()
        XCTAssertEqual(state, .halfClosedRemote)
        XCTAssertFalse(state.canReceive)
        XCTAssertTrue(state.canSend)
        state.sendEndStream()
        XCTAssertEqual(state, .closed)
        state = .open
        state.sendEndStream()
        XCTAssertEqual(state, .halfClosedLocal)
        XCTAssertTrue(state.canReceive)
        XCTAssertFalse(state.canSend)
        state.receiveEndStream()
        XCTAssertEqual(state, .closed)
    }

    func testClosedStreamsForgetTheOldest() {
        var closed = HTTP2ClosedStreams(capacity: 2)
        closed.record(1, .ended)
        closed.record(3, .resetByPeer)
        closed.record(3, .resetByUs)
        XCTAssertEqual(closed.reason(for: 1), .ended)
        XCTAssertEqual(closed.reason(for: 3), .resetByUs)
        closed.record(5, .ended)
        XCTAssertNil(closed.reason(for: 1))
        XCTAssertEqual(closed.reason(for: 5), .ended)
        closed.record(7, .ended)
        XCTAssertNil(closed.reason(for: 3))
    }

    func testFloodGuardIsRefilledByWork() {
        var guardian = HTTP2FloodGuard(controlBudget: 3, resetBudget: 2)
        XCTAssertTrue(guardian.chargeControlFrame())
        XCTAssertTrue(guardian.chargeControlFrame())
        guardian.creditCompletedResponse()
        XCTAssertTrue(guardian.chargeControlFrame())
        XCTAssertTrue(guardian.chargeControlFrame())
        XCTAssertFalse(guardian.chargeControlFrame())
        XCTAssertTrue(guardian.chargeReset())
        XCTAssertFalse(guardian.chargeReset())
    }
}
