import RelayHTTP
import XCTest

/// RFC 7541 Appendix C: every example block, decoded in sequence with the table checked after each, and
/// re-encoded by our encoder where its policy matches the example's (C.4 and C.6 use Huffman throughout).
final class HPACKAppendixCTests: XCTestCase {
    private typealias Step = (block: String, headers: [(String, String)], table: [(String, String)], size: Int)

    // MARK: - C.2 single representations

    func testC2LiteralRepresentations() throws {
        let cases: [(block: String, header: (String, String), tableSize: Int)] = [
            // C.2.1 literal with indexing, new name
            ("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", ("custom-key", "custom-header"), 55),
            // C.2.2 literal without indexing, indexed name :path
            ("040c 2f73 616d 706c 652f 7061 7468", (":path", "/sample/path"), 0),
            // C.2.3 literal never indexed, new name
            ("1008 7061 7373 776f 7264 0673 6563 7265 74", ("password", "secret"), 0),
            // C.2.4 indexed field, static index 2
            ("82", (":method", "GET"), 0),
        ]
        for item in cases {
            var decoder = HPACKDecoder()
            assertHeaders(try decoder.decode(hexBytes(item.block)), [item.header], item.block)
            XCTAssertEqual(decoder.tableSize.size, item.tableSize, item.block)
        }
    }

    // MARK: - C.3 / C.4 requests

    private let requests: [(headers: [(String, String)], table: [(String, String)], size: Int)] = [
        (
            [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")],
            [(":authority", "www.example.com")], 57
        ),
        (
            [
                (":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com"),
                ("cache-control", "no-cache"),
            ],
            [("cache-control", "no-cache"), (":authority", "www.example.com")], 110
        ),
        (
            [
                (":method", "GET"), (":scheme", "https"), (":path", "/index.html"),
                (":authority", "www.example.com"), ("custom-key", "custom-value"),
            ],
            [("custom-key", "custom-value"), ("cache-control", "no-cache"), (":authority", "www.example.com")], 164
        ),
    ]

    func testC3RequestsWithoutHuffman() throws {
        let blocks = [
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ]
        try run(zip(blocks, requests).map { ($0, $1.headers, $1.table, $1.size) }, tableSize: 4096, encodes: false)
    }

    func testC4RequestsWithHuffman() throws {
        let blocks = [
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ]
        try run(zip(blocks, requests).map { ($0, $1.headers, $1.table, $1.size) }, tableSize: 4096, encodes: true)
    }

    // MARK: - C.5 / C.6 responses, table size 256 (evictions)

    private let date1 = "Mon, 21 Oct 2013 20:13:21 GMT"
    private let date2 = "Mon, 21 Oct 2013 20:13:22 GMT"
    private let location = "https://www.example.com"
    private let cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"

    private var responses: [(headers: [(String, String)], table: [(String, String)], size: Int)] {
        [
            (
                [(":status", "302"), ("cache-control", "private"), ("date", date1), ("location", location)],
                [("location", location), ("date", date1), ("cache-control", "private"), (":status", "302")], 222
            ),
            (
                [(":status", "307"), ("cache-control", "private"), ("date", date1), ("location", location)],
                [(":status", "307"), ("location", location), ("date", date1), ("cache-control", "private")], 222
            ),
            (
                [
                    (":status", "200"), ("cache-control", "private"), ("date", date2), ("location", location),
                    ("content-encoding", "gzip"), ("set-cookie", cookie),
                ],
                [("set-cookie", cookie), ("content-encoding", "gzip"), ("date", date2)], 215
            ),
        ]
    }

    func testC5ResponsesWithoutHuffman() throws {
        let blocks = [
            """
            4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a
            3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d
            """,
            "4803 3330 37c1 c0bf",
            """
            88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04
            677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49
            553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31
            """,
        ]
        try run(zip(blocks, responses).map { ($0, $1.headers, $1.table, $1.size) }, tableSize: 256, encodes: false)
    }

    func testC6ResponsesWithHuffman() throws {
        let blocks = [
            """
            4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e
            919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3
            """,
            "4883 640e ffc1 c0bf",
            """
            88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7
            821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed
            4ee5 b106 3d50 07
            """,
        ]
        // C.6.2 Huffman-codes "307" although that saves nothing; our encoder then sends it raw, as in C.5.2.
        try run(
            zip(blocks, responses).map { ($0, $1.headers, $1.table, $1.size) }, tableSize: 256, encodes: true,
            ourBlocks: [1: "4803 3330 37c1 c0bf"])
    }

    // MARK: - Driver

    /// Decodes the blocks in sequence checking headers and table after each; when `encodes`, also checks
    /// that our encoder produces the same bytes (after the size update it owes when the size is not 4096),
    /// or `ourBlocks[step]` where its Huffman choice differs.
    private func run(_ steps: [Step], tableSize: Int, encodes: Bool, ourBlocks: [Int: String] = [:]) throws {
        var decoder = HPACKDecoder(maxTableSize: tableSize)
        var encoder = HPACKEncoder(maxTableSize: tableSize)
        for (number, step) in steps.enumerated() {
            let block = hexBytes(step.block)
            assertHeaders(try decoder.decode(block), step.headers, "block \(number + 1)")
            assertHeaders(decoder.tableEntries, step.table, "table after block \(number + 1)")
            XCTAssertEqual(decoder.tableSize.size, step.size, "table size after block \(number + 1)")
            guard encodes else { continue }
            var encoded: [UInt8] = []
            encoder.encode(step.headers.map { (name: $0.0, value: $0.1) }, into: &encoded)
            // A table of 256 is announced up front: 001 11111 then 256 - 31 = 225 as 0xe1 0x01.
            let ours = ourBlocks[number].map { hexBytes($0) } ?? block
            let expected = (number == 0 && tableSize != 4096 ? [0x3F, 0xE1, 0x01] : []) + ours
            XCTAssertEqual(hexString(encoded), hexString(expected), "encoding of block \(number + 1)")
        }
    }
}
