import Foundation

/// The highest resident memory (VmRSS of `/proc/<pid>/status`) of a process while an attack runs,
/// sampled every 20 ms on a thread of its own until `stop`.
final class ResidentMemoryPeak: @unchecked Sendable {
    // Sendable: `peak` and `running` are guarded by `lock`.
    private let pid: Int32
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    /// Starts sampling `pid`.
    init(pid: Int32) {
        self.pid = pid
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if let now = Self.residentKiB(pid) { lock.withLock { peak = max(peak, now) } }
                usleep(20_000)
            }
            done.signal()
        }
    }

    /// Stops sampling; the highest VmRSS seen, in KiB.
    func stop() -> Int {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { peak }
    }

    /// VmRSS of `pid` now, in KiB (nil once it is gone).
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    }
}
