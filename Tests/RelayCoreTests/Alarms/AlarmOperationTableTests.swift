import RelayCore
import XCTest

/// Every operation from every state, for a one-shot and a repeating alarm.
final class AlarmOperationTableTests: XCTestCase {
    enum Operation: String, CaseIterable {
        case pause, resume, countdown, stop, cancel

        func apply(to alarm: inout Alarm, at now: UnixSeconds) throws -> [AlarmTransition] {
            switch self {
            case .pause: return try alarm.pause(at: now)
            case .resume: return try alarm.resume(at: now)
            case .countdown: return try alarm.countdown(at: now)
            case .stop: return try alarm.stop(at: now)
            case .cancel: return try alarm.cancel(at: now)
            }
        }
    }

    enum Outcome: Equatable {
        case becomes(AlarmState)
        case removed
        case refused
    }

    /// AlarmKit: pause only from countdown, resume only from paused, countdown only from alerting;
    /// stop and cancel from anywhere.
    static let oneShotTable: [AlarmState: [Operation: Outcome]] = [
        .scheduled: [.pause: .refused, .resume: .refused, .countdown: .refused, .stop: .removed, .cancel: .removed],
        .countdown: [
            .pause: .becomes(.paused), .resume: .refused, .countdown: .refused, .stop: .removed, .cancel: .removed,
        ],
        .paused: [
            .pause: .refused, .resume: .becomes(.countdown), .countdown: .refused, .stop: .removed, .cancel: .removed,
        ],
        .alerting: [
            .pause: .refused, .resume: .refused, .countdown: .becomes(.countdown), .stop: .removed, .cancel: .removed,
        ],
    ]

    func testOneShotAlarmFromEveryState() throws {
        try check(table: Self.oneShotTable, build: AlarmFixtures.oneShot(in:))
    }

    func testRepeatingAlarmStopReschedulesFromEveryState() throws {
        var table = Self.oneShotTable
        for state in AlarmState.allCases { table[state]?[.stop] = .becomes(.scheduled) }
        try check(table: table, build: AlarmFixtures.daily(in:))
    }

    func testRepeatingStopSkipsToTheNextDayFromEveryState() throws {
        let nextDay = AlarmFixtures.t0 + 86_400 + 7 * 3600
        for state in AlarmState.allCases {
            var (alarm, reached) = try AlarmFixtures.daily(in: state)
            XCTAssertEqual(
                try alarm.stop(at: reached + 10), [.stateChanged(from: state, to: .scheduled, at: reached + 10)])
            XCTAssertEqual(alarm.nextAlertAt, nextDay, "from \(state)")
            XCTAssertEqual(alarm.nextDeadline, nextDay - 600, "from \(state)")
            XCTAssertEqual(alarm.presentationState, .alert(hour: 7, minute: 0))
            XCTAssertFalse(alarm.hasAlerted)
        }
    }

    func testEveryOperationOnARemovedAlarmIsRefused() throws {
        var (alarm, reached) = try AlarmFixtures.oneShot(in: .countdown)
        _ = try alarm.cancel(at: reached)
        for operation in Operation.allCases {
            assertAlarmError(try operation.apply(to: &alarm, at: reached + 1), .alarmRemoved(id: AlarmFixtures.id))
        }
        XCTAssertNil(alarm.nextDeadline)
        XCTAssertEqual(alarm.advance(to: reached + 1_000_000), [])
    }

    private func check(
        table: [AlarmState: [Operation: Outcome]], build: (AlarmState) throws -> (Alarm, UnixSeconds)
    ) throws {
        XCTAssertEqual(table.count * Operation.allCases.count, 20)
        for (state, row) in table {
            for (operation, outcome) in row {
                var (alarm, reached) = try build(state)
                XCTAssertEqual(alarm.state, state)
                let before = alarm
                let now = reached + 10
                let label = "\(operation) from \(state)"
                switch outcome {
                case .refused:
                    assertAlarmError(
                        try operation.apply(to: &alarm, at: now),
                        .invalidState(current: state, operation: operation.rawValue))
                    XCTAssertEqual(alarm, before, label)
                case .removed:
                    XCTAssertEqual(try operation.apply(to: &alarm, at: now), [.removed(at: now)], label)
                    XCTAssertEqual(alarm.removedAt, now, label)
                    XCTAssertNil(alarm.presentationState, label)
                    XCTAssertNil(alarm.nextAlertAt, label)
                case .becomes(let next):
                    XCTAssertEqual(
                        try operation.apply(to: &alarm, at: now), [.stateChanged(from: state, to: next, at: now)], label
                    )
                    XCTAssertEqual(alarm.state, next, label)
                    XCTAssertNil(alarm.removedAt, label)
                }
            }
        }
    }
}
