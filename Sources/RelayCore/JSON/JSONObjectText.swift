import Synchronization

/// An object kept as its compact JSON: the bytes `JSONValue.serialized()` writes for it.
///
/// A push's content state is read once and then mostly carried (into the activity, its events and
/// its document) and written out, rarely looked into. Kept as text it is one array, not a member
/// array with a string per key and value; writing it out is a copy, and two are equal exactly when
/// their bytes are (which is why only canonical text is kept: members in key order, ASCII strings
/// without escapes, numbers as the serializer writes them; see `JSONParser.canonicalObject`).
/// The members are read from the text the first time something asks for them, once.
///
/// The text may be a slice of the push body it was read from (`JSONParser.canonicalObject`):
/// then the body's buffer is shared, not copied, and kept as long as the text is.
final class JSONObjectText: Sendable {
    /// The object's compact JSON.
    let bytes: ArraySlice<UInt8>
    private let values = AtomicLazyReference<Values>()

    /// `bytes` must be an object as `JSONValue.serialized()` writes it.
    init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The object as values, read from `bytes` on the first call.
    var object: JSONObject {
        if let values = values.load() { return values.object }
        let parsed = bytes.withUnsafeBufferPointer { JSONParser.parse($0, maxDepth: JSONValue.defaultMaxDepth) }
        guard case .success(.object(let object)) = parsed else {
            preconditionFailure("JSONObjectText holds text that is not a JSON object: \(parsed)")
        }
        return values.storeIfNil(Values(object)).object
    }

    /// The members as values, in a class so that they can be kept once.
    private final class Values: Sendable {
        let object: JSONObject
        init(_ object: JSONObject) { self.object = object }
    }
}
