import COpenSSL

/// What a TLS client trusts and offers: a CA file it verifies servers against (TLS 1.2-1.3 only),
/// and the ALPN protocols it proposes. Built once and shared by any number of `TLSClient`s.
// Sendable: immutable after init; OpenSSL locks an SSL_CTX's internals for SSL_new.
public final class TLSClientContext: @unchecked Sendable {
    /// The underlying `SSL_CTX *`.
    let context: OpaquePointer
    /// The CA file servers are verified against.
    package let caFile: String
    /// The ALPN protocols offered, in order of preference.
    package let alpnProtocols: [String]

    /// Loads `caFile` (PEM; the relay's own `tls-cert.pem` works, it is self-signed) and offers
    /// `alpn` (default `http/1.1`). Throws `TLSError` naming the file or the bad protocol name.
    public init(caFile: String, alpn: [String] = ["http/1.1"]) throws(TLSError) {
        self.caFile = caFile
        alpnProtocols = alpn
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TLSError.openSSL(operation: "SSL_CTX_new") }
        self.context = context
        guard relay_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            relay_SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION) == 1
        else { throw TLSError.openSSL(operation: "set TLS protocol versions") }
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            throw TLSError.openSSL(operation: "load CA file \(caFile)")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        relay_SSL_CTX_set_nonblocking_modes(context)
        if !alpn.isEmpty {
            var wire: [UInt8] = []
            for name in alpn {
                let bytes = Array(name.utf8)
                guard !bytes.isEmpty, bytes.count <= 255 else {
                    throw TLSError(operation: "configure ALPN", reason: "protocol name \"\(name)\" must be 1-255 bytes")
                }
                wire.append(UInt8(bytes.count))
                wire.append(contentsOf: bytes)
            }
            // Unlike most of OpenSSL, 0 is success here.
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw TLSError.openSSL(operation: "SSL_CTX_set_alpn_protos")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}
