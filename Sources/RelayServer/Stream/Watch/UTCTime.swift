import RelayCore

/// Unix seconds as UTC text, without Foundation (days-from-civil, Howard Hinnant's algorithm).
enum UTCTime {
    /// `2026-11-29 19:55:01 UTC`, or `19:55:01` when `dateless`.
    static func text(_ time: UnixSeconds, dateless: Bool = false) -> String {
        guard time.isFinite, abs(time) < 1e12 else { return "?" }
        let seconds = Int64(time.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        let clock = "\(pad(ofDay / 3600)):\(pad(ofDay / 60 % 60)):\(pad(ofDay % 60))"
        if dateless { return clock }
        let (year, month, day) = civil(days)
        return "\(year)-\(pad(month))-\(pad(day)) \(clock) UTC"
    }

    /// The calendar date of a day number (0 = 1970-01-01).
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
}
