/// Which clock the emulated device follows (`--clock`, config `clock`).
package enum ClockMode: String, Sendable, Hashable, CaseIterable {
    /// The machine's real time.
    case system
    /// A clock that starts at the data directory's first start, stands still until moved through
    /// `POST /v1/clock`, and survives restarts.
    case virtual

    /// What the parser accepts, for error messages.
    static let expectation = "system or virtual"
}
