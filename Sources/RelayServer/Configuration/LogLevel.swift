/// How much the relay writes to its log (config `logLevel`); each level includes the ones before it.
package enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Failures only.
    case error
    /// Failures and things an operator should fix (such as loose file permissions).
    case warning
    /// The above plus startup, shutdown and listener lines. The default.
    case info
    /// The above plus per-connection and per-request detail.
    case debug

    /// What the parser accepts, for error messages.
    static let expectation = "error, warning, info or debug"

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .info: 2
        case .debug: 3
        }
    }

    /// Orders levels from the quietest (`error`) to the most verbose (`debug`).
    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    /// True when a message at `level` should be written under this setting.
    package func includes(_ level: LogLevel) -> Bool { level <= self }
}
