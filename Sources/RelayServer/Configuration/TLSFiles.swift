import RelayCore

/// A certificate chain and private key the operator provides (config object `tls`), used instead
/// of the self-signed pair the data directory generates. Paths are absolute once parsed.
package struct TLSFiles: Sendable, Hashable {
    /// PEM certificate chain, leaf first.
    package var certificatePath: String
    /// PEM private key of the leaf certificate.
    package var privateKeyPath: String

    /// A pair of files.
    package init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// The config keys, as written in the `tls` object.
    static let keys: Set<String> = ["certificate", "key"]

    /// Reads the `tls` object: both paths are required, relative ones resolved against `base`
    /// (the config file's directory).
    init(fields: ConfigFields, base: String) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        let certificate = try fields.requireString("certificate", "the path of a PEM certificate chain")
        let key = try fields.requireString("key", "the path of the certificate's PEM private key")
        self.init(
            certificatePath: FileSystem.absolute(certificate, relativeTo: base),
            privateKeyPath: FileSystem.absolute(key, relativeTo: base))
    }
}
