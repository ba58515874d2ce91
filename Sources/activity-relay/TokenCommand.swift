import RelayServer

/// `activity-relay token [--data DIR]`: prints a fresh provider token (ES256 JWT, `iat` now) for
/// the development key in DIR, which `serve` creates; a directory without one is an error, since a
/// new key would sign tokens no running relay accepts. One line on stdout and exit 0; on any error one line on stderr and exit 2.
/// Data-directory warnings (loose permissions) go to stderr and do not change the exit status.
enum TokenCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let configuration: RelayConfiguration
        do {
            configuration = try RelayConfiguration.parseToken(arguments: arguments)
        } catch {
            Terminal.fail(error.description)
        }
        do {
            let directory = try DataDirectory.existing(configuration)
            for warning in directory.warnings { Terminal.error("activity-relay token: warning: \(warning)") }
            let token = try directory.devProviderToken(issuedAt: Int64(SystemClock().now().rounded(.down)))
            print(token)
            return 0
        } catch {
            Terminal.fail("activity-relay token: \(error)")
        }
    }
}
