/// What the startup log says about the data directory: where each file is, whether this start
/// created it, and the commands that use it.
extension DataDirectory {
    /// Lines for the startup log (files in the directory by name, configured ones by path), e.g.
    /// ```
    /// data directory /srv/.relay (created)
    ///   tls-cert.pem         created  TLS certificate; clients trust this file (--cacert)
    ///   ...
    /// try: curl --cacert /srv/.relay/tls-cert.pem https://localhost:8443/healthz
    /// ```
    /// `port` is the port actually bound (when the config asked for port 0); the configured one by default.
    /// Secrets are never shown, only the files that hold them. `warnings` are not included.
    package func startupLines(port: UInt16? = nil) -> [String] {
        var lines = ["data directory \(path) (\(createdDirectory ? "created" : "reused"))"]
        let labelWidth = files.map { label($0).count }.max() ?? 0
        let statusWidth = files.map(\.status.rawValue.count).max() ?? 0
        for file in files {
            let label = label(file)
            let status = file.status.rawValue
            lines.append(
                "  " + label + String(repeating: " ", count: labelWidth - label.count + 2) + status
                    + String(repeating: " ", count: statusWidth - status.count + 2) + Self.purpose(file))
        }
        let base = "https://\(listen.clientHost):\(port ?? listen.port)"
        let generated = files.contains { $0.role == .certificate && $0.status != .configured }
        let curl = generated ? "curl --cacert \(Self.shellQuoted(certificatePath))" : "curl"
        let adminKeyPath = Self.shellQuoted(file(Self.adminKeyFileName))
        let token = "activity-relay token --data \(Self.shellQuoted(path))"
        lines.append("try:   \(curl) \(base)/healthz")
        lines.append("admin: \(curl) -H \"authorization: bearer $(cat \(adminKeyPath))\" \(base)/v1/clock")
        lines.append("token: \(token)   (a provider JWT for team \(Self.devTeamID), key \(Self.devKeyID))")
        lines.append(
            "push:  \(curl) --http2 -H \"authorization: bearer $(\(token))\" -H 'apns-push-type: liveactivity' "
                + "-H 'apns-topic: <bundleId>.push-type.liveactivity' -d @payload.json \(base)/3/device/<pushToken>")
        return lines
    }

    /// The file's name when it is in the directory, else its full path.
    private func label(_ file: DataFile) -> String {
        file.path == self.file(FileSystem.baseName(of: file.path)) ? FileSystem.baseName(of: file.path) : file.path
    }

    private static func purpose(_ file: DataFile) -> String {
        switch file.role {
        case .certificate:
            file.status == .configured
                ? "TLS certificate chain (from the config)" : "TLS certificate; clients trust this file (--cacert)"
        case .privateKey: "TLS private key" + (file.status == .configured ? " (from the config)" : ", mode 0600")
        case .adminKey: "admin API key, mode 0600: send 'authorization: bearer <key>' to /v1"
        case .devProviderKey: "development provider key, mode 0600: team \(devTeamID), key \(devKeyID), any bundle ID"
        case .database: file.status == .new ? "database, created when the store opens" : "database"
        }
    }

    /// `text` as one shell word: unchanged when it only has characters no shell treats
    /// specially, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=%".utf8)
        if !text.isEmpty, text.utf8.allSatisfy(safe.contains) { return text }
        var quoted = "'"
        for character in text {
            quoted += character == "'" ? "'\\''" : String(character)
        }
        return quoted + "'"
    }
}
