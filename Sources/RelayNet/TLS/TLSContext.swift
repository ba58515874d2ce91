import COpenSSL

/// A server `SSL_CTX`: certificate and key loaded, TLS 1.2-1.3 only, forward-secret AEAD ciphers, ALPN.
///
/// Built once at startup and shared by every connection on every loop; OpenSSL reference-counts the
/// context and locks its internals, and nothing here mutates it after `init`.
// Sendable: immutable after init; SSL_CTX is thread-safe for SSL_new.
package final class TLSContext: @unchecked Sendable {
    /// The configuration it was built from.
    package let configuration: TLSConfiguration
    /// The underlying `SSL_CTX *`.
    let context: OpaquePointer
    private let alpn: ALPNList

    /// TLS 1.2 suites: ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 only (TLS 1.3 suites are all AEAD).
    static let tls12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL:!eNULL"

    /// Loads the certificate chain and key and applies the policy; throws `TLSError` with OpenSSL's reason
    /// (e.g. a missing file, a key that does not match the certificate).
    package init(_ configuration: TLSConfiguration) throws(TLSError) {
        self.configuration = configuration
        alpn = ALPNList(wire: try configuration.alpnWireFormat())
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError.openSSL(operation: "SSL_CTX_new") }
        self.context = context
        try configure(configuration)
    }

    deinit {
        SSL_CTX_free(context)
    }

    private func configure(_ configuration: TLSConfiguration) throws(TLSError) {
        guard relay_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            relay_SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION) == 1
        else { throw TLSError.openSSL(operation: "set TLS protocol versions") }
        relay_SSL_CTX_disable_legacy(context)
        relay_SSL_CTX_set_nonblocking_modes(context)
        guard SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1 else {
            throw TLSError.openSSL(operation: "SSL_CTX_set_cipher_list")
        }
        // Resumption uses stateless tickets; a server-side cache would only cost memory.
        relay_SSL_CTX_disable_session_cache(context)
        let sessionContext = Array("ActivityRelay".utf8)
        guard SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count)) == 1 else {
            throw TLSError.openSSL(operation: "SSL_CTX_set_session_id_context")
        }

        let chain = configuration.certificateChainPath
        guard SSL_CTX_use_certificate_chain_file(context, chain) == 1 else {
            throw TLSError.openSSL(operation: "load certificate chain \(chain)")
        }
        let key = configuration.privateKeyPath
        guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError.openSSL(operation: "load private key \(key)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError.openSSL(operation: "match private key \(key) to certificate \(chain)")
        }

        if configuration.verifyClientCertificate { try requireClientCertificates(configuration.trustedCAPath) }
        if !configuration.alpnProtocols.isEmpty { installALPN() }
    }

    private func requireClientCertificates(_ trustedCAPath: String?) throws(TLSError) {
        guard let trustedCAPath else {
            throw TLSError(
                operation: "configure client verification", reason: "verifyClientCertificate needs trustedCAPath")
        }
        guard SSL_CTX_load_verify_locations(context, trustedCAPath, nil) == 1 else {
            throw TLSError.openSSL(operation: "load trusted CAs \(trustedCAPath)")
        }
        guard let names = SSL_load_client_CA_file(trustedCAPath) else {
            throw TLSError.openSSL(operation: "read CA names \(trustedCAPath)")
        }
        SSL_CTX_set_client_CA_list(context, names)  // takes ownership of `names`
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
    }

    private func installALPN() {
        SSL_CTX_set_alpn_select_cb(
            context,
            { _, out, outLength, clientList, clientLength, argument in
                guard let argument, let out, let outLength, let clientList else { return SSL_TLSEXT_ERR_NOACK }
                let list = Unmanaged<ALPNList>.fromOpaque(argument).takeUnretainedValue()
                // Server preference order; no overlap means carrying on without ALPN (HTTP/1.1 by default).
                return relay_select_alpn(
                    out, outLength, list.wire.baseAddress, UInt32(list.wire.count), clientList, clientLength)
            },
            Unmanaged.passUnretained(alpn).toOpaque())
    }

    /// The server's ALPN list in wire form, at a stable address for the C callback; lives as long as the
    /// context, and every `TLSEngine` keeps its context alive.
    private final class ALPNList {
        let wire: UnsafeMutableBufferPointer<UInt8>

        init(wire bytes: [UInt8]) {
            wire = .allocate(capacity: bytes.count)
            _ = wire.initialize(from: bytes)
        }

        deinit { wire.deallocate() }
    }
}
