/// Writes a JSON object member by member straight into bytes, for the few shapes written on every
/// push (an activity, a push record): no `JSONValue` is built for them.
///
/// The caller writes members in byte order of their keys, so the bytes equal those of
/// `JSONValue.serialized()` on the same object; keys are plain ASCII needing no escape.
package struct JSONObjectWriter: ~Copyable {
    package var out: JSONOutput
    private var empty = true

    package init(capacity: Int) {
        out = JSONOutput(capacity: capacity)
        out.append(UInt8(ascii: "{"))
    }

    /// Writes `"key":` after a comma when a member came before.
    private mutating func key(_ key: StaticString) {
        if !empty { out.append(UInt8(ascii: ",")) }
        empty = false
        out.append(UInt8(ascii: "\""))
        out.append(key)
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    package mutating func member(_ name: StaticString, _ value: JSONValue) {
        key(name)
        value.write(to: &out)
    }

    /// A member whose value `write` appends (it must append exactly one JSON value).
    package mutating func member(_ name: StaticString, _ write: (inout JSONOutput) -> Void) {
        key(name)
        write(&out)
    }

    package mutating func member(_ name: StaticString, string value: String?) {
        key(name)
        if let value { JSONWriter.writeString(value, to: &out) } else { out.append("null") }
    }

    /// A number written as `JSONValue.number` writes it; nil as null.
    package mutating func member(_ name: StaticString, number value: Double?) {
        key(name)
        if let value { JSONValue.number(value).write(to: &out) } else { out.append("null") }
    }

    package mutating func member(_ name: StaticString, integer value: Int64) {
        key(name)
        JSONWriter.writeInteger(value, to: &out)
    }

    package mutating func member(_ name: StaticString, bool value: Bool) {
        key(name)
        out.append(value ? "true" : "false")
    }

    /// Members written before by another writer (what its `finishMembers()` returned), after a
    /// comma when a member came before.
    package mutating func members(_ written: [UInt8]) {
        guard !written.isEmpty else { return }
        if !empty { out.append(UInt8(ascii: ",")) }
        empty = false
        out.append(written)
    }

    /// Opens an object as the value of `name`; its members follow, then `endObject()`.
    package mutating func beginObject(_ name: StaticString) {
        key(name)
        out.append(UInt8(ascii: "{"))
        empty = true
    }

    /// Closes the object `beginObject` opened.
    package mutating func endObject() {
        out.append(UInt8(ascii: "}"))
        empty = false
    }

    /// The members written so far, without the object's braces: for another writer's `members(_:)`.
    package consuming func finishMembers() -> [UInt8] {
        Array(out.bytes().dropFirst())
    }

    /// Closes the object and returns its bytes.
    package consuming func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out.bytes()
    }
}
