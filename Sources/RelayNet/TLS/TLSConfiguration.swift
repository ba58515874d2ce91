/// What a TLS server presents and accepts: certificate, key, ALPN protocols and client-certificate policy.
///
/// Protocol versions are not configurable: TLS 1.2 and 1.3 only, as the contract requires.
package struct TLSConfiguration: Sendable, Equatable {
    /// PEM file with the server certificate first, then any intermediates.
    package var certificateChainPath: String
    /// PEM file with the private key matching the certificate.
    package var privateKeyPath: String
    /// ALPN protocols in the server's order of preference; the first one the client also offers wins.
    package var alpnProtocols: [String]
    /// Require and verify a client certificate against `trustedCAPath`.
    package var verifyClientCertificate: Bool
    /// PEM file of CAs trusted to sign client certificates (required when `verifyClientCertificate`).
    package var trustedCAPath: String?

    /// A server configuration; ALPN defaults to `h2` then `http/1.1`.
    package init(
        certificateChainPath: String,
        privateKeyPath: String,
        alpnProtocols: [String] = ["h2", "http/1.1"],
        verifyClientCertificate: Bool = false,
        trustedCAPath: String? = nil
    ) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
        self.alpnProtocols = alpnProtocols
        self.verifyClientCertificate = verifyClientCertificate
        self.trustedCAPath = trustedCAPath
    }

    /// The ALPN list in wire form (each name prefixed by its length), or an error naming a bad entry.
    func alpnWireFormat() throws(TLSError) -> [UInt8] {
        var wire: [UInt8] = []
        for name in alpnProtocols {
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count <= 255 else {
                throw TLSError(operation: "configure ALPN", reason: "protocol name \"\(name)\" must be 1-255 bytes")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        return wire
    }
}
