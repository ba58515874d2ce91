import RelayCore
import XCTest

final class Base64CodecTests: XCTestCase {
    /// RFC 4648 §10 test vectors.
    func testRFCVectors() {
        let vectors = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64Codec.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64Codec.decode(encoded), Array(plain.utf8))
            let url = encoded.replacingOccurrences(of: "=", with: "")
            XCTAssertEqual(Base64Codec.encodeURL(Array(plain.utf8)), url)
            XCTAssertEqual(Base64Codec.decodeURL(Substring(url)), Array(plain.utf8))
        }
    }

    func testAlphabetsDiffer() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        XCTAssertEqual(Base64Codec.encode(bytes), "+/+/")
        XCTAssertEqual(Base64Codec.encodeURL(bytes), "-_-_")
        XCTAssertNil(Base64Codec.decodeURL("+/+/"))
        XCTAssertNil(Base64Codec.decode("-_-_"))
    }

    func testStrictDecodingRejectsNonCanonicalInput() {
        for bad in ["Zg", "Zg=", "Zh==", "Z===", "Zm9v=", "Zm9v Yg==", "====", "Zg==Zg==", "Zm9=v"] {
            XCTAssertNil(Base64Codec.decode(bad), bad)
        }
        for bad in ["Zg==", "Zh", "Z", "Zm9vY", "Zm9v\n"] {
            XCTAssertNil(Base64Codec.decodeURL(Substring(bad)), bad)
        }
    }

    func testRandomBytesRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(Base64Codec.decode(Base64Codec.encode(bytes)), bytes)
            XCTAssertEqual(Base64Codec.decodeURL(Substring(Base64Codec.encodeURL(bytes))), bytes)
        }
    }
}
