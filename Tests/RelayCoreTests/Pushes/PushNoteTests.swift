import XCTest

@testable import RelayCore

/// Notes kept as their parts read exactly as the text they stand for, and compare by it.
final class PushNoteTests: XCTestCase {
    private let at: UnixSeconds = 1_767_254_400  // 2026-01-01T08:00:00Z

    func testNotesReadAsTheirText() {
        XCTAssertEqual(PushNote.text("as written").text, "as written")
        XCTAssertEqual(
            PushNote.activityEnded(id: "a-1", at: at).text,
            "activity a-1 ended at 2026-01-01T08:00:00Z; its token is no longer valid")
        XCTAssertEqual(
            PushNote.held(forBudget: true, until: at + 61, replacing: false).text,
            "the priority-10 update budget is spent; held until 2026-01-01T08:01:01Z")
        XCTAssertEqual(
            PushNote.held(forBudget: false, until: at, replacing: true).text,
            "priority 5 is applied opportunistically; held until 2026-01-01T08:00:00Z; it replaces an earlier held update"
        )
        let count = 3
        let interpolated: PushNote = "\(count) of them"
        XCTAssertEqual(interpolated, .text("3 of them"))
    }

    /// A record's hint joins its notes; records and errors that read the same are equal.
    func testHintsJoinTheirNotesAndCompareByText() {
        var noted = PushRecord(apnsId: "a", uniqueId: "u", receivedAt: at, status: 410, outcome: .rejected)
        XCTAssertNil(noted.hint)
        noted.hintNotes = [.activityEnded(id: "x", at: at), "and more"]
        XCTAssertEqual(noted.hint, "activity x ended at 2026-01-01T08:00:00Z; its token is no longer valid; and more")
        let written = PushRecord(
            apnsId: "a", uniqueId: "u", receivedAt: at, status: 410, outcome: .rejected,
            hint: "activity x ended at 2026-01-01T08:00:00Z; its token is no longer valid; and more")
        XCTAssertEqual(noted, written)
        XCTAssertEqual(noted.hashValue, written.hashValue)
        XCTAssertEqual(noted.json, written.json)
        noted.hint = "replaced"
        XCTAssertEqual(noted.hintNotes, [.text("replaced")])
        XCTAssertNotEqual(noted, written)

        let kept = APNsError(.unregistered, note: .activityEnded(id: "x", at: at), timestamp: at)
        let text = APNsError(
            .unregistered, "activity x ended at 2026-01-01T08:00:00Z; its token is no longer valid", timestamp: at)
        XCTAssertEqual(kept, text)
        XCTAssertEqual(kept.hashValue, text.hashValue)
        XCTAssertNotEqual(kept, APNsError(.unregistered, "another message", timestamp: at))
        XCTAssertNotEqual(kept, APNsError(.badDeviceToken, kept.message))
    }

    /// A refusal's body kept as its error reads, compares and hashes as the body written out.
    func testResponseBodyKeptAsItsErrorReadsAsTheBody() {
        let gone = APNsError(.unregistered, note: .activityEnded(id: "x", at: at), timestamp: at + 0.25)
        var kept = PushRecord(apnsId: "a", uniqueId: "u", receivedAt: at, status: 410, outcome: .rejected)
        kept.setResponseBody(of: gone)
        XCTAssertEqual(kept.responseBody, ["reason": "Unregistered", "timestamp": .int(1_767_254_400_250)])
        let written = PushRecord(
            apnsId: "a", uniqueId: "u", receivedAt: at, status: 410, outcome: .rejected,
            responseBody: ["reason": "Unregistered", "timestamp": .int(1_767_254_400_250)])
        XCTAssertEqual(kept, written)
        XCTAssertEqual(kept.hashValue, written.hashValue)
        XCTAssertEqual(kept.json, written.json)
        XCTAssertEqual(kept.json["response"], written.responseBody)

        var other = kept
        other.setResponseBody(of: APNsError(.badDeviceToken, "no such token"))
        XCTAssertEqual(other.responseBody, ["reason": "BadDeviceToken"])
        XCTAssertNotEqual(other, written)
        XCTAssertEqual(kept, written, "a copy that changed leaves the original alone")
        other.responseBody = nil
        XCTAssertNil(other.json["response"])
    }
}
