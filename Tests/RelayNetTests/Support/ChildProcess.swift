import Foundation
import RelayTestKit

extension ChildProcess {
    /// Runs the Python TLS client fixture in `mode` with `arguments`.
    static func python(_ mode: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(["python3", "-c", PythonTLSClient.script, mode] + arguments)
    }
}
