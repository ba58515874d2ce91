import RelayNet
import XCTest

final class ES256Tests: XCTestCase {
    private let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0".utf8)

    private static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    func testSignatureIsRawAndVerifies() throws {
        let key = try P256PrivateKey()
        let signature = try ES256.sign(message, key: key)
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(ES256.verify(signature: signature, message: message, key: try key.publicKey))
        XCTAssertTrue(ES256.verify(signature: try ES256.sign([], key: key), message: [], key: try key.publicKey))
    }

    func testTamperingFails() throws {
        let key = try P256PrivateKey()
        let publicKey = try key.publicKey
        let signature = try ES256.sign(message, key: key)
        var changedMessage = message
        changedMessage[3] ^= 1
        XCTAssertFalse(ES256.verify(signature: signature, message: changedMessage, key: publicKey))
        for index in [0, 31, 32, 63] {
            var changed = signature
            changed[index] ^= 0x80
            XCTAssertFalse(ES256.verify(signature: changed, message: message, key: publicKey), "byte \(index)")
        }
        XCTAssertFalse(ES256.verify(signature: signature, message: message, key: try P256PrivateKey().publicKey))
    }

    func testWrongLengthsAndOutOfRangeValuesFail() throws {
        let key = try P256PrivateKey()
        let publicKey = try key.publicKey
        let signature = try ES256.sign(message, key: key)
        for bad in [
            [], Array(signature.prefix(63)), signature + [0], try derOf(signature),
            [UInt8](repeating: 0, count: 64), [UInt8](repeating: 0xFF, count: 64),
        ] {
            XCTAssertFalse(ES256.verify(signature: bad, message: message, key: publicKey), "\(bad.count) bytes")
        }
    }

    func testHighSIsAccepted() throws {
        let key = try P256PrivateKey()
        let signature = try ES256.sign(message, key: key)
        // s' = n - s is the other valid signature for the same r.
        let order = Self.bytes(hex: "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
        var flipped = Array(signature.prefix(32))
        var borrow = 0
        var s = [UInt8](repeating: 0, count: 32)
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = Int(order[index]) - Int(signature[32 + index]) - borrow
            s[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        flipped += s
        XCTAssertNotEqual(flipped, signature)
        XCTAssertTrue(ES256.verify(signature: flipped, message: message, key: try key.publicKey))
    }

    func testVerifiesTheOpenSSLCommandLineSignature() throws {
        let der = Self.bytes(hex: ES256Fixtures.cliSignatureDERHex)
        let raw = try XCTUnwrap(ES256.rawSignature(fromDER: der))
        let publicKey = try P256PublicKey(pem: ES256Fixtures.cliPublicKeyPEM)
        XCTAssertTrue(ES256.verify(signature: raw, message: Array(ES256Fixtures.cliMessage.utf8), key: publicKey))
        XCTAssertEqual(ES256.derSignature(fromRaw: raw), der)
    }

    func testDERConversionRefusesMalformedInput() {
        XCTAssertNil(ES256.rawSignature(fromDER: []))
        XCTAssertNil(ES256.rawSignature(fromDER: [0x30, 0x03, 0x02, 0x01]))
        // r with 33 significant bytes does not fit P-256.
        XCTAssertNil(
            ES256.rawSignature(
                fromDER: [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 1, count: 32)
                    + [0x02, 0x01, 0x01]))
        XCTAssertNil(ES256.derSignature(fromRaw: [UInt8](repeating: 1, count: 63)))
        XCTAssertEqual(
            ES256.derSignature(
                fromRaw: [UInt8](repeating: 0, count: 31) + [5] + [UInt8](repeating: 0, count: 31) + [7]),
            [0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07])
    }

    private func derOf(_ raw: [UInt8]) throws -> [UInt8] { try XCTUnwrap(ES256.derSignature(fromRaw: raw)) }
}
