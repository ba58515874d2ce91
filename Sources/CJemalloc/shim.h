#ifndef RELAY_CJEMALLOC_SHIM_H
#define RELAY_CJEMALLOC_SHIM_H

// For RTLD_DEFAULT and dladdr.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stddef.h>
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

// The file of the shared object whose `malloc` the process's global scope resolves to (the one
// every library calls), or NULL. RTLD_DEFAULT is a cast macro Swift cannot import.
static inline const char *relay_malloc_provider(void) {
    void *symbol = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info info;
    if (symbol == NULL || dladdr(symbol, &info) == 0) {
        return NULL;
    }
    return info.dli_fname;
}

#endif
