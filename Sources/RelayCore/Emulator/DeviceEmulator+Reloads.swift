import RelayJSON

// MARK: - Timeline reloads (WidgetCenter's reloadTimelines)

extension DeviceEmulator {
    /// Marks `deviceId`'s timeline stale: a command (a push or an app call, never time passing)
    /// changed what it will show, or when. Called for every activity or alarm event a command
    /// records (not `activity.pushToken`) and for an update held for later, which moves a
    /// deadline without an event.
    mutating func noteFutureChanged(of deviceId: String) {
        if !changedFutures.contains(deviceId) { changedFutures.append(deviceId) }
    }

    /// Records one `timeline.reload` per device marked since the last call, stamped `now`:
    /// `{"deviceId", "timeline": {"deviceId", "path"}}`, the path being where the new timeline is.
    mutating func recordTimelineReloads() {
        guard !changedFutures.isEmpty else { return }
        let devices = changedFutures
        changedFutures.removeAll(keepingCapacity: true)
        for deviceId in devices {
            let subject: JSONValue = [
                "deviceId": .string(deviceId), "path": .string("/v1/devices/\(deviceId)/timeline"),
            ]
            emit(
                RelayEvent(
                    type: .timelineReload, at: now, deviceId: deviceId, bundleId: nil, subjectKey: "timeline",
                    source: .json(subject)))
        }
    }
}
