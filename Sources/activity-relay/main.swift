import Foundation
import RelayServer

/// `activity-relay` entry point: picks the command and hands over to it.
let usage = """
    usage: activity-relay <command> [options]

    commands:
      serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N]
            [--log-format text|json]    run the relay (defaults: 127.0.0.1:8443, ./.relay, system clock)
      check-config FILE                 check a config file; every problem named by its JSON path
      simulate SCENARIO.json [--json]   run a scenario offline on a virtual clock and print its timeline
      token [--data DIR]                print a fresh provider JWT (ES256) for the data directory's dev key
      watch [--url URL] [--data DIR] [--key KEY] [--device ID] [--cacert PATH] [--once]
                                        live activities and alarm countdowns from the event stream
      --version                         print the version
    """

/// What `COMMAND --help` prints, for the commands whose options are not read with a help of their own.
let commandHelp: [String: String] = [
    "serve": """
    usage: activity-relay serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N] [--log-format text|json]
    Runs the relay until SIGTERM or SIGINT. Defaults: 127.0.0.1:8443, ./.relay (self-signed TLS,
    SQLite, development keys, created on first start), the system clock, one thread per core.
    The JSON config file sets every option (TLS files, provider keys, rules, HTTP limits,
    retention, durability, stream, log level); flags override it. deploy/CONFIG.md explains
    each, deploy/relay.example.json shows them all.
    """,
    "check-config": """
    usage: activity-relay check-config FILE
    Reads a config file as `serve --config FILE` would and prints `FILE: ok` (exit 0), or every
    problem on its own line, each naming its JSON path (exit 2). Key files are read at start.
    """,
    "simulate": """
    usage: activity-relay simulate SCENARIO.json [--json]
    Runs a scenario offline on a virtual clock and prints its timeline (--json: as JSON).
    Exit status 0 when every expectation holds, 1 when one fails, 2 for a bad scenario.
    """,
    "token": """
    usage: activity-relay token [--data DIR]
    Prints a fresh provider token (ES256 JWT, iat now) for the development key in DIR
    (default ./.relay), which `serve` creates on its first start; without one it fails.
    """,
    "watch": """
    usage: activity-relay watch [--url https://HOST:PORT] [--data DIR] [--key KEY] [--device ID] [--cacert PATH] [--once]
    Shows the relay's live activities as Lock Screen cards and its alarms as countdowns, from the
    event stream, redrawn every second; a dropped connection resumes where it left off.
      --url URL       the relay (default https://localhost:8443)
      --data DIR      the data directory the key and CA default from (default ./.relay)
      --key KEY       the admin or a device key (default DIR/admin-key)
      --device ID     only this device's activities and alarms
      --cacert PATH   the CA to trust (default DIR/tls-cert.pem)
      --once          print the cards once, as plain text, and exit
    Exit status 0; 1 when the relay refuses or (with --once) cannot be reached; 2 for bad flags.
    """,
]

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    Terminal.fail(usage)
}
arguments.removeFirst()
if let help = commandHelp[command], arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
    print(help)
    exit(0)
}
switch command {
case "serve":
    exit(ServeCommand.run(arguments))
case "check-config":
    exit(CheckConfigCommand.run(arguments))
case "simulate":
    exit(SimulateCommand.run(arguments))
case "token":
    exit(TokenCommand.run(arguments))
case "watch":
    exit(WatchCommand.run(arguments))
case "--help", "-h", "help":
    print(usage)
case "--version":
    print("activity-relay \(RelayVersion.current) (store schema \(RelayVersion.storeSchema))")
default:
    Terminal.fail("activity-relay: unknown command '\(command)'\n\(usage)")
}
