import RelayNet
import XCTest

final class Base64URLTests: XCTestCase {
    func testRFC4648VectorsWithoutPadding() throws {
        let vectors = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64URL.encode(Array(plain.utf8)), encoded, plain)
            XCTAssertEqual(try Base64URL.decode(encoded), Array(plain.utf8), encoded)
        }
    }

    func testUsesTheURLAlphabet() throws {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF, 0xBF]), "-_-_")
        XCTAssertEqual(try Base64URL.decode("-_-_"), [0xFB, 0xFF, 0xBF])
    }

    func testEveryLengthRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(try Base64URL.decode(Base64URL.encode(bytes)), bytes)
        }
    }

    func testRejectsAnythingNotStrict() {
        let cases: [(String, Int, String)] = [
            ("Zg==", 2, "padding"),
            ("Zm9v YQ", 4, "alphabet"),
            ("Zm9v+A", 4, "alphabet"),
            ("Zm9v/A", 4, "alphabet"),
            ("Zm\n9vY", 2, "alphabet"),
            ("Zm9vé", 4, "alphabet"),
            ("Z", 0, "length"),
            ("Zm9vY", 4, "length"),
            ("Zh", 1, "trailing bits"),
            ("Zm9", 2, "trailing bits"),
        ]
        for (text, offset, reason) in cases {
            XCTAssertThrowsError(try Base64URL.decode(text), text) { error in
                let failure = error as? Base64URLError
                XCTAssertEqual(failure?.offset, offset, text)
                XCTAssertTrue(failure?.reason.contains(reason) ?? false, "\(text): \(String(describing: failure))")
            }
        }
    }
}
