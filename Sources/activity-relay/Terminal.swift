import Foundation

/// Writing to the terminal.
enum Terminal {
    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes `text` to standard error and exits with status 2 (bad usage or input).
    static func fail(_ text: String) -> Never {
        error(text)
        exit(2)
    }
}
