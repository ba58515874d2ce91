#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: activity-relay <command> [options]

    commands:
      serve     [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N]
      token     [--data DIR]
      simulate  SCENARIO.json [--json]
      watch     [--device ID] ...
    """

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, command != "--help", command != "-h" else {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
FileHandleStderr.print("activity-relay: unknown command '\(command)'\n\(usage)\n")
exit(2)

enum FileHandleStderr {
    static func print(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
