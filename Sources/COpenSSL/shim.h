#ifndef RELAY_COPENSSL_SHIM_H
#define RELAY_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl; Swift cannot import it.
static inline int relay_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

// SSL_CTX_set_max_proto_version is a macro over SSL_CTX_ctrl; Swift cannot import it.
static inline int relay_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

// SSL_CTX_set_options takes a uint64_t bitmask whose SSL_OP_* values are macros.
static inline void relay_SSL_CTX_disable_legacy(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
}

// SSL_CTX_set_mode is a macro over SSL_CTX_ctrl; partial writes and moving buffers suit a non-blocking loop.
static inline void relay_SSL_CTX_set_nonblocking_modes(SSL_CTX *ctx) {
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
}

// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long relay_BIO_get_mem_data(BIO *bio, char **pp) {
    return BIO_get_mem_data(bio, pp);
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl (used by test clients).
static inline int relay_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// BIO_set_mem_eof_return is a macro over BIO_ctrl; -1 makes an empty memory BIO mean "retry", not EOF.
static inline void relay_BIO_set_mem_eof_return(BIO *bio, int value) {
    (void)BIO_set_mem_eof_return(bio, value);
}

// BIO_get_mem_ptr is a macro over BIO_ctrl; the BUF_MEM's capacity tells when to recycle an idle BIO.
static inline size_t relay_BIO_mem_capacity(BIO *bio) {
    BUF_MEM *mem = NULL;
    BIO_get_mem_ptr(bio, &mem);
    return mem == NULL ? 0 : mem->max;
}

// BIO_pending is a macro over BIO_ctrl.
static inline size_t relay_BIO_pending(BIO *bio) {
    return (size_t)BIO_pending(bio);
}

// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl; stateless tickets make a server cache unneeded.
static inline void relay_SSL_CTX_disable_session_cache(SSL_CTX *ctx) {
    (void)SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
}

// EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen.
static inline EVP_PKEY *relay_EVP_EC_gen_P256(void) {
    return EVP_EC_gen("P-256");
}

// SSL_get_error's result codes are plain macros Swift imports, but the ALPN callback's pointer types
// differ between SSL_select_next_proto (non-const out) and the callback (const out); this bridges them.
static inline int relay_select_alpn(const unsigned char **out, unsigned char *outlen,
                                    const unsigned char *server, unsigned int serverlen,
                                    const unsigned char *client, unsigned int clientlen) {
    unsigned char *selected = NULL;
    int status = SSL_select_next_proto(&selected, outlen, server, serverlen, client, clientlen);
    if (status != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

#endif
