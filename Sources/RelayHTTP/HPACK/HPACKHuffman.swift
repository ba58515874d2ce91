/// Huffman coding of HPACK string literals (RFC 7541 §5.2) with the Appendix B code.
///
/// Encoding packs codes into a 64-bit accumulator. Decoding walks a finite automaton four bits at a
/// time (as nghttp2 does): its states are the 256 internal nodes of the code tree, and each
/// (state, nibble) pair yields the next state and at most one symbol, since the shortest code is
/// five bits long. The automaton is derived from `HPACKHuffmanTable` once, on first use.
package enum HPACKHuffman {
    /// The number of octets `bytes` takes once Huffman-coded, padding included.
    package static func encodedLength(_ bytes: some Sequence<UInt8>) -> Int {
        let codes = HPACKHuffmanTable.codes
        var bits = 0
        for byte in bytes { bits += Int(codes[Int(byte)].length) }
        return (bits + 7) >> 3
    }

    /// Appends the Huffman coding of `bytes`, padded with the most significant bits of EOS (all ones).
    package static func encode(_ bytes: some Sequence<UInt8>, into buffer: inout [UInt8]) {
        let contiguous = Array(bytes)
        contiguous.withUnsafeBufferPointer { encode($0, encodedLength: encodedLength($0), into: &buffer) }
    }

    /// `encode(_:into:)` for bytes whose `encodedLength(_:)` is known: the room is made once and
    /// written through a pointer (appending byte by byte cost more than the coding).
    package static func encode(
        _ bytes: UnsafeBufferPointer<UInt8>, encodedLength: Int, into buffer: inout [UInt8]
    ) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: encodedLength))
        buffer.withUnsafeMutableBufferPointer { out in
            HPACKHuffmanTable.codes.withUnsafeBufferPointer { codes in
                var accumulator: UInt64 = 0
                var pending = 0  // bits of `accumulator` not yet written; always < 8 between symbols
                var written = start
                for byte in bytes {
                    let entry = codes[Int(byte)]
                    accumulator = accumulator << UInt64(entry.length) | UInt64(entry.code)
                    pending += Int(entry.length)
                    while pending >= 8 {
                        pending -= 8
                        out[written] = UInt8(truncatingIfNeeded: accumulator >> UInt64(pending))
                        written += 1
                    }
                }
                if pending > 0 {
                    out[written] = UInt8(
                        truncatingIfNeeded: accumulator << UInt64(8 - pending) | (0xFF >> UInt64(pending)))
                }
            }
        }
    }

    /// Decodes the Huffman string in `bytes[range]`, appending the symbols to `output`.
    /// Fails on EOS, on padding longer than 7 bits, and on padding that is not all ones; errors carry the
    /// offset of the string's first octet.
    package static func decode(
        _ bytes: [UInt8], range: Range<Int>, into output: inout [UInt8]
    ) throws(HPACKError) {
        let automaton = HPACKHuffmanAutomaton.shared
        // Codes are at least 5 bits long: at most 8/5 symbols per byte. The room is made once and
        // written through pointers; appending symbol by symbol cost more than decoding them.
        let start = output.count
        let room = range.count * 8 / 5 + 1
        output.append(contentsOf: repeatElement(0, count: room))
        var state = 0
        var failed = false
        let written = output.withUnsafeMutableBufferPointer { out in
            automaton.transitions.withUnsafeBufferPointer { table in
                bytes.withUnsafeBufferPointer { input in
                    var written = start
                    for index in range {
                        let byte = Int(input[index])
                        var shift = 4
                        while shift >= 0 {
                            let step = table[state << 4 | (byte >> shift) & 0x0F]
                            shift -= 4
                            if step & HPACKHuffmanAutomaton.failsFlag != 0 {
                                failed = true
                                return written
                            }
                            if step & HPACKHuffmanAutomaton.emitsFlag != 0 {
                                out[written] = UInt8(truncatingIfNeeded: step >> 8)
                                written += 1
                            }
                            state = Int(step & 0xFF)
                        }
                    }
                    return written
                }
            }
        }
        output.removeLast(output.count - written)
        if failed {
            throw HPACKError(.huffmanEOS, value: HPACKHuffmanTable.eos, offset: range.lowerBound)
        }
        switch automaton.endings[state] {
        case .accepted:
            return
        case .paddingTooLong:
            throw HPACKError(.huffmanPaddingTooLong, value: automaton.depths[state], offset: range.lowerBound)
        case .paddingNotOnes:
            throw HPACKError(.huffmanPaddingNotOnes, value: automaton.depths[state], offset: range.lowerBound)
        }
    }
}

/// The four-bits-at-a-time decoding automaton for the HPACK Huffman code, built from the code table.
package struct HPACKHuffmanAutomaton: Sendable {
    /// Set in a transition that reaches EOS: the string is invalid.
    package static let failsFlag: UInt32 = 1 << 17
    /// Set in a transition that completes a symbol, stored in bits 8...15.
    package static let emitsFlag: UInt32 = 1 << 16

    /// How a string may end in a given state.
    package enum Ending: Sendable {
        /// At a symbol boundary, or after at most 7 one bits (a prefix of EOS).
        case accepted
        /// After 8 or more one bits.
        case paddingTooLong
        /// Inside a code whose bits so far are not all ones.
        case paddingNotOnes
    }

    /// The automaton every decoder shares.
    package static let shared = HPACKHuffmanAutomaton()

    /// `transitions[state << 4 | nibble]`: next state in bits 0...7, symbol in bits 8...15, plus flags.
    package let transitions: [UInt32]
    /// For each state (internal tree node), whether a string may end there.
    package let endings: [Ending]
    /// For each state, its depth in the code tree: the bits read since the last complete symbol.
    package let depths: [Int]

    private init() {
        // The code tree: internal nodes hold two children, each another node (>= 0) or a leaf (-1 - symbol).
        var children: [[Int]] = [[0, 0]]
        var depths = [0]
        var allOnes = [true]
        var hasChild: [[Bool]] = [[false, false]]
        for (symbol, entry) in HPACKHuffmanTable.codes.enumerated() {
            var node = 0
            for position in stride(from: Int(entry.length) - 1, through: 0, by: -1) {
                let bit = Int(entry.code >> UInt32(position)) & 1
                if position == 0 {
                    children[node][bit] = -1 - symbol
                    hasChild[node][bit] = true
                } else if hasChild[node][bit] {
                    node = children[node][bit]
                } else {
                    let next = children.count
                    children.append([0, 0])
                    hasChild.append([false, false])
                    depths.append(depths[node] + 1)
                    allOnes.append(allOnes[node] && bit == 1)
                    children[node][bit] = next
                    hasChild[node][bit] = true
                    node = next
                }
            }
        }
        precondition(children.count == 256, "the Appendix B code has 256 internal nodes")

        var transitions = [UInt32](repeating: 0, count: 256 * 16)
        for state in 0..<256 {
            for nibble in 0..<16 {
                var node = state
                var step: UInt32 = 0
                for position in stride(from: 3, through: 0, by: -1) {
                    let child = children[node][(nibble >> position) & 1]
                    if child >= 0 {
                        node = child
                        continue
                    }
                    let symbol = -1 - child
                    if symbol == HPACKHuffmanTable.eos {
                        step |= Self.failsFlag
                        break
                    }
                    step |= Self.emitsFlag | UInt32(symbol) << 8
                    node = 0
                }
                transitions[state << 4 | nibble] = step | UInt32(node)
            }
        }
        self.transitions = transitions
        self.depths = depths
        self.endings = (0..<256).map { state in
            if !allOnes[state] { return .paddingNotOnes }
            return depths[state] <= 7 ? .accepted : .paddingTooLong
        }
    }
}
