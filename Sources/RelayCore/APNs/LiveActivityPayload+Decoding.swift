import RelayJSON

/// Decoding a push body straight from its bytes, the provider API's hot path.
extension LiveActivityPayload {
    /// Decodes a device push body: exactly `parse(JSONValue(parsing: body))`, with a
    /// JSON syntax error reported as the parse error it is.
    ///
    /// A body in the usual shape (`{"aps": {...}, ...}` whose keys have no escapes and none
    /// repeated) is read member by member: only the values become JSON, the two outer objects and
    /// their keys are never built. Anything else (a syntax error, a repeated key, an escaped key,
    /// another top-level type) goes through the general parser, so every refusal and its message
    /// are those of the general path.
    static func decode(_ body: [UInt8]) -> Result<LiveActivityPayload, DecodeFailure> {
        let fast = body.withUnsafeBufferPointer { decodeCommonShape($0) }
        if let fast { return fast.mapError(DecodeFailure.payload) }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            return .failure(.json(error))
        }
        return parse(json).mapError(DecodeFailure.payload)
    }

    /// Why `decode` failed.
    enum DecodeFailure: Error {
        /// The body is not JSON.
        case json(JSONParseError)
        /// The body is JSON but not a Live Activity payload.
        case payload(LiveActivityPayloadError)
    }

    /// The member-by-member reading of `decode`, or nil when the body is not in the usual shape.
    static func decodeCommonShape(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<
        LiveActivityPayload, LiveActivityPayloadError
    >? {
        var parser = JSONParser(bytes: bytes, maxDepth: JSONValue.defaultMaxDepth)
        // Filled in place: the reader is some 200 bytes, and each move of an optional one is a copy.
        var aps = APSReader()
        var sawAPS = false
        var custom: [JSONObject.Element] = []
        do throws(JSONParseError) {
            guard var more = try parser.beginObject(depth: 0) else { return nil }
            while more {
                guard let key = parser.plainKey() else { return nil }
                if isAPSKey(parser.keyBytes(key)) {
                    // false: `aps` is not an object, or has a repeated or escaped key. The parser
                    // may have stopped inside it, so nothing after it can be read here: the
                    // general path takes it all.
                    guard !sawAPS, try readAPS(&parser, into: &aps) else { return nil }
                    sawAPS = true
                } else {
                    custom.append((parser.keyString(key), try parser.parseValue(depth: 1)))
                }
                guard let next = parser.memberSeparator() else { return nil }
                more = next
            }
            guard parser.atEndOfDocument() else { return nil }
        } catch {
            return nil
        }
        // The general path words a missing `aps` by what else is there; leave that to it.
        guard sawAPS else { return nil }
        return payload(from: aps, customKeys: custom.isEmpty ? nil : JSONObject(members: custom))
    }

    /// Reads the `aps` object at the parser's position into `reader` (a new one), its ActivityKit
    /// keys sorted out; throws on a syntax error and answers false for a value that is not an
    /// object or a repeated or escaped key.
    private static func readAPS(
        _ parser: inout JSONParser, into reader: inout APSReader
    ) throws(JSONParseError) -> Bool {
        var others: [JSONObject.Element] = []
        var seen: UInt16 = 0
        guard var more = try parser.beginObject(depth: 1) else { return false }
        while more {
            guard let key = parser.plainKey() else { return false }
            let position = APSReader.keys.index(of: parser.keyBytes(key))
            let value = try parser.parseValue(depth: 2)
            if let position {
                let bit: UInt16 = 1 << position
                guard seen & bit == 0 else { return false }
                seen |= bit
                reader.set(value, at: position)
            } else {
                others.append((parser.keyString(key), value))
            }
            guard let next = parser.memberSeparator() else { return false }
            more = next
        }
        if !others.isEmpty { reader.others = JSONObject(members: others) }
        return true
    }

    /// Whether the key bytes spell `aps`.
    private static func isAPSKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        key.count == 3 && key[0] == UInt8(ascii: "a") && key[1] == UInt8(ascii: "p") && key[2] == UInt8(ascii: "s")
    }
}
