package import RelayCore
package import RelayJSON

/// Renders a `WatchBoard` as text: each activity as a Lock Screen card (content state, state,
/// stale flag, time left of its lifetime or until dismissal) and each alarm with its countdown.
/// With `ansi`, headings are bold and states coloured; without, the text is plain (for `--once`,
/// pipes and tests). Pure: the relay time is an argument.
package enum WatchCards {
    /// The whole screen for `board` at relay time `now`.
    package static func render(_ board: WatchBoard, now: UnixSeconds, ansi: Bool, width: Int = 78) -> String {
        var lines: [String] = []
        let clock = board.clock
        let mode = clock.mode.map { " (\($0)\(clock.rate == 1 ? "" : ", rate \(number(clock.rate))"))" } ?? ""
        lines.append(bold("relay time \(UTCTime.text(now))\(mode)", ansi) + "  events \(board.eventCount)")
        lines.append("")
        let activities = board.orderedActivities
        lines.append(bold("ACTIVITIES (\(activities.count))", ansi))
        for activity in activities {
            let device = activity["deviceId"]?.stringValue.flatMap { board.deviceLabels[$0] }
            lines.append(contentsOf: activityCard(activity, now: now, ansi: ansi, width: width, device: device))
        }
        lines.append("")
        let alarms = board.orderedAlarms
        lines.append(bold("ALARMS (\(alarms.count))", ansi))
        for alarm in alarms { lines.append(alarmLine(alarm, now: now, ansi: ansi, width: width)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One activity as a card of four lines; `device` (the phone's name and model) heads the status line.
    package static func activityCard(
        _ activity: JSONValue, now: UnixSeconds, ansi: Bool, width: Int = 78, device: String? = nil
    ) -> [String] {
        let state = activity["state"]?.stringValue ?? "?"
        let staleDate = activity["staleDate"]?.doubleValue
        let isStale = state == "stale" || (state == "active" && staleDate.map { $0 <= now } == true)
        let title = [
            activity["attributesType"]?.stringValue ?? "?", activity["bundleId"]?.stringValue ?? "?",
            short(activity["id"]?.stringValue),
        ].joined(separator: "  ")
        let content = activity["contentState"]?.jsonString ?? "null"
        var status = "stale: " + (isStale ? "yes" : "no")
        if let staleDate { status += " (stale date \(UTCTime.text(staleDate, dateless: true)))" }
        status += "   " + timeLeft(activity, state: state, now: now)
        if let device { status = "on " + device + "   " + status }
        return [
            "+- " + cut(title, width - 14) + "  " + colour(state.uppercased(), state: state, ansi),
            "|  " + cut(content, width - 3),
            "|  " + status,
            "+-",
        ]
    }

    /// One alarm on one line: id, app, state and its countdown or alert time.
    package static func alarmLine(_ alarm: JSONValue, now: UnixSeconds, ansi: Bool, width: Int = 78) -> String {
        let state = alarm["state"]?.stringValue ?? "?"
        var line = "   " + short(alarm["id"]?.stringValue) + "  " + (alarm["bundleId"]?.stringValue ?? "?") + "  "
        line += colour(state.uppercased(), state: state, ansi) + "  "
        if let presentation = alarm["presentationState"],
            let countdown = AlarmCountdown(presentationState: presentation, now: now)
        {
            line += countdown.text
        }
        if state == "scheduled", let next = alarm["nextAlertAt"]?.doubleValue {
            line += " (in \(duration(next - now)))"
        }
        if let title = presentedTitle(alarm) { line += "  \"" + cut(title, 30) + "\"" }
        return line
    }

    /// The title iOS shows for the alarm's mode: the countdown or paused presentation's while it
    /// counts down or is paused (the alert's when that presentation has none), else the alert's.
    static func presentedTitle(_ alarm: JSONValue) -> String? {
        let presentation = alarm["presentation"]
        let alert = presentation?["alert"]?["title"]?.stringValue
        guard let mode = alarm["presentationState"]?["mode"]?.stringValue, mode == "countdown" || mode == "paused"
        else { return alert }
        return presentation?[mode]?["title"]?.stringValue ?? alert
    }

    /// `ends in 7h 59m 12s` while it runs (its lifetime, or the system end), `dismissed in ...`
    /// once ended.
    static func timeLeft(_ activity: JSONValue, state: String, now: UnixSeconds) -> String {
        if state == "ended" {
            guard let dismissAt = activity["dismissAt"]?.doubleValue else { return "ended" }
            return "dismissed in " + duration(dismissAt - now)
        }
        let end = activity["systemEndAt"]?.doubleValue ?? (activity["startedAt"]?.doubleValue ?? now) + 8 * 3600
        return "ends in " + duration(end - now)
    }

    /// `7h 59m 12s`, `4m 05s`, `12s`; never negative.
    package static func duration(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(max(0, seconds).rounded(.up)) : 0
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        if hours > 0 { return "\(hours)h \(AlarmCountdown.twoDigits(minutes))m \(AlarmCountdown.twoDigits(secs))s" }
        if minutes > 0 { return "\(minutes)m \(AlarmCountdown.twoDigits(secs))s" }
        return "\(secs)s"
    }

    private static func short(_ id: String?) -> String { String((id ?? "?").prefix(8)) }

    private static func cut(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(max(1, limit - 3))) + "..."
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private static func bold(_ text: String, _ ansi: Bool) -> String { ansi ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    private static func colour(_ text: String, state: String, _ ansi: Bool) -> String {
        guard ansi else { return text }
        let code: String
        switch state {
        case "active", "countdown": code = "32"  // green
        case "stale", "paused", "scheduled": code = "33"  // yellow
        case "alerting": code = "31;1"  // bold red
        default: code = "90"  // grey: ended
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
