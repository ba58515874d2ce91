import Foundation
import RelayStore
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Every acknowledged batch survives a crash: the writer only acknowledges after COMMIT.
final class CrashTests: XCTestCase {
    private static let childVariable = "RELAY_STORE_CRASH_CHILD_DB"
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        // A child writes into its parent's directory and dies by SIGKILL, before any tearDown.
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        directory = try TemporaryDirectory()
    }

    override func tearDown() { directory?.remove() }

    /// Copies the database and its write-ahead log while the writer still has them open, as a
    /// crash would leave them, and opens the copy.
    func testCrashImageHoldsEveryAcknowledgedBatch() throws {
        let path = directory.file("relay.db")
        let store = try Store(path: path)
        defer { store.close() }
        let acknowledged = Results()
        for seq in 1...200 {
            var batch = StoreBatch()
            batch.append(Sample.event(Int64(seq)))
            batch.upsert(Sample.document("activity", "a\(seq)"))
            store.writer.submit(batch) { result in acknowledged.add("\(seq)", result) }
        }
        store.writer.flush()
        XCTAssertEqual(acknowledged.failures, [])

        let image = try TemporaryDirectory()
        defer { image.remove() }
        let walSize = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        XCTAssertGreaterThan(walSize, 0, "the commits must still be in the log, or the test proves nothing")
        try FileManager.default.copyItem(atPath: path, toPath: image.file("relay.db"))
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: image.file("relay.db-wal"))

        let copy = try Store(path: image.file("relay.db"))
        defer { copy.close() }
        XCTAssertEqual(try copy.reader.events(after: 0, limit: 1_000).map { String($0.seq) }, acknowledged.names)
        XCTAssertEqual(try copy.reader.documents(kind: "activity").count, 200)
    }

    /// Runs a writer in a child process (this same test, in child mode), kills it with SIGKILL
    /// mid-stream, and checks that every batch it acknowledged is in the file.
    func testKilledWriterLosesNoAcknowledgedBatch() throws {
        if let childPath = ProcessInfo.processInfo.environment[Self.childVariable] {
            return try runChild(path: childPath)
        }
        let path = directory.file("relay.db")
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["RelayStoreTests.CrashTests/testKilledWriterLosesNoAcknowledgedBatch"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: path]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()

        var text = ""
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(60)
        while acknowledgedSeqs(in: text).count < 500 && Date() < deadline {
            guard let chunk = readChunk(fd, timeoutMilliseconds: 1_000) else { break }
            text += chunk
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        while let chunk = readChunk(fd, timeoutMilliseconds: 100) { text += chunk }
        XCTAssertEqual(child.terminationReason, .uncaughtSignal, "the child must die by the signal, mid-stream")

        let acknowledged = acknowledgedSeqs(in: text)
        XCTAssertGreaterThanOrEqual(acknowledged.count, 500, "child output: \(text.suffix(2_000))")
        let store = try Store(path: path)
        defer { store.close() }
        let stored = Set(try store.reader.events(after: 0, limit: StoreReader.maxLimit).map(\.seq))
        let lost = acknowledged.filter { !stored.contains($0) }
        XCTAssertEqual(lost, [], "acknowledged but lost after the crash")
        for seq in acknowledged.suffix(20) {
            XCTAssertNotNil(try store.reader.document(kind: "activity", id: "a\(seq)"))
        }
    }

    private func acknowledgedSeqs(in text: String) -> [Int64] {
        text.split(separator: "\n").compactMap { line in line.hasPrefix("ack ") ? Int64(line.dropFirst(4)) : nil }
    }

    /// Reads what the pipe has within the timeout; nil on timeout or end of file.
    private func readChunk(_ fd: Int32, timeoutMilliseconds: Int32) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Child mode: writes batches forever (bounded by a minute), printing each acknowledged seq.
    private func runChild(path: String) throws {
        let store = try Store(path: path)
        let inFlight = DispatchSemaphore(value: 64)
        let deadline = Date().addingTimeInterval(60)
        var seq: Int64 = 0
        while Date() < deadline {
            seq += 1
            inFlight.wait()
            var batch = StoreBatch()
            batch.append(Sample.event(seq))
            batch.upsert(Sample.document("activity", "a\(seq)"))
            store.writer.submit(batch) { [seq] result in
                if case .success = result {
                    let line = Array("ack \(seq)\n".utf8)
                    _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                }
                inFlight.signal()
            }
        }
        store.close()
        XCTFail("the parent should have killed this child before its deadline")
    }
}
