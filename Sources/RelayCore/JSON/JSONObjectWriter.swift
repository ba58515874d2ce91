/// Writes a JSON object member by member straight into bytes, for the few shapes written on every
/// push (an activity, a push record): no `JSONValue` is built for them.
///
/// The caller writes members in byte order of their keys, so the bytes equal those of
/// `JSONValue.serialized()` on the same object; keys are plain ASCII needing no escape.
struct JSONObjectWriter: ~Copyable {
    var out: JSONOutput
    private var empty = true

    init(capacity: Int) {
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

    mutating func member(_ name: StaticString, _ value: JSONValue) {
        key(name)
        value.write(to: &out)
    }

    /// A member whose value `write` appends (it must append exactly one JSON value).
    mutating func member(_ name: StaticString, _ write: (inout JSONOutput) -> Void) {
        key(name)
        write(&out)
    }

    mutating func member(_ name: StaticString, string value: String?) {
        key(name)
        if let value { JSONWriter.writeString(value, to: &out) } else { out.append("null") }
    }

    /// A number written as `JSONValue.number` writes it; nil as null.
    mutating func member(_ name: StaticString, number value: Double?) {
        key(name)
        if let value { JSONValue.number(value).write(to: &out) } else { out.append("null") }
    }

    mutating func member(_ name: StaticString, integer value: Int64) {
        key(name)
        JSONWriter.writeInteger(value, to: &out)
    }

    mutating func member(_ name: StaticString, bool value: Bool) {
        key(name)
        out.append(value ? "true" : "false")
    }

    /// Opens an object as the value of `name`; its members follow, then `endObject()`.
    mutating func beginObject(_ name: StaticString) {
        key(name)
        out.append(UInt8(ascii: "{"))
        empty = true
    }

    /// Closes the object `beginObject` opened.
    mutating func endObject() {
        out.append(UInt8(ascii: "}"))
        empty = false
    }

    /// Closes the object and returns its bytes.
    consuming func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out.bytes()
    }
}
