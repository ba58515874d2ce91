public import RelayJSON

// MARK: - Devices, app settings, push-to-start tokens

extension DeviceEmulator {
    /// Creates a device whose API key hashes to `keyHash`, with an optional name and model
    /// (checked by the caller with `DeviceLabel`).
    public mutating func createDevice(
        keyHash: String, name: String? = nil, model: String? = nil, at time: UnixSeconds
    ) -> EmulatedDevice {
        let now = arrive(at: time)
        let device = EmulatedDevice(id: ids.uuid(), createdAt: now, keyHash: keyHash, name: name, model: model)
        save(device)
        return device
    }

    /// The device `id`, or 404.
    package func device(_ id: String) throws(EmulatorError) -> EmulatedDevice {
        guard let device = devices[id] else { throw .notFound("device", id) }
        return device
    }

    /// Changes the settings of `bundleId` on `deviceId` with the members in `body`.
    /// Turning frequent pushes on or off resizes the update budget of the app's running activities.
    public mutating func updateAppSettings(
        deviceId: String, bundleId: String, body: JSONValue, at time: UnixSeconds
    ) throws(EmulatorError) -> AppSettings {
        try BundleID.validate(bundleId)
        var device = try device(deviceId)
        let now = arrive(at: time)
        var settings = device.settings(bundleId)
        do {
            try settings.merge(body)
        } catch {
            throw .invalid(error)
        }
        device.apps[bundleId] = settings
        save(device)
        for var activity in activities.values
        where activity.deviceId == deviceId && activity.bundleId == bundleId && !activity.state.isOver {
            let held = activity.pendingUpdate
            activity.setFrequentPushesEnabled(settings.frequentPushesEnabled, rules: rules, at: now)
            save(activity)
            // A held update released sooner or later moves the activity's future.
            if activity.pendingUpdate != held { noteFutureChanged(of: deviceId) }
        }
        return settings
    }

    /// The push-to-start token of (`bundleId`, `attributesType`) on `deviceId`, issuing one on the
    /// first request (as `Activity<T>.pushToStartTokenUpdates` yields one per attributes type).
    public mutating func pushToStartToken(
        deviceId: String, bundleId: String, attributesType: String, at time: UnixSeconds
    ) throws(EmulatorError) -> PushToStartToken {
        try BundleID.validate(bundleId)
        guard !attributesType.isEmpty, attributesType.utf8.count <= 255 else {
            throw .invalid("attributesType must be a non-empty string of at most 255 bytes")
        }
        var device = try device(deviceId)
        let now = arrive(at: time)
        if let existing = device.pushToStartTokens.first(where: {
            $0.bundleId == bundleId && $0.attributesType == attributesType
        }) {
            return existing
        }
        let token = PushToStartToken(
            token: ids.hexToken(byteCount: 40), deviceId: deviceId, bundleId: bundleId,
            attributesType: attributesType, issuedAt: now)
        device.pushToStartTokens.append(token)
        tokens[TokenKey(token.token)] = TokenEntry(
            .pushToStart(deviceId: deviceId, bundleId: bundleId, attributesType: attributesType), rules: rules, at: now)
        save(device)
        return token
    }
}

/// Bundle identifier checks shared by the app API and the provider API.
package enum BundleID {
    /// Throws 400 unless `bundleId` looks like a bundle ID: 1–155 characters of letters, digits, `-` and `.`.
    package static func validate(_ bundleId: String) throws(EmulatorError) {
        guard isValid(bundleId) else {
            throw .invalid("bundle ID '\(bundleId.prefix(160))' must be 1-155 characters of A-Z, a-z, 0-9, '-' and '.'")
        }
    }

    /// Whether `bundleId` looks like a bundle ID.
    package static func isValid(_ bundleId: String) -> Bool {
        let bytes = bundleId.utf8
        guard !bytes.isEmpty, bytes.count <= 155 else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 45
                || byte == 46
        }
    }
}
