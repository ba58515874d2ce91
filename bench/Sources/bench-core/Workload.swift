import RelayCore
import RelayJSON

/// SplitMix64: the workload's own random numbers, so every run pushes the same bytes at the same times.
struct SplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in [low, high).
    mutating func between(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }
}

/// How one activity spreads its pushes over the run. Every activity gets the same number of pushes.
enum Profile {
    /// Pushes spread evenly at random over the whole run; 70% priority 10.
    case steady
    /// Half the pushes in the first 30 minutes (80% priority 10, well over the hourly budget, so
    /// updates are deferred and coalesced), the rest spread over the remaining hours.
    case bursty
    /// Spread like `steady`, but the push at the middle of its sequence is an `end`, with a
    /// `dismissal-date` 10 minutes later (`dismissSoon`) or none (the default 4-hour window).
    /// Every push after it is answered `410 Unregistered`.
    case ender(dismissSoon: Bool)

    /// Profiles by activity index: 5 steady, 3 bursty, 2 enders in every 10.
    static func of(activity index: Int) -> Profile {
        switch index % 10 {
        case 0...4: return .steady
        case 5...7: return .bursty
        case 8: return .ender(dismissSoon: true)
        default: return .ender(dismissSoon: false)
        }
    }

    var priority10Share: Double {
        if case .bursty = self { return 0.8 }
        return 0.7
    }
}

/// The apps the activities belong to; each sends its own content-state shape.
enum App: Int, CaseIterable {
    case delivery, sports, rideshare

    var bundleId: String {
        switch self {
        case .delivery: return "com.example.delivery"
        case .sports: return "com.example.scores"
        case .rideshare: return "com.example.rides"
        }
    }

    var attributesType: String {
        switch self {
        case .delivery: return "DeliveryAttributes"
        case .sports: return "GameAttributes"
        case .rideshare: return "RideAttributes"
        }
    }

    /// The static attributes the app starts its activity with.
    func attributes(_ index: Int) -> JSONValue {
        switch self {
        case .delivery:
            return ["orderNumber": .string("A-\(100_000 + index)"), "restaurant": "Pizzeria Uno", "items": 3]
        case .sports:
            return ["homeTeam": "Lions", "awayTeam": "Bears", "league": "NFL", "venue": "Ford Field"]
        case .rideshare:
            return ["rideId": .string("R\(index)"), "pickup": "1 Infinite Loop", "dropoff": "SFO Terminal 2"]
        }
    }

    /// The content state of the `step`-th push (the shape stays the same, so no shape hints).
    func contentState(step: Int, at time: Double) -> JSONValue {
        switch self {
        case .delivery:
            let statuses = ["preparing", "pickedUp", "onTheWay", "nearby"]
            return [
                "status": .string(statuses[step % statuses.count]), "etaMinutes": .int(Int64(max(1, 40 - step % 40))),
                "driverName": "Sam", "stopsAway": .int(Int64(step % 5)),
            ]
        case .sports:
            return [
                "home": .int(Int64(step / 3)), "away": .int(Int64(step / 4)), "period": .int(Int64(1 + step / 25)),
                "clock": .string("\(14 - step % 15):\(10 + step % 50)"),
                "lastPlay": .string("Play \(step): pass complete for \(step % 17 + 3) yards"),
            ]
        case .rideshare:
            return [
                "phase": .string(step % 2 == 0 ? "enRoute" : "arriving"), "eta": .int(Int64(time) + 600),
                "progress": .double(Double(step % 100) / 100 + 0.005),
            ]
        }
    }
}

/// One push of the run, in time order.
struct ScheduledPush {
    /// Seconds after the run's start.
    var offset: Double
    /// The activity's index.
    var activity: Int32
    /// Its place among the activity's own pushes (0-based, in time order).
    var step: Int16
}

/// A push as it arrives at the provider API: pseudo-header path, header list and body bytes.
struct WirePush {
    var time: Double
    var path: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// The pushes of the run, in time order, and how to write each one.
struct Workload {
    let activities: Int
    let pushesPerActivity: Int
    let duration: Double
    let start: Double
    private(set) var schedule: [ScheduledPush] = []
    /// Per activity: its update token, filled in when it starts.
    var tokens: [String]
    private var rng = SplitMix(state: 0xB0B_CAFE)

    init(activities: Int, pushesPerActivity: Int, duration: Double, start: Double) {
        self.activities = activities
        self.pushesPerActivity = pushesPerActivity
        self.duration = duration
        self.start = start
        tokens = Array(repeating: "", count: activities)
        var times: [Double] = []
        schedule.reserveCapacity(activities * pushesPerActivity)
        for activity in 0..<activities {
            times.removeAll(keepingCapacity: true)
            switch Profile.of(activity: activity) {
            case .steady, .ender:
                for _ in 0..<pushesPerActivity { times.append(rng.between(1, duration)) }
            case .bursty:
                let early = pushesPerActivity / 2
                for _ in 0..<early { times.append(rng.between(1, 1800)) }
                for _ in early..<pushesPerActivity { times.append(rng.between(1800, duration)) }
            }
            times.sort()
            for (step, offset) in times.enumerated() {
                schedule.append(ScheduledPush(offset: offset, activity: Int32(activity), step: Int16(step)))
            }
        }
        schedule.sort { $0.offset < $1.offset || ($0.offset == $1.offset && $0.activity < $1.activity) }
    }

    static func app(of activity: Int) -> App { App(rawValue: activity % App.allCases.count) ?? .delivery }

    /// The body of `POST /v1/activities` for activity `index` on `deviceId`.
    static func startBody(activity index: Int, deviceId: String) -> JSONValue {
        let app = app(of: index)
        return [
            "deviceId": .string(deviceId), "bundleId": .string(app.bundleId),
            "attributesType": .string(app.attributesType),
            "attributes": app.attributes(index), "contentState": app.contentState(step: 0, at: 0), "pushType": "token",
        ]
    }

    /// A provider token as the header carries it (the bench does not check it; the server caches that).
    static let authorization =
        "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzUwMDAwMDAwfQ."
        + "MEUCIQDxkLeFb9b2P2s0Zp6Y8yq2vJ3u8T1w7rGm3cC0nN6qXwIgQm1x8Jt7v3b6a0yVZ2hXx5u4s1R9k8p7n6m5l4j3h2g"

    /// Writes push `scheduled` as it arrives on the wire. A few pushes are deliberately off: about
    /// 1% carry a timestamp two minutes old (ignored), 0.5% omit `apns-push-type` (a hint), 0.3%
    /// use another app's topic (`DeviceTokenNotForTopic`) and 0.2% an invalid priority (`BadPriority`).
    mutating func wire(_ scheduled: ScheduledPush) -> WirePush {
        let index = Int(scheduled.activity)
        let step = Int(scheduled.step)
        let profile = Profile.of(activity: index)
        let app = Self.app(of: index)
        // To the microsecond, as the relay's system clock reads time.
        let time = ((start + scheduled.offset) * 1_000_000).rounded() / 1_000_000
        let priority10 = rng.chance(profile.priority10Share)

        var aps: JSONObject = [
            "timestamp": .int(Int64(time) - (rng.chance(0.01) ? 120 : 0)),
            "content-state": app.contentState(step: step, at: time),
        ]
        if case .ender(let dismissSoon) = profile, step == pushesPerActivity / 2 {
            aps["event"] = "end"
            if dismissSoon { aps["dismissal-date"] = .int(Int64(time) + 600) }
        } else {
            aps["event"] = "update"
            aps["stale-date"] = .int(Int64(time + rng.between(180, 1200)))
            if step % 10 == 9 { aps["alert"] = ["title": "Update", "body": .string("Step \(step) of your activity")] }
        }
        if step % 7 == 0 { aps["relevance-score"] = .double(Double(step % 100) / 2) }
        let body: JSONValue = ["aps": .object(aps)]

        var topicApp = app
        if rng.chance(0.003) { topicApp = App(rawValue: (app.rawValue + 1) % App.allCases.count) ?? app }
        var headers: [(name: String, value: String)] = [("authorization", Self.authorization)]
        if !rng.chance(0.005) { headers.append(("apns-push-type", "liveactivity")) }
        headers.append(("apns-topic", topicApp.bundleId + APNsTopic.liveActivitySuffix))
        headers.append(("apns-priority", rng.chance(0.002) ? "7" : priority10 ? "10" : "5"))
        headers.append(("apns-expiration", String(Int64(time) + 3600)))
        headers.append(("apns-id", uuid()))
        return WirePush(
            time: time, path: LiveActivityPushRequest.pathPrefix + tokens[index], headers: headers,
            body: body.serialized())
    }

    /// A lowercase version-4 UUID from the workload's generator.
    private mutating func uuid() -> String {
        let high = rng.next()
        let low = rng.next()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { out.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            var value = Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)
            if nibble == 12 { value = 4 }
            if nibble == 16 { value = 8 | (value & 3) }
            out.append(digits[value])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
