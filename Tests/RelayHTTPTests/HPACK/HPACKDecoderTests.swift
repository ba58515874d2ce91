import RelayHTTP
import RelayTestKit
import XCTest

final class HPACKDecoderTests: XCTestCase {
    private func decodeError(_ block: [UInt8], decoder: inout HPACKDecoder) -> HPACKError? {
        do {
            _ = try decoder.decode(block)
            return nil
        } catch {
            return error
        }
    }

    func testMalformedBlocksAreRejected() {
        let cases: [(hex: String, reason: HPACKError.Reason, value: Int, offset: Int, why: String)] = [
            ("80", .invalidIndex, 0, 0, "indexed field with index 0"),
            ("82 be", .invalidIndex, 62, 1, "dynamic index 62 in an empty table"),
            ("ff 80 80 80 80 80 00", .integerOverflow, 127, 0, "too many continuation octets"),
            ("ff", .truncated, 127, 0, "index integer cut short"),
            ("40", .truncated, 0, 1, "literal with new name, name length missing"),
            ("40 05 61 62", .truncated, 5, 1, "name shorter than its length"),
            ("40 01 61", .truncated, 0, 3, "value missing"),
            ("41 7f", .truncated, 127, 1, "value length integer cut short"),
            ("41 ff ff ff ff ff 0f", .integerOverflow, 4_294_967_422, 1, "string length above 32 bits"),
            ("41 84 ff ff ff ff", .huffmanEOS, 256, 2, "value with EOS"),
            ("41 81 1e", .huffmanPaddingNotOnes, 3, 2, "value with zero padding"),
            ("41 82 1f ff", .huffmanPaddingTooLong, 11, 2, "value with 11 bits of padding"),
            ("0f 2f 00", .invalidIndex, 62, 0, "literal name index beyond the tables"),
            ("3f e2 1f", .tableSizeUpdateTooLarge, 4097, 0, "size update above 4096"),
            ("82 20", .tableSizeUpdateNotAtStart, 0x20, 1, "size update after a field"),
        ]
        for item in cases {
            var decoder = HPACKDecoder()
            let error = decodeError(hexBytes(item.hex), decoder: &decoder)
            XCTAssertEqual(error, HPACKError(item.reason, value: item.value, offset: item.offset), item.why)
            XCTAssertEqual(error?.isHeaderListTooLarge, false, item.why)
        }
    }

    func testLongHuffmanLiteralsDecodeTheSameWhenTheyRepeat() throws {
        // A provider token sent with every request, paths that change, and more long values than
        // the decoder remembers, in an order that reuses and evicts them.
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        var generator = SplitMix64(seed: 7)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        func text(_ count: Int) -> String {
            String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        }
        let tokens = (0..<6).map { _ in "bearer " + text(180) }
        for round in 0..<200 {
            let token = tokens[round % 3 == 0 ? Int(generator.next() % 6) : 0]
            let fields: [(String, String)] = [
                (":method", "POST"), (":path", "/3/device/" + text(64)), ("authorization", token),
                ("x-long", round % 5 == 0 ? text(90) : "short"),
            ]
            var block: [UInt8] = []
            encoder.encode(fields.map { (name: $0.0, value: $0.1) }, into: &block)
            assertHeaders(try decoder.decode(block), fields, "round \(round)")
        }
        // A long value that does not decode is refused every time it comes, never remembered.
        var bad = hexBytes("10 0d") + Array("authorization".utf8) + [0x80 | 60] + [UInt8](repeating: 0xFF, count: 60)
        for _ in 0..<2 {
            XCTAssertEqual(decodeError(bad, decoder: &decoder)?.reason, .huffmanEOS)
        }
        bad[bad.count - 1] = 0x00
        XCTAssertNotNil(decodeError(bad, decoder: &decoder))
    }

    func testNamesAreReturnedAsSent() throws {
        // Literal without indexing, new name "X-Id" (HTTP/2 would reject it; HPACK does not judge).
        var decoder = HPACKDecoder()
        assertHeaders(try decoder.decode(hexBytes("00 04 582d4964 01 31")), [("X-Id", "1")])
    }

    func testInvalidUTF8IsReplacedButCountedAsWireOctets() throws {
        var decoder = HPACKDecoder()
        // Literal with indexing: name "a", value 0xff (one octet, not UTF-8).
        let headers = try decoder.decode(hexBytes("40 01 61 01 ff"))
        assertHeaders(headers, [("a", "\u{FFFD}")])
        XCTAssertEqual(decoder.tableSize.size, 1 + 1 + 32)
    }

    func testSizeUpdatesAtBlockStartResizeAndEvict() throws {
        var decoder = HPACKDecoder()
        _ = try decoder.decode(hexBytes("40 01 61 01 62"))  // a: b, 34 octets
        XCTAssertEqual(decoder.tableSize.size, 34)
        // Two updates at the start (0 then 100), then the field at dynamic index 62 is gone.
        XCTAssertEqual(
            decodeError(hexBytes("20 3f 45 be"), decoder: &decoder), HPACKError(.invalidIndex, value: 62, offset: 3))
        XCTAssertEqual(decoder.tableSize.maxSize, 100)
        XCTAssertEqual(decoder.tableSize.size, 0)
    }

    func testLoweringTheAllowedSizeRequiresAnUpdate() throws {
        var decoder = HPACKDecoder()
        decoder.setMaxAllowedTableSize(1024)
        XCTAssertEqual(
            decodeError(hexBytes("82"), decoder: &decoder),
            HPACKError(.tableSizeUpdateMissing, value: 4096, offset: 0))
        XCTAssertEqual(
            decodeError(hexBytes("3f e2 0f 82"), decoder: &decoder),  // 2049
            HPACKError(.tableSizeUpdateTooLarge, value: 2049, offset: 0))
        assertHeaders(try decoder.decode(hexBytes("3f e1 07 82")), [(":method", "GET")])  // 1024
        XCTAssertEqual(decoder.tableSize.maxSize, 1024)
        assertHeaders(try decoder.decode(hexBytes("82")), [(":method", "GET")])
    }

    func testRaisingTheAllowedSizeNeedsNoUpdate() throws {
        var decoder = HPACKDecoder()
        decoder.setMaxAllowedTableSize(8192)
        assertHeaders(try decoder.decode(hexBytes("82")), [(":method", "GET")])
        _ = try decoder.decode(hexBytes("3f e1 3f"))  // 8192 = 31 + 8161 (0x1fe1)
        XCTAssertEqual(decoder.tableSize.maxSize, 8192)
    }

    func testHeaderListLimitIsDistinctAndKeepsTheTableInSync() throws {
        // Each field "a: b" counts 34; the limit allows two of them.
        var decoder = HPACKDecoder(maxHeaderListSize: 68)
        assertHeaders(try decoder.decode(hexBytes("40 01 61 01 62  be")), [("a", "b"), ("a", "b")])
        // Three fields: too many, but the literal after the limit is still inserted.
        let block = hexBytes("be be 40 01 63 01 64")
        XCTAssertEqual(
            decodeError(block, decoder: &decoder), HPACKError(.headerListTooLarge, value: 102, offset: block.count))
        XCTAssertEqual(decodeError(block, decoder: &decoder)?.isHeaderListTooLarge, true)
        assertHeaders(decoder.tableEntries, [("c", "d"), ("c", "d"), ("a", "b")])
        decoder.maxHeaderListSize = 1000
        assertHeaders(try decoder.decode(hexBytes("be c0")), [("c", "d"), ("a", "b")])
    }

    func testHeaderListSizeCountsWireOctetsOfEveryRepresentation() throws {
        var decoder = HPACKDecoder(maxHeaderListSize: 42 + 42)
        // :method GET (7 + 3 + 32 = 42) twice fits; a third does not.
        assertHeaders(try decoder.decode(hexBytes("82 82")), [(":method", "GET"), (":method", "GET")])
        XCTAssertEqual(decodeError(hexBytes("82 82 82"), decoder: &decoder)?.value, 126)
    }

    func testEntryLargerThanTheTableEmptiesIt() throws {
        var decoder = HPACKDecoder(maxTableSize: 40)
        _ = try decoder.decode(hexBytes("40 01 61 01 62"))  // 34 octets
        XCTAssertEqual(decoder.tableSize.size, 34)
        _ = try decoder.decode(hexBytes("40 01 61 09 313233343536373839"))  // 42 octets > 40
        XCTAssertEqual(decoder.tableSize.size, 0)
        XCTAssertTrue(decoder.tableEntries.isEmpty)
    }
}
