import Foundation
import RelayCore

/// `activity-relay` entry point: picks the command and hands over to it.
let usage = """
    usage: activity-relay <command> [options]

    commands:
      simulate SCENARIO.json [--json]   run a scenario offline on a virtual clock and print its timeline
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    Terminal.fail(usage)
}
arguments.removeFirst()
switch command {
case "simulate":
    exit(SimulateCommand.run(arguments))
case "--help", "-h", "help":
    print(usage)
default:
    Terminal.fail("activity-relay: unknown command '\(command)'\n\(usage)")
}
