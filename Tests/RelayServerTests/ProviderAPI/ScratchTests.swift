import Foundation
import XCTest
import RelayTestKit

final class ScratchTests: XCTestCase {
    func testScratch() throws {
        let provider = try ProviderRelay()
        defer { provider.stop() }
        let jwt = try provider.devToken()
        try "\(provider.port) \(provider.caPath) \(jwt)".write(toFile: "/tmp/scratch/relay", atomically: true, encoding: .utf8)
        sleep(UInt32(ProcessInfo.processInfo.environment["SCRATCH_SECONDS"] ?? "60") ?? 60)
    }
}
