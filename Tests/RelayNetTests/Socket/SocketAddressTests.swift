import RelayNet
import XCTest

final class SocketAddressTests: XCTestCase {
    func testParsesLiteralsAndLocalhost() throws {
        let cases: [(host: String, family: Int32, description: String)] = [
            ("127.0.0.1", 2, "127.0.0.1:8443"),
            ("localhost", 2, "127.0.0.1:8443"),
            ("0.0.0.0", 2, "0.0.0.0:8443"),
            ("::1", 10, "[::1]:8443"),
            ("[::1]", 10, "[::1]:8443"),
            ("::", 10, "[::]:8443"),
            ("fe80::1", 10, "[fe80::1]:8443"),
        ]
        for entry in cases {
            let address = try SocketAddress(host: entry.host, port: 8443)
            XCTAssertEqual(address.family, entry.family, entry.host)
            XCTAssertEqual(address.description, entry.description, entry.host)
            XCTAssertEqual(address.port, 8443)
        }
    }

    func testRefusesNamesAndGarbage() {
        for host in ["example.com", "", "127.0.0.256", "1.2.3", "[::1", "::g"] {
            XCTAssertThrowsError(try SocketAddress(host: host, port: 1)) { error in
                XCTAssertEqual((error as? SocketAddressError)?.host, host)
            }
        }
    }
}
