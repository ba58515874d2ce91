/// A failed system call: the call's name and its errno.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call that failed, e.g. `"bind"`.
    public var call: String
    /// The errno it left.
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

#if canImport(Glibc)
    import Glibc
#endif
