import Glibc
import RelayNet
import XCTest

@testable import RelayServer

/// On an event loop, ordinary lines are written once per pass; urgent lines at once, after the
/// thread's held lines. Off a loop every line is written as it comes.
final class LogBufferTests: XCTestCase {
    private var group: EventLoopGroup!
    private var pipe: (read: Int32, write: Int32) = (-1, -1)
    private var previous: Int32 = 2

    override func setUpWithError() throws {
        group = try EventLoopGroup(threads: 1)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(Glibc.pipe(&fds), 0)
        XCTAssertEqual(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0)
        pipe = (fds[0], fds[1])
        previous = RelayLog.setOutput(pipe.write)
    }

    override func tearDown() {
        group.shutdown()
        RelayLog.setOutput(previous)
        close(pipe.read)
        close(pipe.write)
    }

    /// The events of the lines written so far, in order.
    private func written() -> [String] { Self.written(pipe.read) }

    private static func written(_ fd: Int32) -> [String] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: " ").dropFirst(2).joined(separator: " ")
        }
    }

    func testLinesOnALoopAreWrittenAtTheEndOfThePass() throws {
        let loop = group.loops[0]
        let fd = pipe.read
        let seenDuringPass = try loop.submitAndWait {
            RelayLog.info("one", ["k": "v"])
            RelayLog.info("two")
            return Self.written(fd)
        }
        XCTAssertEqual(seenDuringPass, [])
        try loop.submitAndWait {}
        XCTAssertEqual(written(), ["one k=v", "two"])
    }

    func testUrgentLineGoesOutAtOnceAfterTheHeldOnes() throws {
        let loop = group.loops[0]
        let fd = pipe.read
        let seenDuringPass = try loop.submitAndWait {
            RelayLog.info("held")
            RelayLog.error("urgent")
            RelayLog.info("after")
            return Self.written(fd)
        }
        XCTAssertEqual(seenDuringPass, ["held", "urgent"])
        try loop.submitAndWait {}
        XCTAssertEqual(written(), ["after"])
    }

    func testLargeBufferIsWrittenBeforeThePassEnds() throws {
        let loop = group.loops[0]
        let fd = pipe.read
        let value = String(repeating: "x", count: 1_000)
        let count = LogBuffer.flushThreshold / 1_000 + 1
        let seenDuringPass = try loop.submitAndWait {
            for _ in 0..<count { RelayLog.info("big", ["v": value]) }
            return Self.written(fd).count
        }
        XCTAssertGreaterThan(seenDuringPass, 0)
        try loop.submitAndWait {}
        XCTAssertEqual(seenDuringPass + written().count, count)
    }

    func testLinesOffALoopAreWrittenAtOnce() {
        RelayLog.info("direct")
        XCTAssertEqual(written(), ["direct"])
    }
}
