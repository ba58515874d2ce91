import RelayCore
import RelayHTTP
import RelayJSON

// MARK: - Reading bodies and query strings

extension AppCall {
    /// Whether a body is needed.
    enum BodyNeed {
        /// A JSON object must be sent.
        case required
        /// No body (or only whitespace) reads as `{}`.
        case optional
    }

    /// The request body as the members of a JSON object, or nil once an error has been answered:
    /// `413 tooLarge` when the body was over the listener's limit, `400 invalidJSON` (with the
    /// parser's message, which names the byte offset) when it is not JSON, `400 invalidRequest`
    /// when it is JSON but not an object. The content type is not looked at.
    func jsonObject(_ need: BodyNeed, _ ids: LogIDs = LogIDs()) -> JSONObject? {
        if bodyTooLarge {
            fail(.tooLarge(TransportError.bodyTooLargeMessage), ids)
            return nil
        }
        let body = request.body
        if body.allSatisfy(Self.isJSONWhitespace) {
            if need == .optional { return [:] }
            fail(.invalid("this request needs a JSON object body"), ids)
            return nil
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body)
        } catch {
            fail(EmulatorError(status: 400, code: "invalidJSON", message: "the body is not JSON: \(error)"), ids)
            return nil
        }
        guard case .object(let members) = value else {
            fail(.invalid("the body must be a JSON object, not \(value.typeName)"), ids)
            return nil
        }
        return members
    }

    /// Like `jsonObject`, and refuses members outside `allowed` with `400` naming the first one.
    func jsonObject(_ need: BodyNeed, allowing allowed: Set<String>, _ ids: LogIDs = LogIDs()) -> JSONObject? {
        guard let members = jsonObject(need, ids) else { return nil }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            let expected =
                allowed.isEmpty ? "this request takes no members" : "known: \(allowed.sorted().joined(separator: ", "))"
            fail(.invalid("\(unknown.prefix(100)): is not a known member (\(expected))"), ids)
            return nil
        }
        return members
    }

    /// The query parameters (first value of each), or nil once `400` has been answered for a name
    /// outside `allowed`.
    func query(allowing allowed: Set<String>) -> [String: String]? {
        var values: [String: String] = [:]
        for item in request.queryItems {
            guard allowed.contains(item.name) else {
                fail(
                    .invalid(
                        "unknown query parameter '\(item.name.prefix(100))' (known: \(allowed.sorted().joined(separator: ", ")))"
                    ),
                    LogIDs())
                return nil
            }
            if values[item.name] == nil { values[item.name] = item.value }
        }
        return values
    }

    /// The device a list is restricted to.
    struct ListScope {
        /// nil: every device (admin key without a `deviceId` filter).
        var deviceId: String?
    }

    /// The scope of a list from its `deviceId` query value (empty counts as none); a device key
    /// is always restricted to its own device. A device key naming another device is `403`
    /// (answered here, nil returned): the answer does not depend on whether that device exists.
    func listScope(_ requested: String?) -> ListScope? {
        let requested = requested.flatMap { $0.isEmpty ? nil : $0 }
        guard let own = principal.deviceId else { return ListScope(deviceId: requested) }
        if let requested, requested != own {
            fail(.forbidden("forbidden", "a device key lists only its own device's objects"), LogIDs(device: own))
            return nil
        }
        return ListScope(deviceId: own)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
