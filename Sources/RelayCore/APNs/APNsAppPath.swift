/// The `<bundleId>` segment of broadcast and channel-management paths
/// (`/4/broadcasts/apps/<bundleId>`, `/1/apps/<bundleId>/channels`).
enum APNsAppPath {
    /// The bundle ID between `prefix` and `suffix`, nil when the path does not have that form.
    static func segment(of path: String, prefix: String, suffix: String) -> String? {
        guard path.hasPrefix(prefix), path.hasSuffix(suffix),
            path.utf8.count > prefix.utf8.count + suffix.utf8.count
        else { return nil }
        let middle = path.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        guard !middle.contains(UInt8(ascii: "/")) else { return nil }
        return String(decoding: middle, as: UTF8.self)
    }

    /// Checks a bundle ID taken from a path: not a bundle ID is `404 BadPath`; one carrying a
    /// push-type suffix is `400 TopicDisallowed` (Apple: "Ensure that no push type suffix is added").
    static func checkBundleID(_ bundleID: String, path: String) -> Result<String, APNsError> {
        guard APNsTopic.isValidBundleID(bundleID) else {
            return .failure(APNsError(.badPath, "\(APNsASCII.quoted(path)) does not name a valid bundle ID"))
        }
        if let suffix = APNsTopic(rawValue: bundleID).pushTypeSuffix {
            return .failure(
                APNsError(
                    .topicDisallowed,
                    "\(APNsASCII.quoted(bundleID)) carries the suffix '\(suffix)'; broadcast and channel paths take "
                        + "the bare bundle ID"))
        }
        return .success(bundleID)
    }
}
