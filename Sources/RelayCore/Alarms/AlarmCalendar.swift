import Foundation

/// Wall-clock arithmetic in an alarm's IANA time zone: the next occurrence of a relative schedule
/// and the hour and minute of an instant. The only alarm file that touches Foundation, and only
/// for `TimeZone`'s offsets from the tz database; the calendar arithmetic (days, weekdays) is done
/// here on whole days since 1970-01-01 in the proleptic Gregorian calendar.
///
/// Daylight saving:
/// - A wall time that does not exist (the spring-forward gap, e.g. 02:30 on 2024-03-10 in
///   America/New_York) fires at the first valid instant after the gap, which is the transition
///   itself (03:00 EDT = 07:00 UTC). This is what `Calendar.nextDate(after:matching:matchingPolicy:)`
///   gives with `.nextTime`; `.nextTimePreservingSmallerComponents` would give 03:30 and `.strict`
///   would skip the day. Firing at the end of the gap keeps the alarm as close as possible to the
///   time asked for without skipping it.
/// - A wall time that happens twice (the fall-back overlap, e.g. 01:30 on 2024-11-03 in New York)
///   fires once, at its first occurrence (01:30 EDT = 05:30 UTC), like `repeatedTimePolicy: .first`.
///   That occurrence is the day's only one: once it has passed, the next is on a later day, even
///   if the alarm is created or stopped between the two 01:30s (where `Calendar.nextDate` with
///   `.first` would still return the second 01:30).
enum AlarmCalendar {
    private static let secondsPerDay = 86_400

    /// True when Foundation knows the identifier (IANA names such as `Europe/Berlin`, `UTC`).
    static func isKnown(timeZone identifier: String) -> Bool {
        TimeZone(identifier: identifier) != nil
    }

    /// Hour and minute of the wall clock at `instant` in `timeZone`.
    static func wallTime(at instant: UnixSeconds, timeZone identifier: String) -> (hour: Int, minute: Int) {
        guard instant.isFinite, abs(instant) <= AlarmLimits.latestDate else { return (0, 0) }
        let zone = zone(identifier)
        let local = Int((instant + Double(offset(zone, instant))).rounded(.down))
        let secondOfDay = ((local % secondsPerDay) + secondsPerDay) % secondsPerDay
        return (secondOfDay / 3600, (secondOfDay % 3600) / 60)
    }

    /// The first instant strictly after `after` at which the wall clock in `timeZone` reads
    /// `hour:minute`, on one of `weekdays` when given (weekday of the local date), following the
    /// daylight-saving rules above. Nil when `weekdays` is empty or `after` is not a sane time.
    static func nextOccurrence(
        hour: Int, minute: Int, weekdays: [AlarmSchedule.Weekday]?, timeZone identifier: String,
        after: UnixSeconds
    ) -> UnixSeconds? {
        guard after.isFinite, abs(after) <= AlarmLimits.latestDate else { return nil }
        let zone = zone(identifier)
        let localNow = Int((after + Double(offset(zone, after))).rounded(.down))
        let today = localNow >= 0 ? localNow / secondsPerDay : (localNow - secondsPerDay + 1) / secondsPerDay
        // From yesterday (an offset change can pull yesterday's time past `after`) through a week
        // and a day ahead, enough for any weekday set.
        for day in (today - 1)...(today + 8) {
            if let weekdays, !weekdays.contains(where: { $0.index == weekday(ofDay: day) }) { continue }
            let instant = resolve(day: day, hour: hour, minute: minute, in: zone)
            if instant > after { return instant }
        }
        return nil
    }

    /// 0 (Sunday) ... 6 (Saturday) for whole days since 1970-01-01, a Thursday.
    static func weekday(ofDay day: Int) -> Int {
        ((day + 4) % 7 + 7) % 7
    }

    /// The instant the wall clock reads `hour:minute` on local `day`: the earlier one in an
    /// overlap, the end of the gap when that time does not exist.
    private static func resolve(day: Int, hour: Int, minute: Int, in zone: TimeZone) -> UnixSeconds {
        let naive = day * secondsPerDay + hour * 3600 + minute * 60
        let offsetBefore = offset(zone, Double(naive - secondsPerDay))
        let offsetAfter = offset(zone, Double(naive + secondsPerDay))
        var earliest: Int?
        for candidateOffset in [offsetBefore, offsetAfter] {
            let instant = naive - candidateOffset
            if offset(zone, Double(instant)) == candidateOffset {
                earliest = min(earliest ?? instant, instant)
            }
        }
        if let earliest { return Double(earliest) }
        // In a gap: under the old offset the time lies after the transition, under the new one
        // before it. Find the transition to the second by bisection.
        var low = naive - offsetAfter
        var high = naive - offsetBefore
        guard low < high else { return Double(high) }
        let lowOffset = offset(zone, Double(low))
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(zone, Double(middle)) == lowOffset { low = middle } else { high = middle }
        }
        return Double(high)
    }

    private static func zone(_ identifier: String) -> TimeZone {
        // Identifiers are validated when an alarm is created or restored; UTC is the fallback for
        // a tz database that lost one since.
        TimeZone(identifier: identifier) ?? .gmt
    }

    private static func offset(_ zone: TimeZone, _ instant: UnixSeconds) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
    }
}
