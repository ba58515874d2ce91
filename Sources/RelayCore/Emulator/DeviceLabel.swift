package import RelayJSON

/// The optional name and model of an emulated device (`POST /v1/devices` `{name?, model?}`),
/// shown by `watch` and the push log so that people can tell phones apart.
package enum DeviceLabel {
    /// The longest name or model, in characters (iOS device names are short; 64 leaves room).
    package static let maxCharacters = 64

    /// `value` as a name or model for member `key`: nil when absent or null; otherwise a string
    /// of 1–64 printable characters (no control or format characters, no line separators) that is
    /// not only spaces. Throws 400 naming the member.
    package static func parse(_ value: JSONValue?, key: String) throws(EmulatorError) -> String? {
        guard let value, value != .null else { return nil }
        guard let text = value.stringValue else {
            throw .invalid("\(key): must be a string (found \(value.typeName))")
        }
        guard !text.isEmpty, text.count <= maxCharacters else {
            throw .invalid("\(key): must be 1-\(maxCharacters) characters (found \(text.count))")
        }
        if let bad = text.unicodeScalars.first(where: { !isPrintable($0) }) {
            let code = String(bad.value, radix: 16, uppercase: true)
            throw .invalid(
                "\(key): must be printable (found U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code))")
        }
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw .invalid("\(key): must not be only spaces")
        }
        return text
    }

    /// Letters, marks, numbers, punctuation, symbols and the plain space: what a device name shows.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            false
        case .spaceSeparator:
            scalar == " " || scalar == "\u{00A0}"
        default:
            true
        }
    }
}
