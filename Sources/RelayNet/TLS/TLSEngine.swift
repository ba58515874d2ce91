import COpenSSL
import Glibc

/// One TLS session (server side, or client side for outbound connections) as a pure bytes-in, bytes-out object: an `SSL *` between two memory BIOs.
///
/// The owner feeds ciphertext from the network with `receive`, drives `handshake`/`read`/`write`, and
/// after every call moves whatever `takeCiphertext` yields to the network. No descriptor is touched here,
/// so the engine can be driven by a test with no socket at all. Not thread-safe: one owner, one thread.
final class TLSEngine {
    /// Result of driving the handshake.
    enum HandshakeResult: Equatable {
        /// Handshake finished; application data may flow.
        case complete
        /// Needs more ciphertext from the peer (SSL_ERROR_WANT_READ).
        case needsInput
        /// Needs its output drained before it can continue (SSL_ERROR_WANT_WRITE; memory BIOs never fill,
        /// but the path is honoured rather than assumed away).
        case needsOutputDrained
        /// Handshake failed; send any pending ciphertext (the alert), then close.
        case failed(TLSError)
    }

    /// Result of reading decrypted bytes.
    enum ReadResult: Equatable {
        /// This many plaintext bytes were written to the buffer.
        case bytes(Int)
        /// Needs more ciphertext from the peer.
        case needsInput
        /// Needs its output drained before it can continue.
        case needsOutputDrained
        /// The peer sent close_notify.
        case closed
        /// A protocol error; close the connection.
        case failed(TLSError)
    }

    /// Result of encrypting application bytes.
    enum WriteResult: Equatable {
        /// This many plaintext bytes were accepted (possibly fewer than offered: partial writes are on).
        case accepted(Int)
        /// The write must wait for ciphertext from the peer (SSL_ERROR_WANT_READ during a write).
        case needsInput
        /// Needs its output drained before it can continue.
        case needsOutputDrained
        /// A protocol error; close the connection.
        case failed(TLSError)
    }

    private let ssl: OpaquePointer
    private var networkToSSL: OpaquePointer  // read BIO: ciphertext from the peer
    private var sslToNetwork: OpaquePointer  // write BIO: ciphertext for the peer
    private let context: AnyObject  // the TLSContext or TLSClientContext: keeps the SSL_CTX alive with this session
    private var broken = false  // after a fatal error OpenSSL forbids SSL_shutdown

    /// An empty memory BIO holding more buffer than this is replaced, so an idle connection keeps no
    /// buffer at all (measured: about 1.5 KiB less per idle connection than keeping the handshake's
    /// buffers). A busy connection pays a few allocations per loop pass for it, small beside a syscall.
    static let idleBIOCapacity = 0

    /// Creates a server session in accept state.
    init(context: TLSContext) throws(TLSError) {
        self.context = context
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw TLSError.openSSL(operation: "SSL_new") }
        guard let input = Self.makeMemoryBIO(), let output = Self.makeMemoryBIO() else {
            SSL_free(ssl)
            throw TLSError.openSSL(operation: "BIO_new")
        }
        SSL_set_bio(ssl, input, output)  // the SSL now owns both BIOs
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        networkToSSL = input
        sslToNetwork = output
    }

    /// Creates a client session in connect state that verifies the server against `context`'s CA file
    /// and expects `host` (a DNS name, also sent as SNI, or an IP literal) in its certificate.
    init(client context: TLSClientContext, host: String) throws(TLSError) {
        self.context = context
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw TLSError.openSSL(operation: "SSL_new") }
        guard let input = Self.makeMemoryBIO(), let output = Self.makeMemoryBIO() else {
            SSL_free(ssl)
            throw TLSError.openSSL(operation: "BIO_new")
        }
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
        self.ssl = ssl
        networkToSSL = input
        sslToNetwork = output
        try Self.expect(host: host, on: ssl)
    }

    /// Makes `ssl` (a client session) require `host` in the server's certificate: an IP address
    /// literal as such, a name as a DNS name (also sent as SNI).
    static func expect(host: String, on ssl: OpaquePointer) throws(TLSError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw TLSError.openSSL(operation: "expect IP address \(host)")
            }
        } else {
            guard SSL_set1_host(ssl, host) == 1, relay_SSL_set_tlsext_host_name(ssl, host) == 1 else {
                throw TLSError.openSSL(operation: "expect host name \(host)")
            }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Why the peer's certificate was refused, when verification failed.
    var verifyFailure: String? {
        let result = SSL_get_verify_result(ssl)
        guard result != X509_V_OK else { return nil }
        return String(cString: X509_verify_cert_error_string(result))
    }

    private static func makeMemoryBIO() -> OpaquePointer? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        relay_BIO_set_mem_eof_return(bio, -1)  // empty means "want read", not end of stream
        return bio
    }

    // MARK: - Ciphertext in and out

    /// Hands ciphertext read from the network to OpenSSL.
    func receive(_ ciphertext: UnsafeRawBufferPointer) {
        guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
        var offset = 0
        while offset < ciphertext.count {
            let step = min(ciphertext.count - offset, Int(Int32.max))
            let written = BIO_write(networkToSSL, base + offset, Int32(step))
            guard written > 0 else { return }  // a memory BIO only refuses when out of memory
            offset += Int(written)
        }
    }

    /// Bytes of ciphertext waiting to go to the network.
    var pendingCiphertext: Int { relay_BIO_pending(sslToNetwork) }

    /// Lends the outgoing ciphertext in place (no copy), e.g. to hand straight to `send`.
    func withPendingCiphertext<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        var data: UnsafeMutablePointer<CChar>?
        let length = relay_BIO_get_mem_data(sslToNetwork, &data)
        guard let data, length > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Drops the first `count` bytes of outgoing ciphertext (they were sent); `scratch` absorbs the copy
    /// a memory BIO makes when read.
    func discardCiphertext(_ count: Int, scratch: UnsafeMutableRawBufferPointer) {
        var remaining = count
        while remaining > 0 {
            let step = Int32(min(remaining, scratch.count, Int(Int32.max)))
            let read = BIO_read(sslToNetwork, scratch.baseAddress, step)
            guard read > 0 else { return }
            remaining -= Int(read)
        }
    }

    /// Replaces empty memory BIOs holding more than `idleBIOCapacity`, returning their memory to the allocator.
    func releaseIdleBuffers() {
        if relay_BIO_pending(networkToSSL) == 0, relay_BIO_mem_capacity(networkToSSL) > Self.idleBIOCapacity,
            let fresh = Self.makeMemoryBIO()
        {
            SSL_set0_rbio(ssl, fresh)  // frees the old one
            networkToSSL = fresh
        }
        if relay_BIO_pending(sslToNetwork) == 0, relay_BIO_mem_capacity(sslToNetwork) > Self.idleBIOCapacity,
            let fresh = Self.makeMemoryBIO()
        {
            SSL_set0_wbio(ssl, fresh)
            sslToNetwork = fresh
        }
    }

    // MARK: - Session

    /// Advances the handshake with whatever ciphertext has been received.
    func handshake() -> HandshakeResult {
        ERR_clear_error()
        let status = SSL_do_handshake(ssl)
        if status == 1 { return .complete }
        switch classify(status, operation: "TLS handshake") {
        case .wantRead: return .needsInput
        case .wantWrite: return .needsOutputDrained
        case .closed: return .failed(TLSError(operation: "TLS handshake", reason: "peer closed during handshake"))
        case .error(let error): return .failed(error)
        }
    }

    /// Decrypts application data into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .bytes(0) }
        ERR_clear_error()
        let status = SSL_read(ssl, base, Int32(min(buffer.count, Int(Int32.max))))
        if status > 0 { return .bytes(Int(status)) }
        switch classify(status, operation: "SSL_read") {
        case .wantRead: return .needsInput
        case .wantWrite: return .needsOutputDrained
        case .closed: return .closed
        case .error(let error): return .failed(error)
        }
    }

    /// Encrypts application data; the ciphertext appears in `takeCiphertext`.
    func write(_ plaintext: UnsafeRawBufferPointer) -> WriteResult {
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return .accepted(0) }
        ERR_clear_error()
        let status = SSL_write(ssl, base, Int32(min(plaintext.count, Int(Int32.max))))
        if status > 0 { return .accepted(Int(status)) }
        switch classify(status, operation: "SSL_write") {
        case .wantRead: return .needsInput
        case .wantWrite: return .needsOutputDrained
        case .closed: return .failed(TLSError(operation: "SSL_write", reason: "peer closed the TLS session"))
        case .error(let error): return .failed(error)
        }
    }

    /// Queues a close_notify alert (one direction of the TLS shutdown; the peer's reply is not awaited).
    func close() {
        ERR_clear_error()
        if !broken, SSL_is_init_finished(ssl) == 1 { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
    }

    // MARK: - After the handshake

    /// The ALPN protocol agreed in the handshake, if any.
    var alpnProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated protocol version, e.g. `"TLSv1.3"`.
    var protocolVersion: String {
        guard let name = SSL_get_version(ssl) else { return "unknown" }
        return String(cString: name)
    }

    /// The client's certificate in DER form, when it presented one.
    func peerCertificateDER() -> [UInt8]? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        return written == length ? der : nil
    }

    // MARK: - Errors

    private enum Outcome {
        case wantRead, wantWrite, closed
        case error(TLSError)
    }

    private func classify(_ status: Int32, operation: String) -> Outcome {
        switch SSL_get_error(ssl, status) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            broken = true
            // With memory BIOs there is no syscall; this is OpenSSL reporting an unexpected end of input.
            return .error(TLSError.openSSL(operation: operation, fallback: "unexpected end of TLS stream"))
        case let code:
            broken = true
            return .error(TLSError.openSSL(operation: operation, fallback: "SSL_get_error \(code)"))
        }
    }
}
