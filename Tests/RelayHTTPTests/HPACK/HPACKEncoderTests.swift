import RelayHTTP
import RelayTestKit
import XCTest

final class HPACKEncoderTests: XCTestCase {
    private func encode(_ encoder: inout HPACKEncoder, _ headers: [(String, String)]) -> [UInt8] {
        var buffer: [UInt8] = []
        encoder.encode(headers.map { (name: $0.0, value: $0.1) }, into: &buffer)
        return buffer
    }

    func testSensitiveFieldsAreNeverIndexedLiterals() {
        var encoder = HPACKEncoder()
        let block = encode(&encoder, [(":path", "/3/device/abc"), ("authorization", "bearer x")])
        // 0001 0100: never indexed, static name :path (4); 0x8a: Huffman, 10 octets.
        XCTAssertEqual(Array(block.prefix(2)), [0x14, 0x8A])
        // 0001 1111 0x08: never indexed, static name authorization (15 + 8 = 23); 0x86: Huffman, 6 octets.
        XCTAssertEqual(Array(block[12...14]), [0x1F, 0x08, 0x86])
        XCTAssertEqual(block.count, 21)
        // Sent again: still literals, the table stays empty.
        XCTAssertEqual(encode(&encoder, [(":path", "/3/device/abc"), ("authorization", "bearer x")]), block)
    }

    func testPerMessageIDsAreNotIndexedOnceTheirNameIs() {
        var encoder = HPACKEncoder()
        // The first apns-id enters the table (0x40: new name), which names it from then on.
        let first = encode(&encoder, [("apns-id", "a")])
        XCTAssertEqual(first.first, 0x40)
        // 0000 1111 0x2f: literal without indexing, dynamic name index 62 (15 + 47); value "b".
        XCTAssertEqual(encode(&encoder, [("apns-id", "b")]), [0x0F, 0x2F, 0x01, 0x62])
        // Nothing was added: the first entry is still at 62, and a header sent twice still finds it.
        XCTAssertEqual(encode(&encoder, [("apns-id", "c")]), [0x0F, 0x2F, 0x01, 0x63])
        XCTAssertEqual(encode(&encoder, [("apns-id", "a")]), [0xBE])
    }

    func testStatusesOfTheStaticTableAreIndexedAndIDsAreSentRaw() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        for (status, index) in [
            ("200", 0x88), ("204", 0x89), ("206", 0x8A), ("304", 0x8B), ("400", 0x8C), ("404", 0x8D), ("500", 0x8E),
        ] {
            XCTAssertEqual(encode(&encoder, [(":status", status)]), [UInt8(index)], status)
        }
        let other = encode(&encoder, [(":status", "429")])
        XCTAssertEqual(other.first, 0x48, "429: a literal naming :status (index 8), added to the table")
        assertHeaders(try decoder.decode([0x88]), [(":status", "200")], "indexed 200")
        let id = "0f4e5c3a-7f31-4c55-9d7e-2b8f1a6c0d9e"
        _ = encode(&encoder, [("apns-id", "first")])
        let block = encode(&encoder, [("apns-id", id)])
        // Not indexed, name from the table, then the value's length without the Huffman bit and its bytes.
        XCTAssertEqual(Array(block.suffix(37)), [36] + Array(id.utf8))
    }

    func testEveryStaticEntryIsFoundAtItsFirstIndex() {
        for (offset, entry) in HPACKStaticTable.entries.enumerated() {
            let first = HPACKStaticTable.entries.firstIndex { $0 == entry }.map { $0 + 1 }
            XCTAssertEqual(
                HPACKStaticTable.index(of: HPACKField(name: entry.name, value: entry.value)), first, "\(offset + 1)")
        }
        XCTAssertNil(HPACKStaticTable.index(of: HPACKField(name: ":status", value: "429")))
        XCTAssertNil(HPACKStaticTable.index(of: HPACKField(name: ":status", value: "")))
    }

    func testStaticMatchesAreIndexed() {
        var encoder = HPACKEncoder()
        XCTAssertEqual(
            encode(&encoder, [(":method", "POST"), (":scheme", "https"), (":path", "/"), (":status", "200")]),
            [0x83, 0x87, 0x84, 0x88])
    }

    func testRepeatedFieldsUseTheDynamicTable() {
        var encoder = HPACKEncoder()
        // 0x40 | 0: new name; "apns-topic" Huffman is 7 octets; value "x" is raw (Huffman is no shorter).
        let first = encode(&encoder, [("apns-topic", "x")])
        XCTAssertEqual(hexString(first), "40" + "87" + hexString(huffman("apns-topic")) + "01" + "78")
        XCTAssertEqual(encode(&encoder, [("apns-topic", "x")]), [0xBE])  // dynamic index 62
        // Same name, new value: literal with indexing naming dynamic index 62 (0x40 | 62 = 0x7e).
        XCTAssertEqual(encode(&encoder, [("apns-topic", "y")]), [0x7E, 0x01, 0x79])
        XCTAssertEqual(encode(&encoder, [("apns-topic", "x"), ("apns-topic", "y")]), [0xBF, 0xBE])
    }

    func testFieldLargerThanTheTableIsNotIndexed() {
        var encoder = HPACKEncoder(maxTableSize: 64)
        let value = String(repeating: "~", count: 40)  // '~' is 13 bits: Huffman is longer, sent raw
        let block = encode(&encoder, [("x-big", value)])
        // Size update to 64 (0x3f 0x21), then literal without indexing (0x00), new name.
        XCTAssertEqual(Array(block.prefix(3)), [0x3F, 0x21, 0x00])
        XCTAssertEqual(encode(&encoder, [("x-big", value)]).first, 0x00, "not in the table the second time")
    }

    func testSizeChangesAreAnnouncedSmallestThenCurrent() {
        var encoder = HPACKEncoder()
        _ = encode(&encoder, [("a", "b")])
        encoder.setMaxTableSize(0)
        encoder.setMaxTableSize(2048)
        // 0x20: size 0; 0x3f 0xe1 0x0f: 2048; then a: b is a new literal, as 0 evicted it.
        XCTAssertEqual(hexString(encode(&encoder, [("a", "b")])), "20" + "3fe10f" + "4001610162")
        XCTAssertEqual(encode(&encoder, [("a", "b")]), [0xBE], "no update once announced")
        encoder.setMaxTableSize(2048)
        XCTAssertEqual(encode(&encoder, [("a", "b")]), [0xBE], "an unchanged size is not announced")
        encoder.setMaxTableSize(1 << 20)
        XCTAssertEqual(encoder.maxTableSize, HPACKEncoder.tableSizeCap)
        XCTAssertEqual(encode(&encoder, []), [0x3F, 0xE1, 0xFF, 0x03])  // 65536 = 31 + 65505
    }

    func testPerMessageIDsAreFoundAgainAfterEvictionAndResize() throws {
        var encoder = HPACKEncoder(maxTableSize: 200)
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        _ = try decoder.decode(encode(&encoder, []))  // the size update
        let id = "0f4e5c3a-7f31-4c55-9d7e-2b8f1a6c0d9e"
        for (round, headers) in [
            [("apns-unique-id", id)],
            [("apns-unique-id", id)],  // the same value again: found whole
            [("x-filler-one", String(repeating: "a", count: 80)), ("x-filler-two", String(repeating: "b", count: 80))],
            [("apns-unique-id", "1" + id.dropFirst())],  // its entry was evicted: it enters the table again
            [("apns-unique-id", "1" + id.dropFirst())],
        ].enumerated() {
            let block = encode(&encoder, headers)
            assertHeaders(try decoder.decode(block), headers, "round \(round)")
            switch round {
            case 0, 3: XCTAssertEqual(block.first, 0x40, "round \(round): a new name is added")
            case 1, 4: XCTAssertEqual(block, [0xBE], "round \(round): the whole field is in the table")
            default: break
            }
        }
        encoder.setMaxTableSize(0)
        let block = encode(&encoder, [("apns-unique-id", id)])
        XCTAssertEqual(block.first, 0x20, "a size update comes first")
        assertHeaders(try decoder.decode(block), [("apns-unique-id", id)], "after the resize")
    }

    func testChurnStaysInSyncWithOurDecoder() throws {
        var encoder = HPACKEncoder(maxTableSize: 512)
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        var generator = SplitMix64(seed: 42)
        for round in 0..<400 {
            if round % 97 == 96 {
                let size = Int(generator.next() % 3000)
                encoder.setMaxTableSize(size)
            }
            let headers: [(String, String)] = (0..<Int(generator.next() % 8)).map { _ in
                let name = [
                    "apns-id", "apns-topic", "x-n\(generator.next() % 40)", "content-type", ":path", "apns-unique-id",
                    "apns-channel-id",
                ][Int(generator.next() % 7)]
                return (name, "v\(generator.next() % 60)")
            }
            let block = encode(&encoder, headers)
            assertHeaders(try decoder.decode(block), headers, "round \(round)")
        }
    }

    private func huffman(_ text: String) -> [UInt8] {
        var buffer: [UInt8] = []
        HPACKHuffman.encode(text.utf8, into: &buffer)
        return buffer
    }
}
