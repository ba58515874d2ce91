#ifndef RELAY_CSQLITE_SHIM_H
#define RELAY_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro ((sqlite3_destructor_type)-1) that Swift cannot import.
static inline sqlite3_destructor_type relay_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_bind_text with SQLITE_TRANSIENT, so Swift never passes the macro.
static inline int relay_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

// sqlite3_bind_blob with SQLITE_TRANSIENT.
static inline int relay_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *data, int length) {
    return sqlite3_bind_blob(stmt, index, data, length, SQLITE_TRANSIENT);
}

// sqlite3_config is variadic: turns off SQLite's memory statistics, which take a global mutex on
// every allocation. Returns SQLITE_MISUSE once SQLite is initialized (then it changes nothing).
static inline int relay_sqlite3_config_memstatus_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
