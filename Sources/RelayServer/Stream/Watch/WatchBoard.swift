import RelayCore
package import RelayHTTP
package import RelayJSON

/// What the terminal renderer knows: the latest state of every activity still on screen and every
/// alarm, built from stream events alone (a `snapshot` replaces it all). Pure: times are arguments.
package struct WatchBoard: Sendable {
    /// Activities by id, in the app API's shape.
    package private(set) var activities: JSONObject = [:]
    /// Alarms by id, in the app API's shape.
    package private(set) var alarms: JSONObject = [:]
    /// The relay's clock as estimated from what the relay said.
    package private(set) var clock: WatchClock
    /// Events applied so far.
    package private(set) var eventCount = 0
    /// Whether a snapshot has been applied.
    package private(set) var hasSnapshot = false
    /// Device labels (`name`, with the model in parentheses) by device id, from `GET /v1/devices`.
    package private(set) var deviceLabels: [String: String] = [:]
    /// Devices of activities on the board that `setDevices` has not yet seen: time to read them.
    package private(set) var unseenDevices: Set<String> = []
    /// Every device id `setDevices` was given or asked about (named or not).
    private var seenDevices: Set<String> = []

    /// An empty board whose clock starts as `clock`.
    package init(clock: WatchClock) { self.clock = clock }

    /// Applies one stream event received at local time `local`. Events that are not JSON objects
    /// are counted and otherwise ignored.
    package mutating func apply(_ event: SSEEvent, local: Double) {
        eventCount += 1
        guard let data = try? JSONValue(parsing: event.data), data.objectValue != nil else { return }
        let type = event.event ?? data["type"]?.stringValue ?? ""
        switch type {
        case RelayEventType.snapshot.rawValue:
            activities = Self.byID(data["activities"])
            alarms = Self.byID(data["alarms"])
            if let relayClock = data["clock"] { clock.observe(relayClock, at: local, force: true) }
            hasSnapshot = true
        case RelayEventType.clock.rawValue:
            if let relayClock = data["clock"] { clock.observe(relayClock, at: local, force: false) }
        case RelayEventType.alarmRemoved.rawValue:
            if let id = data["alarm"]?["id"]?.stringValue { alarms[id] = nil }
        case RelayEventType.alarmUpdated.rawValue:
            if let alarm = data["alarm"], let id = alarm["id"]?.stringValue { alarms[id] = alarm }
        default:
            guard type.hasPrefix("activity."), let activity = data["activity"], let id = activity["id"]?.stringValue
            else {
                return
            }
            let gone =
                type == RelayEventType.activityDismissed.rawValue || activity["state"]?.stringValue == "dismissed"
            activities[id] = gone ? nil : activity
        }
        noteDevices()
    }

    /// Takes the labels of `devices` (a `GET /v1/devices` answer's items); a device without a
    /// name or model has no label. Every id asked about counts as seen.
    package mutating func setDevices(_ devices: [JSONValue]) {
        for device in devices {
            guard let id = device["deviceId"]?.stringValue ?? device["id"]?.stringValue else { continue }
            seenDevices.insert(id)
            let name = device["name"]?.stringValue
            let model = device["model"]?.stringValue
            deviceLabels[id] =
                switch (name, model) {
                case (let name?, let model?): "\(name) (\(model))"
                case (let name?, nil): name
                case (nil, let model?): model
                case (nil, nil): nil
                }
        }
        seenDevices.formUnion(unseenDevices)
        unseenDevices = []
    }

    /// Collects the devices of the board's activities not yet looked up.
    private mutating func noteDevices() {
        for activity in activities.values {
            if let id = activity["deviceId"]?.stringValue, !seenDevices.contains(id) { unseenDevices.insert(id) }
        }
    }

    /// Sets the clock from a `GET /v1/clock` answer read at `local`.
    package mutating func setClock(_ relayClock: JSONValue, local: Double) {
        clock.observe(relayClock, at: local, force: true)
    }

    /// Activities oldest first (by `startedAt`, then id).
    package var orderedActivities: [JSONValue] {
        activities.values.sorted { left, right in
            let a = left["startedAt"]?.doubleValue ?? 0
            let b = right["startedAt"]?.doubleValue ?? 0
            return a != b ? a < b : (left["id"]?.stringValue ?? "") < (right["id"]?.stringValue ?? "")
        }
    }

    /// Alarms by id.
    package var orderedAlarms: [JSONValue] {
        alarms.values.sorted { ($0["id"]?.stringValue ?? "") < ($1["id"]?.stringValue ?? "") }
    }

    private static func byID(_ list: JSONValue?) -> JSONObject {
        var items: JSONObject = [:]
        for item in list?.arrayValue ?? [] {
            if let id = item["id"]?.stringValue { items[id] = item }
        }
        return items
    }
}
