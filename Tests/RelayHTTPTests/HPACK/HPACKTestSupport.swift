import RelayHTTP
import XCTest

/// Bytes from hex digits; spaces and newlines are ignored, so RFC dumps can be pasted as they are.
func hexBytes(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    let digits = text.unicodeScalars.filter { !$0.properties.isWhitespace }.map { Character($0) }
    var bytes: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
            XCTFail("bad hex near \(index) in \(text)", file: file, line: line)
            return []
        }
        bytes.append(byte)
        index += 2
    }
    if index != digits.count { XCTFail("odd number of hex digits in \(text)", file: file, line: line) }
    return bytes
}

/// Lowercase hex of `bytes`, for failure messages and fixtures.
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return text
}

/// Asserts two header lists are equal, field by field.
func assertHeaders(
    _ actual: [(name: String, value: String)], _ expected: [(String, String)],
    _ message: String = "", file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(actual.map(\.name), expected.map(\.0), message, file: file, line: line)
    XCTAssertEqual(actual.map(\.value), expected.map(\.1), message, file: file, line: line)
}
