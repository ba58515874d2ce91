import COpenSSL
import CRelayLinux
import Glibc

/// One client TLS connection for command-line tools, tests and the load generator: connect,
/// verify the server against a CA file (chain and host name), then write and read with timeouts.
///
/// The socket is non-blocking and OpenSSL works between two memory BIOs, so every wait is a
/// `poll` with a deadline (a stalled server costs a timeout, never a hang), writes use
/// MSG_NOSIGNAL (a reset peer is an error, not SIGPIPE), and `read(timeout: 0)` lets one thread
/// serve many connections that `poll` reports readable. Not thread-safe: one owner at a time.
public final class TLSClient {
    /// What a read produced.
    package enum ReadResult: Equatable, Sendable {
        /// Decrypted application bytes (never empty).
        case bytes([UInt8])
        /// Nothing arrived before the timeout.
        case timedOut
        /// The server closed the connection (close_notify or end of stream).
        case closed
    }

    /// The socket descriptor (for `poll` by callers that multiplex many clients).
    public let fd: Int32
    /// The protocol ALPN settled on, if any.
    package private(set) var alpnProtocol: String?
    /// The server as `host:port`, for messages.
    package let peer: String

    private let ssl: OpaquePointer
    private let networkToSSL: OpaquePointer
    private let sslToNetwork: OpaquePointer
    private let context: TLSClientContext  // keeps the SSL_CTX alive as long as this session
    private var isClosed = false
    private var peerEnded = false
    private var scratch = [UInt8](repeating: 0, count: 16_384)
    /// Absorbs the copy a memory BIO makes of ciphertext already sent (kept apart from `scratch`,
    /// which may hold plaintext not yet returned).
    private var discard = [UInt8](repeating: 0, count: 16_384)

    private init(
        fd: Int32, ssl: OpaquePointer, input: OpaquePointer, output: OpaquePointer, context: TLSClientContext,
        peer: String
    ) {
        self.fd = fd
        self.ssl = ssl
        networkToSSL = input
        sslToNetwork = output
        self.context = context
        self.peer = peer
    }

    deinit {
        if !isClosed { _ = Glibc.close(fd) }
        SSL_free(ssl)
    }

    /// Connects to `host:port` and completes a verified handshake within `timeout` seconds. The
    /// certificate must chain to the context's CA file and name `host` (a DNS name or an IP
    /// literal); `receiveBufferBytes` shrinks the socket's receive buffer (tests that play a slow
    /// reader). Throws `TLSError` saying what failed: the connect, the handshake, or why the
    /// certificate was refused.
    package static func connect(
        host: String, port: UInt16, context: TLSClientContext, timeout: Double = 10, receiveBufferBytes: Int? = nil
    ) throws(TLSError) -> TLSClient {
        let deadline = ClientSocket.now() + timeout
        let peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let fd = try ClientSocket.open(
            host: host, port: port, deadline: deadline, receiveBufferBytes: receiveBufferBytes)
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            _ = Glibc.close(fd)
            throw TLSError.openSSL(operation: "SSL_new")
        }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            _ = Glibc.close(fd)
            throw TLSError.openSSL(operation: "BIO_new")
        }
        relay_BIO_set_mem_eof_return(input, -1)
        relay_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
        let client = TLSClient(fd: fd, ssl: ssl, input: input, output: output, context: context, peer: peer)
        try client.expectHost(host)
        do throws(TLSError) {
            _ = try client.drive("TLS handshake with \(peer)", deadline: deadline) { SSL_do_handshake(ssl) }
        } catch {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                throw TLSError(operation: "verify certificate of \(peer) against \(context.caFile)", reason: reason)
            }
            throw error
        }
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        if let selected, length > 0 {
            client.alpnProtocol = String(
                decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
        }
        return client
    }

    /// Sends all of `bytes` within `timeout` seconds.
    package func write(_ bytes: [UInt8], timeout: Double = 30) throws(TLSError) {
        let deadline = ClientSocket.now() + timeout
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + (1 << 20))])
            let written = try drive("write to \(peer)", deadline: deadline) {
                chunk.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            }
            offset += Int(written)
        }
    }

    /// Waits up to `timeout` seconds (nil: for ever, 0: not at all) for application bytes.
    package func read(timeout: Double?) throws(TLSError) -> ReadResult {
        let deadline = timeout.map { ClientSocket.now() + $0 }
        while true {
            ERR_clear_error()
            let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            try flushOutput(deadline: deadline)
            if count > 0 { return .bytes(Array(scratch[0..<Int(count)])) }
            let code = SSL_get_error(ssl, count)
            switch code {
            case SSL_ERROR_WANT_READ:
                guard try receive(deadline: deadline) else { return peerEnded ? .closed : .timedOut }
            case SSL_ERROR_WANT_WRITE:
                continue
            case SSL_ERROR_ZERO_RETURN:
                return .closed
            default:
                if peerEnded { return .closed }  // end of stream without close_notify
                throw TLSError.openSSL(operation: "read from \(peer)", fallback: "SSL error \(code)")
            }
        }
    }

    /// Sends close_notify (best effort) and closes the socket. Safe to call twice.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        ERR_clear_error()
        if !peerEnded {
            _ = SSL_shutdown(ssl)
            try? flushOutput(deadline: ClientSocket.now() + 0.2)
        }
        _ = Glibc.close(fd)
    }

    /// Closes the socket at once, with no close_notify (a peer that vanishes).
    package func abort() {
        guard !isClosed else { return }
        isClosed = true
        _ = Glibc.close(fd)
    }

    // MARK: - Private

    /// Sets the name (or address) the certificate must carry, and SNI for a name.
    private func expectHost(_ host: String) throws(TLSError) {
        try TLSEngine.expect(host: host, on: ssl)
    }

    /// Runs `operation` until it succeeds, moving ciphertext both ways and waiting until `deadline`.
    private func drive(_ name: String, deadline: Double, _ operation: () -> Int32) throws(TLSError) -> Int32 {
        while true {
            ERR_clear_error()
            let result = operation()
            try flushOutput(deadline: deadline)
            if result > 0 { return result }
            let code = SSL_get_error(ssl, result)
            switch code {
            case SSL_ERROR_WANT_READ:
                guard try receive(deadline: deadline) else {
                    if peerEnded { throw TLSError(operation: name, reason: "the server closed the connection") }
                    throw TLSError(operation: name, reason: "timed out")
                }
            case SSL_ERROR_WANT_WRITE:
                continue
            default:
                throw TLSError.openSSL(
                    operation: name, fallback: peerEnded ? "the server closed the connection" : "SSL error \(code)")
            }
        }
    }

    /// Sends every pending ciphertext byte, waiting for room until `deadline` (nil: for ever).
    private func flushOutput(deadline: Double?) throws(TLSError) {
        while relay_BIO_pending(sslToNetwork) > 0 {
            var data: UnsafeMutablePointer<CChar>?
            let length = relay_BIO_get_mem_data(sslToNetwork, &data)
            guard let data, length > 0 else { return }
            let sent = send(fd, data, length, Int32(MSG_NOSIGNAL))
            if sent > 0 {
                var left = sent
                while left > 0 {
                    let step = discard.withUnsafeMutableBytes { raw in
                        BIO_read(sslToNetwork, raw.baseAddress, Int32(min(left, raw.count)))
                    }
                    guard step > 0 else { break }
                    left -= Int(step)
                }
                continue
            }
            let error = relay_errno()
            if sent < 0, error == EINTR { continue }
            guard sent < 0, error == EAGAIN || error == EWOULDBLOCK else {
                throw TLSError(operation: "send to \(peer)", reason: String(cString: strerror(error)))
            }
            guard try ClientSocket.wait(fd, for: Int16(POLLOUT), deadline: deadline) else {
                throw TLSError(operation: "send to \(peer)", reason: "timed out: the server does not read")
            }
        }
    }

    /// Moves ciphertext from the socket into OpenSSL; false when nothing came before `deadline`
    /// or the server ended the stream (then `peerEnded` is set).
    private func receive(deadline: Double?) throws(TLSError) -> Bool {
        guard !peerEnded else { return false }
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                _ = scratch.withUnsafeBytes { BIO_write(networkToSSL, $0.baseAddress, Int32(count)) }
                return true
            }
            if count == 0 {
                peerEnded = true
                return false
            }
            let error = relay_errno()
            if error == EINTR { continue }
            if error == ECONNRESET {
                peerEnded = true
                return false
            }
            guard error == EAGAIN || error == EWOULDBLOCK else {
                throw TLSError(operation: "receive from \(peer)", reason: String(cString: strerror(error)))
            }
            guard try ClientSocket.wait(fd, for: Int16(POLLIN), deadline: deadline) else { return false }
        }
    }
}
