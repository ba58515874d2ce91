import Foundation
import RelayJSON
import RelayNet
import RelayServer
import RelayTestKit
import XCTest

/// The browser console in a real headless Chromium (Debian's `chromium`, driven by Playwright for
/// Python): `Fixtures/console_browser.py` signs in, watches pushes from an APNs client land on the
/// Lock Screen, moves the virtual clock through ended and dismissed, pauses an alarm countdown,
/// reads the delivery log, and checks that the page never leaves its origin. Screenshots are
/// written to `$CONSOLE_SCREENSHOTS` or a temporary folder named in the output.
final class ConsoleBrowserTests: XCTestCase {
    static let chromium = "/usr/bin/chromium"

    func testConsoleShowsPushesLifetimeAlarmsAndTheLogInChromium() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            throw XCTSkip("no Chromium at \(Self.chromium): apt-get install chromium (.ci/run installs it)")
        }
        let probe = try ChildProcess.run(["python3", "-c", "import playwright, httpx, h2"], timeout: 30)
        guard probe.status == 0 else {
            throw XCTSkip("Playwright for Python is missing: pip install playwright httpx h2 (.ci/run installs it)")
        }
        // A template for the second activity's type: the page renders it; the first stays generic.
        var console = ConsoleSettings()
        console.templates = [
            "MatchAttributes": [
                "title": ["key": "attributes.title"],
                "lockScreen": [
                    ["key": "quarter", "label": "Period"], ["key": "score", "label": "Score", "suffix": " pts"],
                ],
                "compactLeading": ["key": "score"], "minimal": ["key": "score"],
            ]
        ]
        let relay = try LiveRelay {
            $0.clockMode = .virtual
            $0.routeSettings.console = console
        }
        defer { relay.stop() }
        let jwt = try JWTSigner.makeProviderToken(
            teamID: "DEVTEAM000", keyID: "DEVKEY0000", issuedAt: Int64(Date().timeIntervalSince1970), key: relay.devKey)
        let output =
            ProcessInfo.processInfo.environment["CONSOLE_SCREENSHOTS"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)").path
        let run = try ChildProcess.run(
            [
                "python3", Fixtures.path("console_browser.py"), relay.base, LiveRelay.adminKey, relay.caPath, jwt,
                output, Self.chromium,
            ], timeout: 300)
        XCTAssertEqual(run.status, 0, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
        XCTAssertTrue(run.stdout.contains("console: all checks passed"), run.stdout)
        for name in ["lockscreen", "smartstack", "island", "overview", "pushlog", "ended", "alarm", "console"] {
            let path = output + "/\(name).png"
            let bytes = FileManager.default.contents(atPath: path) ?? Data()
            XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(path) is not a PNG")
        }
        print("console screenshots: \(output)")
    }
}
