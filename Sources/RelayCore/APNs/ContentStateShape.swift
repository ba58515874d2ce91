package import RelayJSON

/// Compares the shape (keys and JSON types) of two content states, to tell a backend why an app
/// may fail to decode an update: ActivityKit decodes `content-state` into the app's
/// `ContentState` with default JSON strategies, so a renamed key, a missing key or a number sent
/// as a string makes the update fail on the device while APNs still answers `200`.
package enum ContentStateShape {
    /// Deepest nesting compared; deeper values are compared by type only.
    package static let maxDepth = 16
    /// Most differences listed; the list ends with a count of the rest.
    package static let maxDifferences = 32

    /// The differences from `previous` to `new`, one line each, in key order:
    /// - `score.home: was number, now string`
    /// - `score.away: missing (was number)`
    /// - `period: new key (string)`
    /// Arrays are compared by their first elements (`players[0].name: ...`). `null` is a type of
    /// its own, since an optional property may be sent as `null` or left out. An empty list means
    /// the shapes match.
    package static func differences(previous: JSONObject, new: JSONObject) -> [String] {
        // Almost every update keeps the shape; checking that first spares sorting keys and building paths.
        if sameShape(previous, new, depth: 0) { return [] }
        var lines: [String] = []
        var omitted = 0
        compare(previous, new, path: "", depth: 0, into: &lines, omitted: &omitted)
        if omitted > 0 { lines.append("... and \(omitted) more") }
        return lines
    }

    private static func compare(
        _ previous: JSONObject, _ new: JSONObject, path: String, depth: Int,
        into lines: inout [String], omitted: inout Int
    ) {
        let keys = Set(previous.keys).union(new.keys).sorted()
        for key in keys {
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            switch (previous[key], new[key]) {
            case (let old?, nil):
                record("\(keyPath): missing (was \(old.typeName))", into: &lines, omitted: &omitted)
            case (nil, let added?):
                record("\(keyPath): new key (\(added.typeName))", into: &lines, omitted: &omitted)
            case (let old?, let added?):
                compare(old, added, path: keyPath, depth: depth + 1, into: &lines, omitted: &omitted)
            case (nil, nil):
                break
            }
        }
    }

    private static func compare(
        _ previous: JSONValue, _ new: JSONValue, path: String, depth: Int, into lines: inout [String],
        omitted: inout Int
    ) {
        guard previous.typeName == new.typeName else {
            record("\(path): was \(previous.typeName), now \(new.typeName)", into: &lines, omitted: &omitted)
            return
        }
        guard depth < maxDepth else { return }
        switch (previous, new) {
        case (.object(let old), .object(let added)):
            compare(old, added, path: path, depth: depth, into: &lines, omitted: &omitted)
        case (.array(let old), .array(let added)):
            if let first = old.first, let second = added.first {
                compare(first, second, path: "\(path)[0]", depth: depth + 1, into: &lines, omitted: &omitted)
            }
        default:
            break
        }
    }

    /// True exactly when `compare` would record nothing: the same keys, each with the same type,
    /// down to the same depth.
    private static func sameShape(_ previous: JSONObject, _ new: JSONObject, depth: Int) -> Bool {
        guard previous.count == new.count else { return false }
        // Both are sorted by key with no repeats, so the same keys stand in the same places: one
        // comparison per member instead of a search of `previous` for each.
        for ((key, value), (oldKey, old)) in zip(new, previous) {
            guard JSONObject.compare(key, oldKey) == 0, sameShape(old, value, depth: depth + 1) else { return false }
        }
        return true
    }

    private static func sameShape(_ previous: JSONValue, _ new: JSONValue, depth: Int) -> Bool {
        switch (previous, new) {
        case (.object(let old), .object(let added)):
            return depth >= maxDepth || sameShape(old, added, depth: depth)
        case (.array(let old), .array(let added)):
            guard depth < maxDepth, let first = old.first, let second = added.first else { return true }
            return sameShape(first, second, depth: depth + 1)
        case (.null, .null), (.bool, .bool), (.string, .string), (.int, .int), (.int, .double), (.double, .int),
            (.double, .double):
            return true
        default:
            return false
        }
    }

    private static func record(_ line: String, into lines: inout [String], omitted: inout Int) {
        if lines.count < maxDifferences {
            lines.append(line)
        } else {
            omitted += 1
        }
    }
}
