import RelayCore
import RelayServer
import XCTest

final class SecureIdentifiersTests: XCTestCase {
    func testPooledDrawsNeverRepeatAcrossRefills() {
        let ids = SecureIdentifiers()
        var seen = Set<[UInt8]>()
        // 1,000 draws of 16 bytes span four refills of the 4 KiB pool.
        for _ in 0..<1000 {
            let bytes = ids.randomBytes(16)
            XCTAssertEqual(bytes.count, 16)
            XCTAssertTrue(seen.insert(bytes).inserted)
        }
        XCTAssertEqual(ids.randomBytes(0), [])
        XCTAssertEqual(ids.randomBytes(200).count, 200)
        XCTAssertEqual(Set(ids.randomBytes(5000)).count > 200, true, "a large draw is random bytes, not a fill")
    }

    func testUUIDsAreVersion4InLowercase() {
        let ids = SecureIdentifiers()
        let uuids = (0..<300).map { _ in ids.uuid() }
        XCTAssertEqual(Set(uuids).count, 300)
        for uuid in uuids {
            let characters = Array(uuid)
            XCTAssertEqual(characters.count, 36)
            XCTAssertEqual(characters[14], "4")
            XCTAssertTrue("89ab".contains(characters[19]), uuid)
            XCTAssertEqual(uuid, uuid.lowercased())
            XCTAssertNoThrow(try APNsMessageID.parse(uuid).get())
        }
    }

    func testFillsInPlaceFromThePoolAndBeyond() {
        let ids = SecureIdentifiers()
        var seen = Set<[UInt8]>()
        for count in [16, 16, 64, 65, 300] + Array(repeating: 33, count: 200) {
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                ids.fillRandom(buffer)
                initialized = count
            }
            XCTAssertTrue(seen.insert(bytes).inserted, "\(count) bytes repeated")
        }
    }
}
