import COpenSSL
import XCTest

@testable import RelayNet

/// Drives the server engine against an in-memory OpenSSL client: no sockets, bytes in and bytes out.
final class TLSEngineTests: XCTestCase {
    private var clientContext: OpaquePointer!
    private var client: OpaquePointer!
    private var clientIn: OpaquePointer!  // engine -> client
    private var clientOut: OpaquePointer!  // client -> engine
    private var engine: TLSEngine!
    /// Allocated in `setUpWithError` and freed in `tearDown`: XCTest makes an instance for every
    /// test, also ones it only lists or skips, so an allocation at initialisation would leak there.
    private var scratch: UnsafeMutableRawBufferPointer!

    override func setUpWithError() throws {
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        engine = try TLSEngine(context: TestCertificate.context())
        clientContext = SSL_CTX_new(TLS_client_method())
        XCTAssertEqual(SSL_CTX_load_verify_locations(clientContext, TestCertificate.shared.certificate, nil), 1)
        SSL_CTX_set_verify(clientContext, SSL_VERIFY_PEER, nil)
        let alpn: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        XCTAssertEqual(SSL_CTX_set_alpn_protos(clientContext, alpn, UInt32(alpn.count)), 0)
        client = SSL_new(clientContext)
        clientIn = BIO_new(BIO_s_mem())
        clientOut = BIO_new(BIO_s_mem())
        relay_BIO_set_mem_eof_return(clientIn, -1)
        SSL_set_bio(client, clientIn, clientOut)
        SSL_set_connect_state(client)
        XCTAssertEqual(relay_SSL_set_tlsext_host_name(client, "localhost"), 1)
        XCTAssertEqual(SSL_set1_host(client, "localhost"), 1)
    }

    override func tearDown() {
        SSL_free(client)
        SSL_CTX_free(clientContext)
        engine = nil
        scratch.deallocate()
    }

    /// Moves ciphertext both ways until neither side has anything to send.
    private func pump() {
        while true {
            var moved = false
            while engine.pendingCiphertext > 0 {
                let count = engine.withPendingCiphertext { Int(BIO_write(clientIn, $0.baseAddress, Int32($0.count))) }
                engine.discardCiphertext(count, scratch: scratch)
                moved = true
            }
            while relay_BIO_pending(clientOut) > 0 {
                let count = BIO_read(clientOut, scratch.baseAddress, Int32(scratch.count))
                engine.receive(UnsafeRawBufferPointer(rebasing: scratch[0..<Int(count)]))
                moved = true
            }
            if !moved { return }
        }
    }

    private func handshake() {
        var serverDone = false
        for _ in 0..<10 where !serverDone || SSL_is_init_finished(client) != 1 {
            _ = SSL_do_handshake(client)
            pump()
            if !serverDone {
                let result = engine.handshake()
                XCTAssertTrue(result == .complete || result == .needsInput, "\(result)")
                serverDone = result == .complete
            }
            pump()
        }
        XCTAssertTrue(serverDone)
        XCTAssertEqual(SSL_get_verify_result(client), Int(X509_V_OK))
    }

    private func write(_ text: String) -> TLSEngine.WriteResult {
        Array(text.utf8).withUnsafeBytes { engine.write($0) }
    }

    private func clientReads() -> String {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = SSL_read(client, &buffer, Int32(buffer.count))
        return count > 0 ? String(decoding: buffer[0..<Int(count)], as: UTF8.self) : ""
    }

    func testWriteBeforeHandshakeWaitsForInputThenSucceeds() {
        XCTAssertEqual(write("early"), .needsInput, "SSL_write must wait for the peer's ClientHello")
        handshake()
        XCTAssertEqual(engine.alpnProtocol, "h2")
        XCTAssertEqual(engine.protocolVersion, "TLSv1.3")
        XCTAssertNil(engine.peerCertificateDER())
        XCTAssertEqual(write("early"), .accepted(5))
        pump()
        XCTAssertEqual(clientReads(), "early")
    }

    func testReadsApplicationDataThenCloseNotify() {
        handshake()
        XCTAssertEqual(SSL_write(client, "ping", 4), 4)
        pump()
        XCTAssertEqual(engine.read(into: scratch), .bytes(4))
        XCTAssertEqual(String(decoding: scratch[0..<4], as: UTF8.self), "ping")
        XCTAssertEqual(engine.read(into: scratch), .needsInput)
        _ = SSL_shutdown(client)
        pump()
        XCTAssertEqual(engine.read(into: scratch), .closed)
        engine.close()
        pump()
        XCTAssertEqual(SSL_read(client, scratch.baseAddress, 1), 0)
        XCTAssertEqual(SSL_get_error(client, 0), SSL_ERROR_ZERO_RETURN, "engine should answer with close_notify")
    }

    func testPlainHTTPIsAHandshakeFailureWithOpenSSLsReason() {
        let request = Array("GET / HTTP/1.1\r\nhost: x\r\n\r\n".utf8)
        request.withUnsafeBytes { engine.receive($0) }
        guard case .failed(let error) = engine.handshake() else { return XCTFail("handshake should fail") }
        XCTAssertEqual(error.operation, "TLS handshake")
        XCTAssertTrue(error.reason.contains("http request"), error.reason)
    }

    func testIdleBuffersAreReleasedWithoutLosingTheSession() {
        handshake()
        engine.releaseIdleBuffers()
        XCTAssertEqual(SSL_write(client, "after", 5), 5)
        pump()
        XCTAssertEqual(engine.read(into: scratch), .bytes(5))
        XCTAssertEqual(write("reply"), .accepted(5))
        engine.releaseIdleBuffers()  // ciphertext pending: the write BIO must be kept
        pump()
        XCTAssertEqual(clientReads(), "reply")
    }
}
