/// A failed system call: the call's name and its errno.
package struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call that failed, e.g. `"bind"`.
    package var call: String
    /// The errno it left.
    package var errno: Int32

    package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    package var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

#if canImport(Glibc)
    import Glibc
#endif
