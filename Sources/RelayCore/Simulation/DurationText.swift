package import RelayJSON

/// Durations written the way people write them in scenarios: `90`, `"90s"`, `"15m"`, `"8h"`,
/// `"1h30m"`, `"2d"`, `"1.5h"`.
package enum DurationText {
    /// Seconds for `text`, or nil when it is not a duration.
    package static func seconds(_ text: Substring) -> Double? {
        guard !text.isEmpty else { return nil }
        if let plain = Double(text), plain.isFinite { return plain }
        var total = 0.0
        var number = ""
        for character in text {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            let unit: Double
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            default: return nil
            }
            guard let value = Double(number), value.isFinite else { return nil }
            total += value * unit
            number = ""
        }
        guard number.isEmpty else { return nil }
        return total
    }

    /// Seconds for a JSON number or duration string.
    package static func seconds(_ value: JSONValue) -> Double? {
        if let number = value.doubleValue { return number.isFinite ? number : nil }
        if let text = value.stringValue { return seconds(Substring(text)) }
        return nil
    }

    /// `+H:MM:SS` (or `+Nd H:MM:SS` past a day) for a timeline offset; `-` before a negative one.
    /// An offset no clock reaches (past 10^15 seconds, or not a number) is written as its seconds.
    package static func offset(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds.magnitude < 1e15 else { return "+\(seconds)s" }
        if seconds < 0 { return "-" + offset(-seconds).dropFirst() }
        let whole = Int(seconds.rounded(.down))
        let fraction = seconds - Double(whole)
        let days = whole / 86_400
        let hours = (whole % 86_400) / 3600
        let minutes = (whole % 3600) / 60
        let secs = whole % 60
        var text = "+"
        if days > 0 { text += "\(days)d " }
        text += "\(hours):" + twoDigits(minutes) + ":" + twoDigits(secs)
        if fraction > 0.0005 {
            let millis = Int((fraction * 1000).rounded())
            text += "." + String(String(millis + 1000).dropFirst())
        }
        return text
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
