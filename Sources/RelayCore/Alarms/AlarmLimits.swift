/// Bounds on what an alarm may carry, so that hostile input cannot grow the store or the event
/// stream without limit. AlarmKit documents none of these; they are the relay's own.
package enum AlarmLimits {
    /// Longest `deviceId` or `bundleId`, in UTF-8 bytes.
    package static let maximumIdentifierBytes = 255
    /// Longest IANA time zone identifier accepted, in UTF-8 bytes.
    package static let maximumTimeZoneBytes = 64
    /// Longest `tintColor` or `sound`, in UTF-8 bytes.
    package static let maximumStyleBytes = 256
    /// Largest encoded size of `presentation`, and separately of `metadata`, in bytes (about the
    /// 4 KB ActivityKit allows for an activity's attributes and content state).
    package static let maximumPayloadBytes = 4096
    /// Deepest nesting accepted inside `presentation` or `metadata`.
    package static let maximumPayloadDepth = 16
    /// Longest countdown (preAlert or postAlert), in seconds: 366 days.
    package static let maximumDuration: Double = 366 * 86_400
    /// Latest fixed alert date: 9999-12-31T23:59:59Z.
    package static let latestDate: UnixSeconds = 253_402_300_799
}
