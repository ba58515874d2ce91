import Foundation
import RelayStore

/// A fresh directory under the system temp dir, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "relay-store-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Small builders so tests read as the data they write.
enum Sample {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func event(
        _ seq: Int64, type: String = "activity.updated", at: Double = 1_000, device: String? = "d1",
        bundle: String? = "app.one", activity: String? = nil, alarm: String? = nil
    ) -> StoredEvent {
        StoredEvent(
            seq: seq, type: type, at: at, deviceId: device, bundleId: bundle, activityId: activity, alarmId: alarm,
            data: bytes(#"{"seq":\#(seq)}"#))
    }

    static func push(
        _ apnsId: String, token: String? = "tok1", bundle: String? = "app.one", channel: String? = nil,
        at: Double = 1_000
    ) -> PushLogEntry {
        PushLogEntry(
            apnsId: apnsId, uniqueId: "u-" + apnsId, token: token, channelId: channel, bundleId: bundle,
            receivedAt: at, record: bytes(#"{"apnsId":"\#(apnsId)"}"#))
    }

    /// A new version of activity `id` (on device `d1` of `app.one`) and the `activity.updated`
    /// event that carries its body, as the service builds them: the document first, then its event.
    static func activityUpdate(
        _ seq: Int64, _ id: String, body: [UInt8], state: String = "active", at time: Double = 1_000
    ) -> StoreBatch {
        let data = bytes(#"{"activity":"#) + body + bytes(#","at":\#(time),"seq":\#(seq),"type":"activity.updated"}"#)
        return StoreBatch([
            .upsertDocument(
                StoredDocument(kind: "activity", id: id, deviceId: "d1", bundleId: "app.one", state: state, body: body)),
            .appendEvent(
                StoredEvent(
                    seq: seq, type: "activity.updated", at: time, deviceId: "d1", bundleId: "app.one", activityId: id,
                    data: data)),
        ])
    }

    static func document(_ kind: String, _ id: String, device: String? = nil, bundle: String? = nil) -> StoredDocument {
        StoredDocument(
            kind: kind, id: id, deviceId: device, bundleId: bundle, state: "active", body: bytes(#"{"id":"\#(id)"}"#))
    }
}
