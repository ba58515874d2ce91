package import RelayJSON

/// The `alert` of a Live Activity push: lights the device and shows the expanded presentation or a
/// banner. Apple's Live Activity examples use `title`, `body` (each a string or a
/// `{"loc-key", "loc-args"}` dictionary) and `sound`.
///
/// The typed fields cover those; `json` keeps the alert exactly as sent, so other alert keys
/// (`subtitle`, `launch-image`, ...) reach the push log unchanged.
package struct LiveActivityAlert: Sendable, Hashable {
    /// Alert text: literal, or a localization key with arguments.
    package enum Text: Sendable, Hashable {
        /// A literal string.
        case plain(String)
        /// A key into the app's `Localizable.strings` and its format arguments.
        case localized(key: String, arguments: [String])
    }

    /// The title, if any.
    package var title: Text?
    /// The body, if any.
    package var body: Text?
    /// The sound's name: the `sound` string, or the `name` of a critical-sound dictionary.
    package var sound: String?
    /// The alert as sent (or as built by `init(title:body:sound:)`).
    package var json: JSONValue

    /// An alert built by the relay; `json` is its wire form.
    package init(title: Text? = nil, body: Text? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
        var members: JSONObject = [:]
        if let title { members[Key.title] = Self.json(for: title) }
        if let body { members[Key.body] = Self.json(for: body) }
        if let sound { members[Key.sound] = .string(sound) }
        json = .object(members)
    }

    /// Reads an `alert` value. A bare string is the body (as for any APNs alert). `path` names the
    /// value in error messages.
    package static func parse(_ value: JSONValue, path: String = "aps.alert") -> Result<
        LiveActivityAlert, LiveActivityPayloadError
    > {
        switch value {
        case .string(let text):
            return .success(LiveActivityAlert(title: nil, body: .plain(text), sound: nil, json: value))
        case .object(let members):
            do throws(LiveActivityPayloadError) {
                let title = try text(
                    members, key: Key.title, flatKey: Key.titleLocKey, flatArgs: Key.titleLocArgs, path: path)
                let body = try text(members, key: Key.body, flatKey: Key.locKey, flatArgs: Key.locArgs, path: path)
                let sound = try soundName(members[Key.sound], path: "\(path).\(Key.sound)")
                return .success(LiveActivityAlert(title: title, body: body, sound: sound, json: value))
            } catch {
                return .failure(error)
            }
        default:
            return .failure(
                LiveActivityPayloadError(path: path, "must be a string or an object, not \(value.typeName)"))
        }
    }

    private init(title: Text?, body: Text?, sound: String?, json: JSONValue) {
        self.title = title
        self.body = body
        self.sound = sound
        self.json = json
    }

    // MARK: - Wire form

    /// Alert keys on the wire.
    private enum Key {
        static let title = "title"
        static let body = "body"
        static let sound = "sound"
        static let locKey = "loc-key"
        static let locArgs = "loc-args"
        static let titleLocKey = "title-loc-key"
        static let titleLocArgs = "title-loc-args"
        static let soundName = "name"
    }

    private static func json(for text: Text) -> JSONValue {
        switch text {
        case .plain(let string): return .string(string)
        case .localized(let key, let arguments):
            return .object([Key.locKey: .string(key), Key.locArgs: .array(arguments.map { .string($0) })])
        }
    }

    /// `title`/`body` as a string or `{loc-key, loc-args}`, else the flat `*-loc-key` form.
    private static func text(
        _ members: JSONObject, key: String, flatKey: String, flatArgs: String, path: String
    ) throws(LiveActivityPayloadError) -> Text? {
        switch members[key] {
        case .string(let string)?:
            return .plain(string)
        case .object(let dictionary)?:
            guard case .string(let locKey)? = dictionary[Key.locKey] else {
                throw LiveActivityPayloadError(path: "\(path).\(key).\(Key.locKey)", "must be a string")
            }
            return .localized(
                key: locKey, arguments: try arguments(dictionary[Key.locArgs], path: "\(path).\(key).\(Key.locArgs)"))
        case nil, .null?:
            break
        case let other?:
            throw LiveActivityPayloadError(
                path: "\(path).\(key)", "must be a string or a {loc-key, loc-args} object, not \(other.typeName)")
        }
        switch members[flatKey] {
        case .string(let locKey)?:
            return .localized(key: locKey, arguments: try arguments(members[flatArgs], path: "\(path).\(flatArgs)"))
        case nil, .null?:
            return nil
        case let other?:
            throw LiveActivityPayloadError(path: "\(path).\(flatKey)", "must be a string, not \(other.typeName)")
        }
    }

    private static func arguments(_ value: JSONValue?, path: String) throws(LiveActivityPayloadError) -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let elements)?:
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .string(let string) = element else {
                    throw LiveActivityPayloadError(
                        path: "\(path)[\(index)]", "must be a string, not \(element.typeName)")
                }
                strings.append(string)
            }
            return strings
        case let other?:
            throw LiveActivityPayloadError(path: path, "must be an array of strings, not \(other.typeName)")
        }
    }

    private static func soundName(_ value: JSONValue?, path: String) throws(LiveActivityPayloadError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let name)?: return name
        case .object(let dictionary)?:
            guard case .string(let name)? = dictionary[Key.soundName] else {
                throw LiveActivityPayloadError(path: "\(path).\(Key.soundName)", "must be a string")
            }
            return name
        case let other?:
            throw LiveActivityPayloadError(
                path: path, "must be a string or a critical-sound object, not \(other.typeName)")
        }
    }
}
