import Foundation
import RelayNet

// bench-stream: our load generator for the event stream's fan-out, against the relay or nchan.
//
//   bench-stream fanout --target relay|nchan --port P --cacert CA [--key KEY] [--subscribers 1000]
//       [--latency-pushes 200] [--interval 0.02] [--burst 200] [--publishers 4] [--pad 400]
//       [--readers 2] [--connectors 8] [--subscriber-ports P1,P2,...]
//     N subscribers; then pushes one at a time (interval apart) for push-to-subscriber latency;
//     then a burst from several publisher connections for deliveries per second.
//   bench-stream idle --target relay|nchan --port P --cacert CA [--key KEY] --subscribers 10000 --pids 1,2
//     RSS of the server processes before and after N idle subscribers connect: bytes per subscriber.
//
// Every line of the report is `key: value`; the last line is one JSON object with all figures.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first, mode == "fanout" || mode == "idle" else {
    FileHandle.standardError.write(
        Data("usage: bench-stream fanout|idle --target relay|nchan --port P --cacert CA [...]\n".utf8))
    exit(2)
}
var flags: [String: String] = [:]
var index = 1
while index < arguments.count {
    let name = arguments[index]
    guard name.hasPrefix("--"), index + 1 < arguments.count else {
        FileHandle.standardError.write(Data("bench-stream: bad argument \(name)\n".utf8))
        exit(2)
    }
    flags[String(name.dropFirst(2))] = arguments[index + 1]
    index += 2
}
let parsedFlags = flags
func flag(_ name: String, _ fallback: String? = nil) -> String {
    guard let value = parsedFlags[name] ?? fallback else {
        FileHandle.standardError.write(Data("bench-stream: --\(name) is required\n".utf8))
        exit(2)
    }
    return value
}
func number(_ name: String, _ fallback: Int) -> Int { Int(flag(name, String(fallback))) ?? fallback }

do {
    guard let kind = Target.Kind(rawValue: flag("target")) else { throw BenchError("--target must be relay or nchan") }
    let context = try TLSClientContext(caFile: flag("cacert"))
    let host = flag("host", "127.0.0.1")
    let port = UInt16(flag("port")) ?? 0
    let tag = "bench\(getpid())x\(Int(Date().timeIntervalSince1970 * 1000) % 1_000_000_000)"
    var target = try Target.prepare(
        kind: kind, host: host, port: port, context: context, key: parsedFlags["key"], tag: tag)
    if let ports = parsedFlags["subscriber-ports"] {
        target.subscriberPorts = ports.split(separator: ",").compactMap { UInt16($0) }
    }
    let subscribers = number("subscribers", mode == "idle" ? 10_000 : 1000)
    let connectors = number("connectors", 8)
    if mode == "idle" {
        try Runs.idle(target, subscribers: subscribers, connectors: connectors, pids: flag("pids"))
    } else {
        try Runs.fanout(
            target, subscribers: subscribers, connectors: connectors, readers: number("readers", 2),
            latencyPushes: number("latency-pushes", 200), interval: Double(flag("interval", "0.02")) ?? 0.02,
            burst: number("burst", 200), publishers: number("publishers", 4),
            pad: String(repeating: "x", count: number("pad", 400)))
    }
} catch {
    FileHandle.standardError.write(Data("bench-stream: \(error)\n".utf8))
    exit(1)
}
