/// A scenario that cannot run: the JSON path of the offending member and what is wrong with it.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Dotted path such as `steps[3].at`.
    package var path: String
    package var message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
