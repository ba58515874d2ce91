import XCTest

@testable import RelayCore

/// `CopyOnWrite` must keep value semantics: a change to one copy never shows in another, on any
/// thread.
final class CopyOnWriteTests: XCTestCase {
    private struct Members: Sendable, Hashable {
        var name: String
        var tags: [String]
    }

    func testAChangeToACopyLeavesTheOriginal() {
        let original = CopyOnWrite(Members(name: "delivery", tags: ["a"]))
        var copy = original
        XCTAssertTrue(copy.isIdentical(to: original), "a copy shares the box until it changes")
        copy.value.name = "game"
        copy.value.tags.append("b")
        XCTAssertEqual(original.value, Members(name: "delivery", tags: ["a"]))
        XCTAssertEqual(copy.value, Members(name: "game", tags: ["a", "b"]))
        XCTAssertFalse(copy.isIdentical(to: original))
    }

    func testEqualityAndHashFollowTheValueNotTheBox() {
        let one = CopyOnWrite(Members(name: "same", tags: ["t"]))
        let other = CopyOnWrite(Members(name: "same", tags: ["t"]))
        XCTAssertFalse(one.isIdentical(to: other))
        XCTAssertEqual(one, other)
        XCTAssertEqual(one.hashValue, other.hashValue)
        var changed = other
        changed.value.tags = []
        XCTAssertNotEqual(one, changed)
    }

    /// Copies changed at once on several threads each end with only their own change.
    func testCopiesChangedOnSeveralThreadsStayApart() {
        let shared = CopyOnWrite(Members(name: "start", tags: []))
        let results = UnsafeSendableBox(Array(repeating: CopyOnWrite(Members(name: "", tags: [])), count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            var mine = shared
            for step in 0..<1_000 { mine.value.tags.append("\(index)-\(step)") }
            mine.value.name = "thread \(index)"
            results.set(index, mine)
        }
        XCTAssertEqual(shared.value, Members(name: "start", tags: []))
        for index in 0..<8 {
            let result = results.get(index)
            XCTAssertEqual(result.value.name, "thread \(index)")
            XCTAssertEqual(result.value.tags, (0..<1_000).map { "\(index)-\($0)" })
        }
    }

    /// A public type built on it: a payload's copy changed leaves the payload as it was.
    func testPayloadCopiesAreIndependent() {
        let payload = LiveActivityPayload(event: .update, timestamp: 100, contentState: ["stop": .int(3)])
        var later = payload
        later.timestamp = 200
        later.contentState?["stop"] = .int(2)
        XCTAssertEqual(payload.timestamp, 100)
        XCTAssertEqual(payload.contentState, ["stop": .int(3)])
        XCTAssertEqual(later.timestamp, 200)
        XCTAssertEqual(later.contentState, ["stop": .int(2)])
        XCTAssertNotEqual(payload, later)
        later.timestamp = 100
        later.contentState?["stop"] = .int(3)
        XCTAssertEqual(payload, later)
        XCTAssertEqual(payload.hashValue, later.hashValue)
    }
}

/// Results written by index from several threads, each index by one thread only.
private final class UnsafeSendableBox<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element]

    init(_ elements: [Element]) { self.elements = elements }

    func set(_ index: Int, _ element: Element) { lock.withLock { elements[index] = element } }
    func get(_ index: Int) -> Element { lock.withLock { elements[index] } }
}
