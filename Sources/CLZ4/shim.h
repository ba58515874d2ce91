#ifndef RELAY_CLZ4_SHIM_H
#define RELAY_CLZ4_SHIM_H

// LZ4's block format, which the store uses to pack event data (see RelayStore's EventPacking).
// The static-linking-only part declares LZ4_resetStream_fast and LZ4_attach_dictionary; the
// module links liblz4.a, which defines them.
#define LZ4_STATIC_LINKING_ONLY
#include <lz4.h>

#endif
