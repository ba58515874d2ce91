/// A bad flag, config file or key file, as one line naming the bad value; the caller prints
/// `description` and exits with status 2 without starting anything.
///
/// `subject` is where the value came from (`--listen`, `serve`, the config file's path) and
/// `message` what is wrong with it, e.g.
/// `--listen: 'localhost:99999' is not HOST:PORT with a port 0-65535 ...` or
/// `relay.json: rules.updateBudgetPerHour: must be a whole number from 1 to 1000000 (found number -3)`.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the bad value came from: a flag, a command, or the config file's path.
    package var subject: String
    /// What is wrong, naming the value.
    public var message: String

    /// An error about `subject`.
    package init(_ subject: String, _ message: String) {
        self.subject = subject
        self.message = message
    }

    /// `subject: message` on one line (line breaks in either are shown escaped).
    public var description: String { Self.oneLine("\(subject): \(message)") }

    /// `text` with control characters escaped, so a hostile value cannot break the line.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                output += "\\u{\(String(scalar.value, radix: 16))}"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// A value as an error message shows it: in single quotes, cut after `limit` characters.
    static func quoted(_ text: String, limit: Int = 80) -> String {
        let cut = text.count > limit ? String(text.prefix(limit)) + "..." : text
        return "'\(oneLine(cut))'"
    }
}
