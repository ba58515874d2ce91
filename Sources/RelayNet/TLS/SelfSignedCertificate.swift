import COpenSSL
import Glibc

/// The first-start certificate: a self-signed EC P-256 certificate for `localhost` and `127.0.0.1`, the
/// file clients trust (`curl --cacert tls-cert.pem`). It is a leaf (basicConstraints CA:FALSE, no
/// certificate-signing key usage), so whoever reads `tls-key.pem` cannot make it vouch for any other
/// name: a certificate signed with that key does not verify against this one.
package enum SelfSignedCertificate {
    /// Subject and issuer common name.
    package static let commonName = "ActivityRelay localhost"
    /// The common name of the generated certificates that were CAs; one found is replaced.
    static let caCommonName = "ActivityRelay local CA"
    /// Names the certificate is valid for.
    package static let subjectAlternativeNames = "DNS:localhost,IP:127.0.0.1"
    /// Validity period in days (ten years).
    package static let validityDays = 3650

    /// Creates the key (mode 0600) and certificate (mode 0644) when neither exists; returns true if it
    /// created them, false if both were already there. A pair whose certificate is a generated CA
    /// (common name `ActivityRelay local CA`, CA:TRUE: it could vouch for any host) is replaced by a
    /// new key and leaf, and true returned. Exactly one existing is an error, as is any failure to
    /// generate or write (files are written to a temporary name and renamed, never left half-written).
    @discardableResult
    package static func ensure(certificatePath: String, keyPath: String) throws -> Bool {
        let haveCertificate = access(certificatePath, F_OK) == 0
        let haveKey = access(keyPath, F_OK) == 0
        if haveCertificate && haveKey && !isGeneratedCA(certificatePath) { return false }
        if haveCertificate && haveKey {
            try writePair(generate(), certificatePath: certificatePath, keyPath: keyPath)
            return true
        }
        if haveCertificate || haveKey {
            let (present, missing) = haveCertificate ? (certificatePath, keyPath) : (keyPath, certificatePath)
            throw TLSError(
                operation: "ensure self-signed certificate",
                reason: "\(present) exists but \(missing) does not; remove \(present) to generate a new pair")
        }
        try writePair(generate(), certificatePath: certificatePath, keyPath: keyPath)
        return true
    }

    /// The key first: a crash between the two renames leaves the old CA certificate, replaced again
    /// at the next start.
    private static func writePair(
        _ pair: (certificate: [UInt8], key: [UInt8]), certificatePath: String, keyPath: String
    ) throws {
        try writeFileAtomically(keyPath, contents: pair.key, mode: 0o600)
        try writeFileAtomically(certificatePath, contents: pair.certificate, mode: 0o644)
    }

    /// True when the PEM certificate at `path` is one this type generated as a CA.
    static func isGeneratedCA(_ path: String) -> Bool {
        guard let bio = BIO_new_file(path, "r") else {
            ERR_clear_error()
            return false
        }
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            ERR_clear_error()
            return false
        }
        defer { X509_free(certificate) }
        guard X509_check_ca(certificate) != 0, let subject = X509_get_subject_name(certificate) else { return false }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = X509_NAME_get_text_by_NID(subject, NID_commonName, &buffer, Int32(buffer.count))
        guard length > 0 else { return false }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            == caCommonName
    }

    /// Generates a fresh key and certificate, both PEM encoded.
    static func generate() throws(TLSError) -> (certificate: [UInt8], key: [UInt8]) {
        ERR_clear_error()
        guard let key = relay_EVP_EC_gen_P256() else { throw TLSError.openSSL(operation: "generate P-256 key") }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw TLSError.openSSL(operation: "X509_new") }
        defer { X509_free(certificate) }

        guard X509_set_version(certificate, 2) == 1,  // v3
            try setRandomSerial(certificate),
            X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,  // tolerate slightly slow clocks
            X509_gmtime_adj(X509_getm_notAfter(certificate), validityDays * 86_400) != nil,
            X509_set_pubkey(certificate, key) == 1,
            let name = X509_get_subject_name(certificate),
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, name) == 1
        else { throw TLSError.openSSL(operation: "build certificate") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_key_identifier, "hash"),  // before the authority key id, which copies it
            (NID_authority_key_identifier, "keyid:always"),
            (NID_subject_alt_name, subjectAlternativeNames),
        ]
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSError.openSSL(operation: "certificate extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else {
                throw TLSError.openSSL(operation: "add certificate extension \(value)")
            }
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSError.openSSL(operation: "X509_sign") }

        let certificatePEM = try pem("PEM_write_bio_X509") { PEM_write_bio_X509($0, certificate) }
        let keyPEM = try pem("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        return (certificatePEM, keyPEM)
    }

    private static func setRandomSerial(_ certificate: OpaquePointer) throws(TLSError) -> Bool {
        guard let number = BN_new() else { throw TLSError.openSSL(operation: "BN_new") }
        defer { BN_free(number) }
        // 127 random bits: unique in practice and always a positive 16-byte DER integer.
        guard BN_rand(number, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 else { return false }
        return BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil
    }

    private static func pem(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(TLSError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL(operation: "BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw TLSError.openSSL(operation: operation) }
        var data: UnsafeMutablePointer<CChar>?
        let length = relay_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw TLSError.openSSL(operation: operation) }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Writes `contents` to a fresh temporary file with `mode`, syncs it, and renames it over `path`.
    private static func writeFileAtomically(_ path: String, contents: [UInt8], mode: mode_t) throws(SystemError) {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = try syscall("open \(temporary)") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        var isOpen = true
        do throws(SystemError) {
            try syscall("fchmod \(temporary)") { fchmod(fd, mode) }  // exact mode regardless of umask
            let failure: Int32? = contents.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno != EINTR { return errno }
                    offset += max(0, written)
                }
                return nil
            }
            if let failure { throw SystemError(call: "write \(temporary)", errno: failure) }
            try syscall("fsync \(temporary)") { fsync(fd) }
            isOpen = false
            if close(fd) != 0 && errno != EINTR { throw SystemError(call: "close \(temporary)", errno: errno) }
            try syscall("rename \(temporary) to \(path)") { rename(temporary, path) }
        } catch {
            if isOpen { close(fd) }
            unlink(temporary)
            throw error
        }
    }
}
