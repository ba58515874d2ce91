extension JSONValue {
    /// How deeply arrays and objects may nest unless the caller says otherwise. Push payloads
    /// need a handful of levels; the limit keeps hostile input from exhausting the stack.
    public static let defaultMaxDepth = 64

    /// Parses one JSON document (RFC 8259, strictly) from UTF-8 bytes.
    ///
    /// The document is a single value with optional surrounding whitespace. Integers that fit
    /// Int64 become `.int` (`-0` included, as `0`); every other number becomes a finite `.double`.
    /// A repeated object key keeps its last value. Containers may nest `maxDepth` levels deep.
    public init(parsing bytes: [UInt8], maxDepth: Int = JSONValue.defaultMaxDepth) throws(JSONParseError) {
        let result = bytes.withUnsafeBufferPointer { JSONParser.parse($0, maxDepth: maxDepth) }
        self = try result.get()
    }

    /// Parses one JSON document from the bytes of any collection, copying them only when they
    /// are not already contiguous. See `init(parsing:maxDepth:)` for the rules.
    package init(parsing bytes: some Collection<UInt8>, maxDepth: Int = JSONValue.defaultMaxDepth)
        throws(JSONParseError)
    {
        let contiguous = bytes.withContiguousStorageIfAvailable { JSONParser.parse($0, maxDepth: maxDepth) }
        let result = contiguous ?? Array(bytes).withUnsafeBufferPointer { JSONParser.parse($0, maxDepth: maxDepth) }
        self = try result.get()
    }

    /// Parses one JSON document straight from a raw buffer, such as a connection's read buffer.
    /// See `init(parsing:maxDepth:)` for the rules.
    package init(parsing bytes: UnsafeRawBufferPointer, maxDepth: Int = JSONValue.defaultMaxDepth)
        throws(JSONParseError)
    {
        let result = bytes.withMemoryRebound(to: UInt8.self) { JSONParser.parse($0, maxDepth: maxDepth) }
        self = try result.get()
    }

    /// Parses one JSON document from text; offsets in errors count the text's UTF-8 bytes.
    package init(parsing text: String, maxDepth: Int = JSONValue.defaultMaxDepth) throws(JSONParseError) {
        var text = text
        let result = text.withUTF8 { JSONParser.parse($0, maxDepth: maxDepth) }
        self = try result.get()
    }
}
