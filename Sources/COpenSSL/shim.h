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

#endif
