/// Why a body is not a Live Activity payload: which value (`aps.content-state`, `aps.alert.title`)
/// and what is wrong with it.
///
/// The provider API answers these with `400 BadRequestPayload` (see `LiveActivityPayload`).
package struct LiveActivityPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the payload the fault is, as a dotted path.
    package var path: String
    /// What is wrong there.
    package var message: String

    /// An error at `path`.
    package init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    package var description: String { path.isEmpty ? message : "\(path): \(message)" }

    /// The provider API's answer: `400 BadRequestPayload` naming the path.
    package var apnsError: APNsError { APNsError(.badRequestPayload, "payload \(description)") }
}
