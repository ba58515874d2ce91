// bench-openssl-idle CERT KEY [COUNT]
//
// OpenSSL's own memory per idle server-side TLS session, with no server around it: COUNT
// handshakes (TLS 1.3, ALPN h2, session tickets read by the client) run between client and server
// SSL objects over memory BIOs in this process; the clients are freed and the server sessions kept,
// each with fresh empty memory BIOs, as an idle connection keeps them. Heap bytes in use
// (mallinfo2) and resident memory are compared before and after. The server context is set up
// like the relay's: TLS 1.2-1.3, SSL_MODE_RELEASE_BUFFERS, no server-side session cache.
#include <malloc.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char alpn[] = {2, 'h', '2'};

// Chooses h2 when the client offers it.
static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, alpn, sizeof alpn, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

static void fail(const char *what) {
    fprintf(stderr, "bench-openssl-idle: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static long resident_kib(void) {
    FILE *status = fopen("/proc/self/status", "r");
    if (!status) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
    fclose(status);
    return kib;
}

// Moves every pending byte from one memory BIO to another.
static void pump(BIO *from, BIO *to) {
    char buffer[16384];
    int count;
    while ((count = BIO_read(from, buffer, sizeof buffer)) > 0)
        if (BIO_write(to, buffer, count) != count) fail("BIO_write");
}

static BIO *memory_bio(void) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) fail("BIO_new");
    BIO_set_mem_eof_return(bio, -1);
    return bio;
}

// One complete handshake; returns the server session with fresh, empty memory BIOs.
static SSL *idle_session(SSL_CTX *server_context, SSL_CTX *client_context) {
    SSL *server = SSL_new(server_context), *client = SSL_new(client_context);
    if (!server || !client) fail("SSL_new");
    BIO *client_to_server = memory_bio(), *server_to_client = memory_bio();
    BIO *client_in = memory_bio(), *client_out = memory_bio();
    SSL_set_bio(server, client_to_server, server_to_client);
    SSL_set_bio(client, client_in, client_out);
    SSL_set_accept_state(server);
    SSL_set_connect_state(client);
    for (int round = 0; round < 16; round++) {
        int client_done = SSL_do_handshake(client) == 1;
        pump(client_out, client_to_server);
        int server_done = SSL_do_handshake(server) == 1;
        pump(server_to_client, client_in);
        if (client_done && server_done) break;
    }
    if (!SSL_is_init_finished(server) || !SSL_is_init_finished(client)) fail("handshake did not finish");
    char byte;
    SSL_read(client, &byte, 1);  // consumes the session tickets; no application data comes
    SSL_free(client);
    SSL_set0_rbio(server, memory_bio());  // frees the used BIOs, as the relay does when idle
    SSL_set0_wbio(server, memory_bio());
    return server;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench-openssl-idle CERT KEY [COUNT]\n");
        return 2;
    }
    int count = argc > 3 ? atoi(argv[3]) : 10000;
    if (count < 1) fail("COUNT must be positive");

    SSL_CTX *server_context = SSL_CTX_new(TLS_server_method());
    if (!server_context) fail("SSL_CTX_new");
    SSL_CTX_set_min_proto_version(server_context, TLS1_2_VERSION);
    SSL_CTX_set_mode(server_context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                         SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(server_context, SSL_SESS_CACHE_OFF);
    if (SSL_CTX_use_certificate_chain_file(server_context, argv[1]) != 1) fail("certificate");
    if (SSL_CTX_use_PrivateKey_file(server_context, argv[2], SSL_FILETYPE_PEM) != 1) fail("key");
    SSL_CTX_set_alpn_select_cb(server_context, select_alpn, NULL);

    SSL_CTX *client_context = SSL_CTX_new(TLS_client_method());
    if (!client_context) fail("SSL_CTX_new");
    SSL_CTX_set_verify(client_context, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_ciphersuites(client_context, "TLS_AES_128_GCM_SHA256");
    SSL_CTX_set_alpn_protos(client_context, alpn, sizeof alpn);

    for (int i = 0; i < 100; i++) SSL_free(idle_session(server_context, client_context));  // warm-up

    SSL **sessions = calloc((size_t)count, sizeof *sessions);
    if (!sessions) fail("calloc");
    struct mallinfo2 before = mallinfo2();
    long resident_before = resident_kib();
    for (int i = 0; i < count; i++) sessions[i] = idle_session(server_context, client_context);
    struct mallinfo2 after = mallinfo2();
    long resident_after = resident_kib();

    double heap = (double)(after.uordblks - before.uordblks) / count;
    double resident = (double)(resident_after - resident_before) * 1024 / count;
    printf("sessions %d\n", count);
    printf("heap bytes per idle session %.0f (%.2f KiB)\n", heap, heap / 1024);
    printf("resident bytes per idle session %.0f (%.2f KiB)\n", resident, resident / 1024);
    for (int i = 0; i < count; i++) SSL_free(sessions[i]);
    free(sessions);
    SSL_CTX_free(client_context);
    SSL_CTX_free(server_context);
    return 0;
}
