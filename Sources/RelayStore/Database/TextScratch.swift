/// Room, allocated once, for the text values a statement binds without SQLite copying them
/// (`Statement.bind(_:at:copiedInto:)`). A value stays where it was copied until `clear()`, which
/// its owner calls only once every statement bound to the values has been reset.
final class TextScratch {
    private let base: UnsafeMutableRawPointer
    /// The room, in bytes.
    let capacity: Int
    private var used = 0

    /// Allocates `capacity` bytes of room.
    init(capacity: Int = 16 << 10) {
        self.capacity = max(1, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// Makes all the room available again; earlier copies may then be overwritten.
    func clear() { used = 0 }

    /// `text`'s UTF-8 bytes, copied into the room, or nil when they do not fit in what is left.
    func copy(_ text: String) -> UnsafeRawBufferPointer? {
        var text = text
        return text.withUTF8 { utf8 -> UnsafeRawBufferPointer? in
            guard utf8.count <= capacity - used else { return nil }
            let start = base + used
            if let source = utf8.baseAddress { start.copyMemory(from: source, byteCount: utf8.count) }
            used += utf8.count
            return UnsafeRawBufferPointer(start: start, count: utf8.count)
        }
    }
}
