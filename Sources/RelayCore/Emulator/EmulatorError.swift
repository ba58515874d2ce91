package import RelayJSON

/// Why the emulated device refused an app-API request: an HTTP status, a stable error code and a
/// human message, plus any extra members (`state` for invalid-state errors). It becomes the body
/// `{"error": code, "message": message, ...extra}`.
public struct EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    package var status: Int
    package var code: String
    package var message: String
    package var extra: JSONObject

    package init(status: Int, code: String, message: String, extra: JSONObject = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The JSON error body.
    package var json: JSONValue {
        var members = extra
        members["error"] = .string(code)
        members["message"] = .string(message)
        return .object(members)
    }

    /// 404 for an unknown object.
    package static func notFound(_ what: String, _ id: String) -> EmulatorError {
        EmulatorError(status: 404, code: "notFound", message: "no \(what) with id \(id)")
    }

    /// 400 for a body member that does not fit.
    package static func invalid(_ error: JSONFieldError) -> EmulatorError {
        EmulatorError(status: 400, code: "invalidRequest", message: error.description)
    }

    /// 400 with a free-form message.
    package static func invalid(_ message: String) -> EmulatorError {
        EmulatorError(status: 400, code: "invalidRequest", message: message)
    }

    /// 409 for an operation the object's current state does not allow.
    package static func invalidState(_ state: String, _ message: String) -> EmulatorError {
        EmulatorError(status: 409, code: "invalidState", message: message, extra: ["state": .string(state)])
    }

    /// 403 for something the emulated person's settings forbid.
    package static func forbidden(_ code: String, _ message: String) -> EmulatorError {
        EmulatorError(status: 403, code: code, message: message)
    }

    /// 413 for data over a size limit.
    package static func tooLarge(_ message: String) -> EmulatorError {
        EmulatorError(status: 413, code: "tooLarge", message: message)
    }

    /// The app-API error for an activity that could not start.
    static func from(_ error: ActivityError) -> EmulatorError {
        switch error {
        case .tooLarge: return .tooLarge(error.description)
        case .invalidValue: return .invalid(error.description)
        }
    }

    /// The app-API error for an alarm request or operation.
    static func from(_ error: AlarmError) -> EmulatorError {
        switch error {
        case .invalidField: return .invalid(error.message)
        case .invalidState(let current, _): return .invalidState(current.rawValue, error.message)
        case .noCountdownDuration: return EmulatorError(status: 409, code: "invalidState", message: error.message)
        case .alarmRemoved(let id): return .notFound("alarm", id)
        }
    }
}
