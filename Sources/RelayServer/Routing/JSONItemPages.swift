import RelayJSON

/// `{"items": [...]}` made a page at a time as the peer reads: the answer keeps the items' keys
/// (taken when the request is answered, in the list's order), and each page renders the next few
/// items from the state as it is then; an item gone by then is left out. While nothing changes,
/// the bytes equal those of the whole list serialized at once.
final class JSONItemPages: ResponsePages, @unchecked Sendable {
    // Sendable: `next` runs on one connection's loop, one call at a time.
    private let keys: [String]
    /// The JSON of the items with these keys that still exist, in the keys' order.
    private let render: @Sendable (ArraySlice<String>) -> [JSONValue]
    private var position = 0
    private var started = false
    private var wroteItem = false

    /// A page ends once it holds this many bytes (or the items run out).
    static let pageBytes = 16 * 1024
    /// Items rendered at a time (each render takes the emulator's lock once).
    static let itemsPerRender = 8

    init(keys: [String], render: @escaping @Sendable (ArraySlice<String>) -> [JSONValue]) {
        self.keys = keys
        self.render = render
    }

    func next() -> ResponsePage {
        var page: [UInt8] = []
        if !started {
            page += Array(#"{"items":["#.utf8)
            started = true
        }
        while position < keys.count, page.count < Self.pageBytes {
            let end = min(position + Self.itemsPerRender, keys.count)
            for item in render(keys[position..<end]) {
                if wroteItem { page.append(UInt8(ascii: ",")) }
                item.serialize(into: &page)
                wroteItem = true
            }
            position = end
        }
        guard position == keys.count else { return .more(page) }
        page += Array("]}".utf8)
        return .last(page)
    }
}
