import Glibc
package import RelayNet

/// The data directory (`--data DIR`, default `./.relay`): the relay's own TLS certificate and
/// key, the admin API key, the development provider key and the database.
///
/// The first start creates the directory (mode 0700) and the files; later starts reuse them
/// unchanged:
/// - `tls-cert.pem` (0644) and `tls-key.pem` (0600): a self-signed EC P-256 certificate for
///   `localhost` and `127.0.0.1` that doubles as the CA clients trust, unless the config's `tls`
///   names other files;
/// - `admin-key` (0600): one line, 32 random bytes as base64url;
/// - `dev-provider-key.p8` (0600): a P-256 PKCS#8 key, team `DEVTEAM000`, key `DEVKEY0000`, any bundle ID;
/// - `relay.sqlite`: the database, which the store creates.
///
/// Permissions are checked before any secret is read, as ssh does: a secret file that group or
/// others may read or write, or a directory they may write to, is refused with the `chmod` that
/// fixes it; a directory they may only list or enter is a warning. Configured TLS files are the
/// operator's and are not checked beyond existing.
package struct DataDirectory: Sendable {
    /// `tls-cert.pem`.
    package static let certificateFileName = "tls-cert.pem"
    /// `tls-key.pem`.
    package static let privateKeyFileName = "tls-key.pem"
    /// `admin-key`.
    package static let adminKeyFileName = "admin-key"
    /// `dev-provider-key.p8`.
    package static let devProviderKeyFileName = "dev-provider-key.p8"
    /// `relay.sqlite`.
    package static let databaseFileName = "relay.sqlite"
    /// The development key's team ID.
    package static let devTeamID = "DEVTEAM000"
    /// The development key's key ID.
    package static let devKeyID = "DEVKEY0000"

    /// The directory's absolute path.
    package let path: String
    /// True when this start created the directory.
    package let createdDirectory: Bool
    /// Where the relay listens (for the startup hints).
    package let listen: ListenAddress
    /// The TLS certificate the listener loads.
    package let certificatePath: String
    /// The TLS private key the listener loads.
    package let privateKeyPath: String
    /// The SQLite database.
    package let databasePath: String
    /// The admin API key.
    package let adminKey: AdminKey
    /// The development provider key.
    package let devProviderKey: P256PrivateKey
    /// Every file, with what this start did about it, in the order of `DataFile.Role`.
    package let files: [DataFile]
    /// Things an operator should fix that do not stop the relay (loose directory permissions).
    package let warnings: [String]

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    /// Creates or reuses the directory and its files for `configuration`.
    package static func prepare(_ configuration: RelayConfiguration) throws(DataDirectoryError) -> DataDirectory {
        var preparer = Preparer(directory: configuration.dataDirectory)
        try preparer.directory()
        let adminKey: AdminKey
        let devKey: P256PrivateKey
        do {
            try preparer.tls(configuration)
            adminKey = try preparer.adminKey()
            devKey = try preparer.devProviderKey()
        } catch {
            // A directory this call created is left as it found it: not there.
            if preparer.createdDirectory { removeCreated(configuration.dataDirectory) }
            throw error
        }
        let databasePath = preparer.path(databaseFileName)
        let databaseStatus: DataFile.Status = try FileSystem.statusOrNil(databasePath) == nil ? .new : .reused
        preparer.files.append(DataFile(role: .database, path: databasePath, status: databaseStatus, isSecret: false))
        return DataDirectory(
            path: configuration.dataDirectory, createdDirectory: preparer.createdDirectory,
            listen: configuration.listen, certificatePath: configuration.certificatePath,
            privateKeyPath: configuration.privateKeyPath, databasePath: databasePath, adminKey: adminKey,
            devProviderKey: devKey, files: preparer.files, warnings: preparer.warnings)
    }

    /// Removes the directory when this start created it (a start that failed), with the files a
    /// start writes there; anything else in it keeps it.
    package func removeIfCreated() {
        if createdDirectory { Self.removeCreated(path) }
    }

    /// Unlinks the files a start writes in `directory` (the database with its journal files
    /// too), then the directory, which stays if anything else is in it.
    static func removeCreated(_ directory: String) {
        let names = [
            certificateFileName, privateKeyFileName, adminKeyFileName, devProviderKeyFileName, databaseFileName,
            databaseFileName + "-wal", databaseFileName + "-shm", databaseFileName + "-journal",
        ]
        for name in names { _ = unlink(directory + "/" + name) }
        _ = rmdir(directory)
    }

    /// The data directory `serve` prepared, for `token`: one without a development key is an
    /// error (a new key would sign tokens no running relay accepts); otherwise as `prepare`.
    package static func existing(_ configuration: RelayConfiguration) throws(DataDirectoryError) -> DataDirectory {
        let directory = configuration.dataDirectory
        let found: FileSystem.Status?
        let key: FileSystem.Status?
        do {
            found = try FileSystem.status(directory)
            key = found?.isDirectory == true ? try FileSystem.status(directory + "/" + devProviderKeyFileName) : nil
        } catch {
            throw DataDirectoryError(directory, error.description)
        }
        if found == nil || (found?.isDirectory == true && key == nil) {
            throw DataDirectoryError(
                directory,
                "has no development key (\(devProviderKeyFileName)); run `activity-relay serve --data DIR` once to"
                    + " create it")
        }
        return try prepare(configuration)
    }

    /// A provider token for the development key, issued at `issuedAt` (Unix seconds, real time),
    /// as `activity-relay token` prints it.
    package func devProviderToken(issuedAt: Int64) throws(DataDirectoryError) -> String {
        do {
            return try JWTSigner.makeProviderToken(
                teamID: Self.devTeamID, keyID: Self.devKeyID, issuedAt: issuedAt, key: devProviderKey)
        } catch {
            throw DataDirectoryError(file(Self.devProviderKeyFileName), "cannot sign a provider token: \(error)")
        }
    }
}

// MARK: - Preparing

/// The steps of `prepare`, collecting what each did.
private struct Preparer {
    let directoryPath: String
    var createdDirectory = false
    var files: [DataFile] = []
    var warnings: [String] = []

    init(directory: String) { directoryPath = directory }

    func path(_ name: String) -> String { directoryPath + "/" + name }

    /// Creates the directory (0700) or checks the existing one.
    mutating func directory() throws(DataDirectoryError) {
        let found: FileSystem.Status?
        do {
            createdDirectory = try FileSystem.makeDirectories(directoryPath, mode: 0o700)
            found = try FileSystem.status(directoryPath)
        } catch {
            throw DataDirectoryError(directoryPath, error.description)
        }
        guard let permissions = found?.permissions else {
            throw DataDirectoryError(directoryPath, "vanished while being prepared")
        }
        let fix = "chmod 700 \(DataDirectory.shellQuoted(directoryPath))"
        if permissions & 0o022 != 0 {
            throw DataDirectoryError(
                directoryPath,
                "group or others may write to it (mode \(Self.octal(permissions))), so they could replace its keys; "
                    + "run: \(fix)")
        }
        if permissions & 0o055 != 0 {
            warnings.append(
                "\(directoryPath): group or others may list it (mode \(Self.octal(permissions))); \(fix) is recommended"
            )
        }
    }

    /// The generated certificate pair, or a check that the configured files exist.
    mutating func tls(_ configuration: RelayConfiguration) throws(DataDirectoryError) {
        if let configured = configuration.tls {
            for (role, file) in [
                (DataFile.Role.certificate, configured.certificatePath), (.privateKey, configured.privateKeyPath),
            ] {
                let status: FileSystem.Status?
                do { status = try FileSystem.status(file) } catch { throw DataDirectoryError(file, "\(error)") }
                guard status?.isRegularFile == true else {
                    let key = role == .certificate ? "tls.certificate" : "tls.key"
                    throw DataDirectoryError(file, "named by the config's \(key), but there is no such file")
                }
                files.append(DataFile(role: role, path: file, status: .configured, isSecret: role == .privateKey))
            }
            return
        }
        let certificate = path(DataDirectory.certificateFileName)
        let key = path(DataDirectory.privateKeyFileName)
        try checkSecret(key)
        let created: Bool
        do {
            created = try SelfSignedCertificate.ensure(certificatePath: certificate, keyPath: key)
        } catch {
            throw DataDirectoryError(directoryPath, "\(error)")
        }
        files.append(
            DataFile(role: .certificate, path: certificate, status: created ? .created : .reused, isSecret: false))
        files.append(DataFile(role: .privateKey, path: key, status: created ? .created : .reused, isSecret: true))
    }

    /// The admin API key: read from `admin-key`, or generated and written there.
    mutating func adminKey() throws(DataDirectoryError) -> AdminKey {
        let file = path(DataDirectory.adminKeyFileName)
        let bytes = try secret(file, role: .adminKey) { () throws(DataDirectoryError) -> [UInt8] in
            do { return Array((try AdminKey.generate().secret + "\n").utf8) } catch {
                throw DataDirectoryError(file, "cannot generate an admin key: \(error)")
            }
        }
        // The line ends at the first CR or LF; anything after it but line breaks makes a second line.
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        let rest = bytes.dropFirst(line.count)
        guard rest.allSatisfy({ $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }),
            let key = AdminKey(String(decoding: line, as: UTF8.self))
        else {
            throw DataDirectoryError(
                file,
                "must hold one line of \(AdminKey.lengths.lowerBound) to \(AdminKey.lengths.upperBound) visible "
                    + "ASCII characters (the admin API key); delete the file to generate a new key")
        }
        return key
    }

    /// The development provider key: read from `dev-provider-key.p8`, or generated and written there.
    mutating func devProviderKey() throws(DataDirectoryError) -> P256PrivateKey {
        let file = path(DataDirectory.devProviderKeyFileName)
        let bytes = try secret(file, role: .devProviderKey) { () throws(DataDirectoryError) -> [UInt8] in
            do { return Array(try P256PrivateKey().pemRepresentation().utf8) } catch {
                throw DataDirectoryError(file, "cannot generate the development provider key: \(error)")
            }
        }
        do {
            return try P256PrivateKey(pem: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw DataDirectoryError(
                file, "is not a P-256 private key PEM (\(error)); delete the file to generate a new key")
        }
    }

    /// The contents of secret file `file`: existing (after the permission check) or made by
    /// `generate` and written with mode 0600. Records the file and whether it was created.
    private mutating func secret(
        _ file: String, role: DataFile.Role, generate: () throws(DataDirectoryError) -> [UInt8]
    ) throws(DataDirectoryError) -> [UInt8] {
        var status = DataFile.Status.reused
        var bytes: [UInt8] = []
        if try FileSystem.statusOrNil(file) == nil {
            bytes = try generate()
            do {
                if try FileSystem.createExclusively(file, contents: bytes, mode: 0o600) {
                    status = .created
                }
            } catch {
                throw DataDirectoryError(file, "\(error)")
            }
        }
        if status == .reused {  // it was there, or another process created it first
            try checkSecret(file)
            do { bytes = try FileSystem.read(file, limit: 64 * 1024) } catch {
                throw DataDirectoryError(file, "\(error)")
            }
        }
        files.append(DataFile(role: role, path: file, status: status, isSecret: true))
        return bytes
    }

    /// Refuses a secret file that is not a regular file or that group or others may use.
    private func checkSecret(_ file: String) throws(DataDirectoryError) {
        guard let status = try FileSystem.statusOrNil(file) else { return }
        guard status.isRegularFile else { throw DataDirectoryError(file, "is not a regular file") }
        guard status.permissions & 0o077 == 0 else {
            throw DataDirectoryError(
                file,
                "holds a secret but group or others may use it (mode \(Self.octal(status.permissions))); "
                    + "run: chmod 600 \(DataDirectory.shellQuoted(file))")
        }
    }

    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension FileSystem {
    /// `status(_:)` with its error turned into a `DataDirectoryError`.
    static func statusOrNil(_ path: String) throws(DataDirectoryError) -> Status? {
        do { return try status(path) } catch { throw DataDirectoryError(path, "\(error)") }
    }
}
