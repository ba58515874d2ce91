#ifndef RELAY_CJEMALLOC_SHIM_H
#define RELAY_CJEMALLOC_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <jemalloc/jemalloc.h>

// mallctl("version") writes a `const char *` through a void pointer and takes a size in and out;
// this returns the string, or NULL if jemalloc answers nothing, so Swift never passes the untyped
// out-parameters.
static inline const char *relay_jemalloc_version(void) {
    const char *version = NULL;
    size_t length = sizeof(version);
    if (mallctl("version", &version, &length, NULL, 0) != 0) {
        return NULL;
    }
    return version;
}

// 1 when the process's `malloc` is jemalloc's: a mebibyte taken with plain malloc shows in
// jemalloc's count of this thread's allocations. 0 when another allocator served it (jemalloc
// loaded but glibc's malloc first in the lookup) or jemalloc keeps no count.
static inline int relay_jemalloc_serves_malloc(void) {
    uint64_t before = 0;
    uint64_t after = 0;
    size_t length = sizeof(before);
    if (mallctl("thread.allocated", &before, &length, NULL, 0) != 0) {
        return 0;
    }
    volatile char *probe = malloc(1 << 20);
    if (probe == NULL) {
        return 0;
    }
    probe[0] = 1;
    length = sizeof(after);
    int counted = mallctl("thread.allocated", &after, &length, NULL, 0) == 0 && after - before >= (1 << 20);
    free((void *)probe);
    return counted;
}

#endif
