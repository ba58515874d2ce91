package import RelayJSON

// MARK: - Alarms (AlarmKit's AlarmManager)

extension DeviceEmulator {
    /// `AlarmManager.schedule(id:configuration:)` with the body of `POST /v1/alarms`.
    /// A person who has denied alarms makes it `403`; one who was never asked allows it now.
    package mutating func scheduleAlarm(body: JSONValue, at time: UnixSeconds) throws(EmulatorError) -> Alarm {
        guard case .object(var members) = body else { throw .invalid("body must be an object") }
        guard let deviceId = members.removeValue(forKey: "deviceId")?.stringValue else {
            throw .invalid("deviceId: is required (a string)")
        }
        guard let bundleId = members["bundleId"]?.stringValue else {
            throw .invalid("bundleId: is required (a string)")
        }
        try BundleID.validate(bundleId)
        var device = try device(deviceId)
        var settings = device.settings(bundleId)
        switch settings.alarmAuthorization {
        case .denied:
            throw .forbidden(
                "alarmsNotAuthorized", "alarm authorization for \(bundleId) on device \(deviceId) is denied")
        case .notDetermined:
            settings.alarmAuthorization = .authorized
            device.apps[bundleId] = settings
        case .authorized:
            break
        }
        let now = arrive(at: time)
        members["deviceId"] = .string(deviceId)
        var alarm: Alarm
        do {
            alarm = try Alarm.fromRequest(.object(members), defaultId: ids.uuid(), at: now)
        } catch {
            throw .from(error)
        }
        if let existing = alarms[alarm.id] {
            throw EmulatorError(
                status: 409, code: "alreadyExists", message: "alarm \(alarm.id) already exists",
                extra: ["state": .string(existing.state.rawValue)])
        }
        if devices[deviceId] != device { save(device) }
        let transitions = alarm.advance(to: now)
        save(alarm)
        emit(.alarmUpdated, alarm: alarm, at: now)
        for transition in transitions { emit(transition, alarm: alarm) }
        return alarm
    }

    /// The alarm operations of `POST /v1/alarms/{id}/{operation}`.
    package enum AlarmOperation: String, Sendable, CaseIterable {
        case pause, resume, countdown, stop, cancel
    }

    /// Runs `operation` on alarm `id`. Not allowed from the current state → `409` naming the state.
    package mutating func operateAlarm(
        id: String, _ operation: AlarmOperation, at time: UnixSeconds
    ) throws(EmulatorError) -> Alarm {
        guard alarms[id] != nil else { throw .notFound("alarm", id) }
        let now = arrive(at: time)
        guard var alarm = alarms[id] else { throw .notFound("alarm", id) }
        let transitions: [AlarmTransition]
        do {
            switch operation {
            case .pause: transitions = try alarm.pause(at: now)
            case .resume: transitions = try alarm.resume(at: now)
            case .countdown: transitions = try alarm.countdown(at: now)
            case .stop: transitions = try alarm.stop(at: now)
            case .cancel: transitions = try alarm.cancel(at: now)
            }
        } catch {
            throw .from(error)
        }
        save(alarm)
        for transition in transitions { emit(transition, alarm: alarm) }
        return alarm
    }

    /// The alarm `id`, or 404.
    package func alarm(_ id: String) throws(EmulatorError) -> Alarm {
        guard let alarm = alarms[id] else { throw .notFound("alarm", id) }
        return alarm
    }

    /// The alarms of `deviceId` (all alarms for nil), by next alert then id.
    package func listAlarms(deviceId: String?) -> [Alarm] {
        alarms.values.filter { deviceId == nil || $0.deviceId == deviceId }.sorted { left, right in
            switch (left.nextAlertAt, right.nextAlertAt) {
            case (let a?, let b?) where a != b: return a < b
            case (.some, nil): return true
            case (nil, .some): return false
            default: return left.id < right.id
            }
        }
    }
}
