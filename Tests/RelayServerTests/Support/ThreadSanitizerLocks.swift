#if RELAY_TSAN_LOCKS
    import RelayNet

    /// ThreadSanitizer builds only (`bench/sanitizers.sh`): `Mutex` in this module is the pthread
    /// stand-in, which ThreadSanitizer can see; see `PthreadMutex`.
    typealias Mutex<Value: ~Copyable> = PthreadMutex<Value>
#endif
