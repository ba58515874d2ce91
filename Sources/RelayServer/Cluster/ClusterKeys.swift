/// The Redis keys of cluster mode (docs/CLUSTER.md, "Data layout"). Every key of one device
/// carries the hash tag `{dev:<id>}`, so the device is one slot and one script commits all of it.
enum ClusterKeys {
    /// The device's hash: `v` (version), `seq` (its next event's number), `doc:<kind>:<id>`
    /// (its documents: the device, its activities and alarms) and `burst:<token>` (burst limiters).
    static func device(_ id: String) -> String { "{dev:\(id)}" }
    /// The device's events, entry ids `0-<seq>`.
    static func events(_ id: String) -> String { "{dev:\(id)}:ev" }
    /// The device's push log, newest first.
    static func pushes(_ id: String) -> String { "{dev:\(id)}:log" }
    /// Token → device id; the token's own slot.
    static func token(_ token: String) -> String { "tok:{\(token)}" }
    /// Activity id → device id.
    static func activity(_ id: String) -> String { "act:{\(id)}" }
    /// Alarm id → device id.
    static func alarm(_ id: String) -> String { "alm:{\(id)}" }
    /// A device key's hash → the device id (for keys made on another node).
    static func deviceKey(_ hash: String) -> String { "dkey:{\(hash)}" }
    /// Every device id.
    static let devices = "{relay}:devices"
    /// Device id → the time of its next timed transition (virtual seconds).
    static let due = "{relay}:due"
    /// The virtual clock: `{"realAnchor", "virtualAnchor", "rate", "epoch"}`.
    static let clock = "{relay}:clock"
    /// Records of refused pushes that name no known device, newest first.
    static let orphanPushes = "{relay}:log"
    /// A stream ticket's grant, by the digest of the ticket (expires with it).
    static func ticket(_ digest: String) -> String { "tkt:{\(digest)}" }
    /// The fleet feed: every device's events and the clock's, entry ids `0-<n>`.
    static let feed = "{relay}:feed"
    /// The number of the feed's last entry.
    static let feedNumber = "{relay}:feedseq"
    /// Device id → the number (in the device's sequence) of its last event in the feed.
    static let fed = "{relay}:fed"

    /// The hash field of a document.
    static func documentField(kind: String, id: String) -> String { "doc:\(kind):\(id)" }
    /// The hash field of a token's burst limiter.
    static func burstField(_ token: String) -> String { "burst:\(token)" }
}
