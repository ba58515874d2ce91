import RelayCore
import RelayJSON
import XCTest

final class TokenBucketTests: XCTestCase {
    private let t0: UnixSeconds = 1_767_225_600

    private func drained(capacity: Int, rate: Double, at time: UnixSeconds) -> TokenBucket {
        TokenBucket(capacity: capacity, refillPerSecond: rate, tokens: 0, updatedAt: time)
    }

    func testFullBucketAllowsCapacityTakesThenRefuses() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 1.0 / 360, at: t0)
        XCTAssertEqual((0..<4).map { _ in bucket.take(at: t0) }, [true, true, true, false])
        XCTAssertEqual(bucket.remaining(at: t0), 0)
    }

    func testRefillOverTime() {
        let bucket = drained(capacity: 10, rate: 10.0 / 3600, at: t0)
        let table: [(elapsed: Double, remaining: Int)] = [
            (0, 0), (359, 0), (360, 1), (719.9, 1), (720, 2), (1800, 5), (3599, 9), (3600, 10), (36_000, 10),
        ]
        for row in table {
            XCTAssertEqual(bucket.remaining(at: t0 + row.elapsed), row.remaining, "after \(row.elapsed) s")
        }
    }

    func testAvailableAtIsNowWhileATokenIsThere() {
        var bucket = TokenBucket(capacity: 2, refillPerSecond: 1, at: t0)
        XCTAssertEqual(bucket.availableAt(t0 + 5), t0 + 5)
        _ = bucket.take(at: t0)
        XCTAssertEqual(bucket.availableAt(t0), t0)
    }

    func testTakeAlwaysSucceedsAtAvailableAtAndNotClearlyBefore() {
        let rates: [Double] = [1.0 / 360, 1.0 / 60, 10.0 / 3600, 60.0 / 3600, 1, 3.3, 1.0 / 7, 1e-4, 1000]
        let starts: [UnixSeconds] = [t0, t0 + 0.1, t0 + 1234.567, 1_000_000_000.3, 0]
        for rate in rates {
            for start in starts {
                for partial in [0.0, 0.25, 0.999] {
                    let bucket = TokenBucket(capacity: 5, refillPerSecond: rate, tokens: partial, updatedAt: start)
                    let at = bucket.availableAt(start)
                    let exact = start + (1 - partial) / rate
                    XCTAssertEqual(at, exact, accuracy: max(1e-6, exact.ulp * 4), "rate \(rate) start \(start)")
                    var taker = bucket
                    XCTAssertTrue(taker.take(at: at), "rate \(rate) start \(start) partial \(partial)")
                    var early = bucket
                    let before = at - max(1e-3, (1e-6 / rate))
                    if before > start { XCTAssertFalse(early.take(at: before), "rate \(rate) start \(start)") }
                }
            }
        }
    }

    func testBucketThatNeverRefillsIsNeverAvailable() {
        XCTAssertEqual(drained(capacity: 5, rate: 0, at: t0).availableAt(t0), .infinity)
        XCTAssertEqual(drained(capacity: 0, rate: 1, at: t0).availableAt(t0), .infinity)
        XCTAssertEqual(TokenBucket(capacity: 5, refillPerSecond: -1, at: t0).refillPerSecond, 0)
    }

    func testTimeRunningBackwardsNeitherRefillsNorBreaks() {
        var bucket = TokenBucket(capacity: 2, refillPerSecond: 1, at: t0)
        XCTAssertTrue(bucket.take(at: t0 + 10))
        XCTAssertTrue(bucket.take(at: t0 + 10))
        XCTAssertFalse(bucket.take(at: t0 + 5))
        XCTAssertEqual(bucket.updatedAt, t0 + 10)
        XCTAssertEqual(bucket.remaining(at: t0), 0)
        XCTAssertTrue(bucket.take(at: t0 + 11))
    }

    func testRefillStopsAtCapacity() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 1, at: t0)
        XCTAssertTrue(bucket.take(at: t0))
        XCTAssertEqual(bucket.tokens(at: t0 + 1000), 3)
        XCTAssertEqual((0..<4).map { _ in bucket.take(at: t0 + 1000) }, [true, true, true, false])
    }

    func testReconfigureKeepsDrawnTokens() {
        let table: [(capacity: Int, drawn: Int, newCapacity: Int, remaining: Int)] = [
            (10, 3, 60, 57), (60, 3, 10, 7), (60, 20, 10, 0), (10, 0, 60, 60), (10, 10, 60, 50), (60, 60, 10, 0),
        ]
        for row in table {
            var bucket = TokenBucket(capacity: row.capacity, refillPerSecond: Double(row.capacity) / 3600, at: t0)
            for _ in 0..<row.drawn { XCTAssertTrue(bucket.take(at: t0)) }
            bucket.reconfigure(capacity: row.newCapacity, refillPerSecond: Double(row.newCapacity) / 3600, at: t0)
            XCTAssertEqual(bucket.remaining(at: t0), row.remaining, "\(row)")
            XCTAssertEqual(bucket.capacity, row.newCapacity)
        }
    }

    func testReconfigureRefillsUnderTheOldRateFirst() {
        var bucket = drained(capacity: 10, rate: 10.0 / 3600, at: t0)
        bucket.reconfigure(capacity: 60, refillPerSecond: 60.0 / 3600, at: t0 + 720)  // 2 back, 8 drawn
        XCTAssertEqual(bucket.remaining(at: t0 + 720), 52)
        XCTAssertEqual(bucket.remaining(at: t0 + 780), 53)
    }

    func testJSONRoundTrip() throws {
        var bucket = TokenBucket(capacity: 10, refillPerSecond: 10.0 / 3600, at: t0)
        for _ in 0..<4 { _ = bucket.take(at: t0 + 7.5) }
        XCTAssertEqual(try TokenBucket(json: bucket.json), bucket)
    }

    func testJSONErrorsNameTheKey() {
        let good = TokenBucket(capacity: 3, refillPerSecond: 1, at: t0).json
        let table: [(key: String, value: JSONValue?, path: String)] = [
            ("tokens", 4, "bucket.tokens"), ("tokens", -1, "bucket.tokens"), ("capacity", -1, "bucket.capacity"),
            ("refillPerSecond", "fast", "bucket.refillPerSecond"), ("updatedAt", nil, "bucket.updatedAt"),
        ]
        for row in table {
            var members = good.objectValue ?? [:]
            members[row.key] = row.value
            XCTAssertThrowsError(try TokenBucket(json: .object(members), path: "bucket")) { error in
                XCTAssertEqual((error as? JSONFieldError)?.key, row.path)
            }
        }
    }
}
