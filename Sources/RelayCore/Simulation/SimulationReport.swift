public import RelayJSON

/// One line of a simulation's timeline.
package struct TimelineEntry: Sendable, Hashable {
    /// When it happened (Unix seconds on the virtual clock).
    package var at: UnixSeconds
    /// Who acted: `app`, `push`, `broadcast`, `alarm`, `device` (what the phone did), `expect`.
    package var actor: String
    /// What happened, in words.
    package var text: String
    /// The event behind a `device` line, in the stream's shape.
    package var event: JSONValue?
}

/// The result of running a scenario: the timeline, the expectations and the final state.
public struct SimulationReport: Sendable {
    package var name: String
    package var start: UnixSeconds
    package var entries: [TimelineEntry]
    package var expectationsPassed: Int
    /// One line per failed expectation.
    package var failures: [String]
    package var finalActivities: [JSONValue]
    package var finalAlarms: [JSONValue]

    /// The readable timeline.
    public var text: String {
        var lines = ["scenario: \(name)", "start:    \(UTCDate.format(start)) (offsets below are from here)", ""]
        for entry in entries {
            let offset = DurationText.offset(entry.at - start)
            let pad = String(repeating: " ", count: max(1, 12 - offset.count))
            let actor = entry.actor + String(repeating: " ", count: max(1, 10 - entry.actor.count))
            lines.append(offset + pad + actor + entry.text)
        }
        lines.append("")
        let total = expectationsPassed + failures.count
        lines.append("expectations: \(expectationsPassed) of \(total) met")
        for failure in failures { lines.append("  FAILED " + failure) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report for machines.
    public var json: JSONValue {
        [
            "scenario": .string(name), "start": .number(start),
            "entries": .array(
                entries.map { entry in
                    [
                        "at": .number(entry.at), "offset": .number(entry.at - start), "actor": .string(entry.actor),
                        "text": .string(entry.text), "event": .optional(entry.event),
                    ]
                }),
            "expectations": [
                "passed": .int(Int64(expectationsPassed)), "failed": .array(failures.map(JSONValue.string)),
            ],
            "final": ["activities": .array(finalActivities), "alarms": .array(finalAlarms)],
        ]
    }
}

/// `2026-03-08T07:00:00Z` from Unix seconds (proleptic Gregorian, UTC).
package enum UTCDate {
    /// `YYYY-MM-DDTHH:MM:SSZ`; a time no calendar reaches (past 10^15 seconds from 1970, some 31
    /// million years, or not a number) is written as its seconds.
    package static func format(_ time: UnixSeconds) -> String {
        guard time.isFinite, time.magnitude < 1e15 else { return "\(time)s" }
        let seconds = Int64(time.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        if (1000...9999).contains(year) {
            // Written as bytes: push hints quote dates, and interpolating six numbers cost more than
            // the rest of the hint.
            return String(unsafeUninitializedCapacity: 20) { out in
                var position = 0
                func put(_ byte: UInt8) {
                    out[position] = byte
                    position += 1
                }
                func two(_ value: Int64, then separator: UInt8) {
                    put(UInt8(ascii: "0") + UInt8(value / 10))
                    put(UInt8(ascii: "0") + UInt8(value % 10))
                    put(separator)
                }
                put(UInt8(ascii: "0") + UInt8(year / 1000))
                put(UInt8(ascii: "0") + UInt8(year / 100 % 10))
                two(year % 100, then: UInt8(ascii: "-"))
                two(month, then: UInt8(ascii: "-"))
                two(day, then: UInt8(ascii: "T"))
                two(secondOfDay / 3600, then: UInt8(ascii: ":"))
                two(secondOfDay % 3600 / 60, then: UInt8(ascii: ":"))
                two(secondOfDay % 60, then: UInt8(ascii: "Z"))
                return position
            }
        }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))Z"
    }
}
