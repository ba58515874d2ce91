import RelayCore
import RelayJSON

/// `activity-relay check-config FILE`: every problem in a config file, each named by its JSON
/// path, found by the parser `serve` uses.
///
/// The parser stops at its first problem. To name them all, the check sets the offending member
/// aside (removes it from the document) and parses again, until the rest parses: each problem is
/// reported once, with the path it has in the file as written.
package enum ConfigCheck {
    /// Most problems listed; a file with more is not worth reading further.
    static let maxProblems = 100

    /// The problems in the config file at `path` (resolved against `workingDirectory`), each
    /// `file: jsonPath: message`; empty when `serve --config` would accept it.
    package static func problems(inFile path: String, workingDirectory: String) -> [String] {
        let absolute = FileSystem.absolute(path, relativeTo: workingDirectory)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(absolute, limit: RelayConfiguration.maxFileBytes)
        } catch {
            return [ConfigurationError(path, error.description).description]
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            return [ConfigurationError(path, "not valid JSON: \(error)").description]
        }
        return problems(in: json, base: FileSystem.directoryName(of: absolute)).map {
            ConfigurationError(path, $0.description).description
        }
    }

    /// The problems in a config document, in the order the parser meets them.
    static func problems(in document: JSONValue, base: String) -> [JSONFieldError] {
        var json = document
        var found: [JSONFieldError] = []
        var removed = RemovedElements()
        while found.count < maxProblems {
            var configuration = RelayConfiguration(workingDirectory: base)
            do throws(JSONFieldError) {
                try configuration.apply(json: json, base: base)
                return found
            } catch {
                var path = JSONPath(error.key)
                let original = removed.original(path)
                let related = found.contains { JSONPath($0.key).isRelated(to: original) }
                if !related {
                    found.append(JSONFieldError(key: original.text, found: error.found, message: error.message))
                }
                // Set the member aside; when it is missing (a required key), its object goes.
                while !path.components.isEmpty {
                    let inFile = removed.original(path)
                    if path.remove(from: &json) {
                        if case .index = path.components.last { removed.record(inFile) }
                        break
                    }
                    path.components.removeLast()
                }
                if path.components.isEmpty { return found }
            }
        }
        return found
    }
}

/// A member's place in a JSON document: `providerKeys[1].keyId` as its keys and indexes.
struct JSONPath: Equatable {
    enum Component: Equatable {
        case key(String)
        case index(Int)
    }

    var components: [Component]

    /// Parses `a.b[2].c` (the form `JSONFieldError.key` has).
    init(_ text: String) {
        components = []
        for part in text.split(separator: ".", omittingEmptySubsequences: true) {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                if bracket > rest.startIndex { components.append(.key(String(rest[..<bracket]))) }
                rest = rest[bracket...]
                while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                    if let index = Int(rest[rest.index(after: rest.startIndex)..<close]) {
                        components.append(.index(index))
                    }
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                components.append(.key(String(rest)))
            }
        }
    }

    init(components: [Component]) { self.components = components }

    /// The dotted form.
    var text: String {
        var out = ""
        for component in components {
            switch component {
            case .key(let key): out += out.isEmpty ? key : "." + key
            case .index(let index): out += "[\(index)]"
            }
        }
        return out
    }

    /// Whether one path is the other or lies inside it.
    func isRelated(to other: JSONPath) -> Bool {
        let shorter = min(components.count, other.components.count)
        return Array(components.prefix(shorter)) == Array(other.components.prefix(shorter))
    }

    /// Removes the member or element at this path from `json`; false when there is none.
    func remove(from json: inout JSONValue) -> Bool {
        Self.remove(components[...], from: &json)
    }

    private static func remove(_ path: ArraySlice<Component>, from json: inout JSONValue) -> Bool {
        guard let first = path.first else { return false }
        let rest = path.dropFirst()
        switch (first, json) {
        case (.key(let key), .object(var object)):
            var removed = false
            if rest.isEmpty {
                removed = object.removeValue(forKey: key) != nil
            } else if var child = object[key] {
                removed = remove(rest, from: &child)
                object[key] = child
            }
            json = .object(object)
            return removed
        case (.index(let index), .array(var elements)) where elements.indices.contains(index):
            var removed = true
            if rest.isEmpty {
                elements.remove(at: index)
            } else {
                removed = remove(rest, from: &elements[index])
            }
            json = .array(elements)
            return removed
        default:
            return false
        }
    }
}

/// The array elements set aside so far, so that a later problem's path is reported with the
/// index it has in the file rather than in the shortened array.
struct RemovedElements {
    /// Original array path → original indexes removed, ascending.
    private var removed: [String: [Int]] = [:]

    /// Notes that the element at `arrayElement` (a path as in the file) was removed.
    mutating func record(_ arrayElement: JSONPath) {
        var array = arrayElement
        guard case .index(let original) = array.components.popLast() else { return }
        removed[array.text, default: []].append(original)
        removed[array.text]?.sort()
    }

    /// `path` (in the current document) as it reads in the file as written.
    func original(_ path: JSONPath) -> JSONPath {
        var out: [JSONPath.Component] = []
        for component in path.components {
            if case .index(var index) = component {
                for gone in removed[JSONPath(components: out).text] ?? [] where gone <= index { index += 1 }
                out.append(.index(index))
            } else {
                out.append(component)
            }
        }
        return JSONPath(components: out)
    }
}
