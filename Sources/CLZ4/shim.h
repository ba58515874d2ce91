#ifndef RELAY_CLZ4_SHIM_H
#define RELAY_CLZ4_SHIM_H

// LZ4's block format, which the store uses to pack event data (see RelayStore's EventPacking).
#include <lz4.h>

#endif
