package import RelayJSON

/// What a pull renderer (a home-screen widget) shows of one device from now to a horizon: the
/// entries, each from its date until the next one, and when to ask again. Made by
/// `DeviceEmulator.widgetTimeline(deviceId:family:until:at:)`.
package struct WidgetTimeline: Sendable, Hashable {
    /// The device it is for.
    package var deviceId: String
    package var family: WidgetFamily
    /// The horizon: no entry lies after it.
    package var until: UnixSeconds
    /// In date order; the first is at the time it was made.
    package var entries: [Entry]
    package var policy: ReloadPolicy

    /// What to show from `date` until the next entry's date.
    package struct Entry: Sendable, Hashable {
        package var date: UnixSeconds
        /// The highest relevance among the device's items at `date` (0 with none): a Smart Stack
        /// rotates to the widget at its most relevant entry.
        package var relevance: Double
        /// The most relevant items first, as many as the family carries.
        package var items: [Item]
    }

    /// One activity or alarm as an entry shows it.
    package struct Item: Sendable, Hashable {
        package enum Kind: String, Sendable, Hashable {
            case activity
            case alarm
        }

        package var kind: Kind
        package var id: String
        /// `activityState` for an activity, `AlarmState` for an alarm.
        package var state: String
        package var relevance: Double
        /// Seconds left while it counts down: until an alarm's countdown fires, or until an
        /// activity's system end in its final `WidgetTimeline.lifetimeCountdown` seconds.
        package var remaining: Double?
        /// The subject's members a medium or large widget shows (nil for small ones).
        package var details: JSONObject?

        /// The deep link that opens the subject: `activityrelay://activity/{id}` or
        /// `activityrelay://alarm/{id}`.
        package var url: String { "activityrelay://\(kind.rawValue)/\(id)" }
    }

    /// When the renderer should ask for a new timeline, as WidgetKit's `TimelineReloadPolicy`.
    package enum ReloadPolicy: Sendable, Hashable {
        /// After the last entry's date: it is the last known change.
        case atEnd
        /// At this date: the next known change lies beyond the horizon.
        case after(UnixSeconds)
        /// Only when told (`timeline.reload`): nothing is scheduled.
        case never
    }

    /// How long before an activity's system end its items count down, one entry a minute.
    package static let lifetimeCountdown: Double = 3600
    /// The default horizon after now (`until` absent).
    package static let defaultHorizon: Double = 8 * 3600
    /// The furthest horizon after now that may be asked for: past it, minute entries alone could
    /// number thousands.
    package static let maxHorizon: Double = 24 * 3600
}

// MARK: - JSON

extension WidgetTimeline {
    /// `{"deviceId", "family", "until", "entries": [{"date", "relevance", "items"}], "policy"}`.
    package var json: JSONValue {
        [
            "deviceId": .string(deviceId), "family": .string(family.rawValue), "until": .number(until),
            "entries": .array(entries.map(\.json)), "policy": policy.json,
        ]
    }
}

extension WidgetTimeline.Entry {
    /// `{"date", "relevance", "items": [...]}`.
    package var json: JSONValue {
        ["date": .number(date), "relevance": .number(relevance), "items": .array(items.map(\.json))]
    }
}

extension WidgetTimeline.Item {
    /// `{"kind", "id", "url", "state", "relevance", "remaining"?}` and the details, if any.
    package var json: JSONValue {
        var members = details ?? [:]
        members["kind"] = .string(kind.rawValue)
        members["id"] = .string(id)
        members["url"] = .string(url)
        members["state"] = .string(state)
        members["relevance"] = .number(relevance)
        if let remaining { members["remaining"] = .number(remaining) }
        return .object(members)
    }
}

extension WidgetTimeline.ReloadPolicy {
    /// `{"atEnd": true}`, `{"after": date}` or `{"never": true}`.
    package var json: JSONValue {
        switch self {
        case .atEnd: ["atEnd": true]
        case .after(let date): ["after": .number(date)]
        case .never: ["never": true]
        }
    }
}
