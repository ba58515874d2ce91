extension JSONOutput {
    /// Appends a valid JSON document without the whitespace between its tokens (what is inside
    /// strings is kept as it is). Runs without whitespace are copied at once: a compact document
    /// is one copy.
    package mutating func appendCompacting(json bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                // Skip to the closing quote; an escape takes the byte after the backslash along.
                index += 1
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    index += 1
                    if byte == UInt8(ascii: "\"") { break }
                }
            case 0x20, 0x0A, 0x0D, 0x09:
                append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                runStart = index
            default:
                index += 1
            }
        }
        append(UnsafeBufferPointer(rebasing: bytes[runStart..<min(index, bytes.count)]))
    }
}
