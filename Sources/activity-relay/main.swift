import Foundation
import RelayCore

/// `activity-relay` entry point: picks the command and hands over to it.
let usage = """
    usage: activity-relay <command> [options]

    commands:
      serve [--config FILE] [--listen HOST:PORT] [--data DIR] [--clock system|virtual] [--threads N]
                                        run the relay (defaults: 127.0.0.1:8443, ./.relay, system clock)
      simulate SCENARIO.json [--json]   run a scenario offline on a virtual clock and print its timeline
      token [--data DIR]                print a fresh provider JWT (ES256) for the data directory's dev key
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    Terminal.fail(usage)
}
arguments.removeFirst()
switch command {
case "serve":
    exit(ServeCommand.run(arguments))
case "simulate":
    exit(SimulateCommand.run(arguments))
case "token":
    exit(TokenCommand.run(arguments))
case "--help", "-h", "help":
    print(usage)
default:
    Terminal.fail("activity-relay: unknown command '\(command)'\n\(usage)")
}
