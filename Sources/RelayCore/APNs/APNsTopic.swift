/// An `apns-topic` value, and the bundle-ID rules shared by device pushes, broadcasts and
/// channel management.
///
/// A Live Activity topic is `<bundleID>.push-type.liveactivity` (apns-facts §1). Other Apple
/// suffixes (`.voip`, `.complication`, `.pushkit.fileprovider`, `.push-type.<type>`) name other
/// push types and are refused by this relay.
public struct APNsTopic: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The topic as sent.
    public let rawValue: String

    /// Wraps a topic without checking it; `parse(_:)` applies the rules.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The suffix Apple requires on Live Activity topics.
    public static let liveActivitySuffix = ".push-type.liveactivity"

    /// Longest topic or bundle ID the relay reads; longer ones are `BadTopic`.
    package static let maxLength = 255

    /// The Live Activity topic for a bundle ID.
    package static func liveActivity(bundleID: String) -> APNsTopic {
        APNsTopic(rawValue: bundleID + liveActivitySuffix)
    }

    /// True when the topic ends in `.push-type.liveactivity`.
    package var hasLiveActivitySuffix: Bool { APNsASCII.hasSuffix(rawValue, Self.liveActivitySuffixBytes) }

    /// `liveActivitySuffix` as bytes.
    private static let liveActivitySuffixBytes = Array(liveActivitySuffix.utf8)

    /// The bundle ID in front of `.push-type.liveactivity`, or nil without that suffix.
    package var liveActivityBundleID: String? {
        guard hasLiveActivitySuffix else { return nil }
        return APNsASCII.slice(rawValue, 0..<rawValue.utf8.count - Self.liveActivitySuffixBytes.count)
    }

    /// The push-type suffix a topic carries (`.voip`, `.push-type.widgets`, ...), if any.
    package var pushTypeSuffix: String? {
        // A byte search for ASCII topics (all valid ones): `firstRange(of:)` goes through string
        // processing and cost more than every other topic check together on the push path.
        if APNsASCII.isASCII(rawValue) {
            let start = APNsASCII.withBytes(rawValue) { Self.pushTypeSuffixStart(inASCII: $0) }
            return start.map { APNsASCII.slice(rawValue, $0..<rawValue.utf8.count) }
        }
        if let range = rawValue.firstRange(of: ".push-type.") { return String(rawValue[range.lowerBound...]) }
        for (suffix, bytes) in Self.legacySuffixBytes where APNsASCII.hasSuffix(rawValue, bytes) { return suffix }
        return nil
    }

    /// What starts every `.push-type.<type>` suffix, as bytes.
    private static let pushTypeMarker = Array(".push-type.".utf8)

    /// Suffixes from before `.push-type.<type>` existed.
    static let legacySuffixes = [".voip", ".complication", ".pushkit.fileprovider"]

    /// `legacySuffixes` with their bytes.
    private static let legacySuffixBytes = legacySuffixes.map { ($0, Array($0.utf8)) }

    /// Checks the header value: empty is `MissingTopic` (the relay treats an empty header as an
    /// absent one); anything that is not a well-formed bundle ID, optionally followed by an Apple
    /// suffix, is `BadTopic`.
    package static func parse(_ value: String) -> Result<APNsTopic, APNsError> {
        guard !value.isEmpty else {
            return .failure(APNsError(.missingTopic, "apns-topic is empty; send <bundleID>\(liveActivitySuffix)"))
        }
        guard isValidBundleID(value) else {
            return .failure(
                APNsError(
                    .badTopic,
                    "apns-topic \(APNsASCII.quoted(value)) is not a bundle ID (letters, digits, '-' and '.', "
                        + "at most \(maxLength) bytes, no empty components)"))
        }
        return .success(APNsTopic(rawValue: value))
    }

    /// The bundle ID a Live Activity push goes to, or `TopicDisallowed` when the topic lacks the
    /// `.push-type.liveactivity` suffix or carries another push type's suffix.
    package func requireLiveActivityBundleID() -> Result<String, APNsError> {
        // One pass over the bytes for the accepted case (every check below works on ASCII, and a
        // valid bundle ID is ASCII); refusals take the slower path that names the problem.
        let bundleLength: Int? = APNsASCII.withBytes(rawValue) { bytes in
            let suffix = Self.liveActivitySuffixBytes
            guard bytes.count > suffix.count else { return nil }
            let end = bytes.count - suffix.count
            for offset in 0..<suffix.count where bytes[end + offset] != suffix[offset] { return nil }
            let bundle = UnsafeBufferPointer(rebasing: bytes[0..<end])
            guard Self.isValidBundleID(bytes: bundle), Self.pushTypeSuffixStart(inASCII: bundle) == nil else {
                return nil
            }
            return end
        }
        if let bundleLength { return .success(APNsASCII.slice(rawValue, 0..<bundleLength)) }
        if let suffix = pushTypeSuffix {
            return .failure(
                APNsError(
                    .topicDisallowed,
                    "apns-topic \(APNsASCII.quoted(rawValue)) has suffix '\(suffix)'; Live Activity pushes "
                        + "go to <bundleID>\(Self.liveActivitySuffix)"))
        }
        return .failure(APNsError(.topicDisallowed, APNsHint.topicWithoutLiveActivitySuffix(rawValue).message))
    }

    /// Apple's bundle-ID alphabet: ASCII letters, digits, `-` and `.`; no empty components;
    /// 1 to `maxLength` bytes.
    package static func isValidBundleID(_ text: String) -> Bool {
        APNsASCII.withBytes(text) { isValidBundleID(bytes: $0) }
    }

    /// `isValidBundleID` on bytes: each byte's class ORed together, and a dot next to a dot
    /// (an empty component) caught in the same pass, with no branch per byte.
    static func isValidBundleID(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last, bytes.count <= maxLength else { return false }
        guard first != UInt8(ascii: "."), last != UInt8(ascii: ".") else { return false }
        return bundleIDClasses.withUnsafeBufferPointer { classes in
            var seen: UInt8 = 0
            var previous: UInt8 = 0
            for byte in bytes {
                let kind = classes[Int(byte)]
                // `dot` is the bit below `invalid`, so a dot after a dot shifts into `invalid`.
                seen |= kind | (kind & previous) << 1
                previous = kind
            }
            return seen & BundleIDClass.invalid == 0
        }
    }

    /// The bits of `bundleIDClasses`: a letter, digit or `-` has none. `invalid` must stay the bit
    /// just above `dot` (see `isValidBundleID(bytes:)`).
    private enum BundleIDClass {
        static let dot: UInt8 = 1
        static let invalid: UInt8 = 2
    }

    /// Every byte's `BundleIDClass`.
    private static let bundleIDClasses: [UInt8] = (0...255).map { (value: Int) -> UInt8 in
        let byte = UInt8(value)
        if byte == UInt8(ascii: ".") { return BundleIDClass.dot }
        return APNsASCII.isAlphanumeric(byte) || byte == UInt8(ascii: "-") ? 0 : BundleIDClass.invalid
    }

    /// Where the push-type suffix of ASCII `bytes` starts (the first `.push-type.`, else a legacy
    /// suffix at the end), or nil: `pushTypeSuffix` on bytes.
    private static func pushTypeSuffixStart(inASCII bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        func matches(_ needle: [UInt8], at start: Int) -> Bool {
            guard start >= 0, start + needle.count <= bytes.count else { return false }
            for offset in 0..<needle.count where bytes[start + offset] != needle[offset] { return false }
            return true
        }
        var start = 0
        while start + pushTypeMarker.count <= bytes.count {
            if bytes[start] == UInt8(ascii: "."), matches(pushTypeMarker, at: start) { return start }
            start += 1
        }
        for (_, suffix) in legacySuffixBytes where matches(suffix, at: bytes.count - suffix.count) {
            return bytes.count - suffix.count
        }
        return nil
    }
}
