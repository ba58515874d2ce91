package import RelayJSON

/// New content for a Live Activity, from the app (`Activity.update`) or an `update` push.
package struct ActivityUpdate: Sendable, Hashable {
    /// The new content state (the app's `ContentState` as JSON).
    package var contentState: JSONValue {
        didSet {
            knownContentStateBytes = nil
            knownShape = nil
        }
    }
    /// `contentState`'s compact JSON size when it was measured before (a push's, at validation);
    /// nil when it must be measured. Cleared whenever `contentState` changes.
    private var knownContentStateBytes: Int?
    /// `contentState`'s `ContentStateShape.fingerprint` when it was taken before; nil when it
    /// must be taken. Cleared whenever `contentState` changes.
    private var knownShape: UInt64?
    /// The new stale date; nil means the new content never goes stale. It replaces the old one.
    package var staleDate: UnixSeconds?
    /// The new relevance score; nil keeps the current one.
    package var relevanceScore: Double?
    /// The alert to show with the update (title, body, sound), passed through to events.
    package var alert: JSONValue?
    /// When the data was generated; nil means "now", the time the update arrives.
    package var timestamp: UnixSeconds?

    /// An update with the given parts.
    package init(
        contentState: JSONValue, staleDate: UnixSeconds? = nil, relevanceScore: Double? = nil, alert: JSONValue? = nil,
        timestamp: UnixSeconds? = nil
    ) {
        self.contentState = contentState
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.timestamp = timestamp
    }

    /// An update whose content state's compact JSON size and shape fingerprint are already known
    /// to be `contentStateBytes` and `contentStateShape`.
    init(
        contentState: JSONValue, contentStateBytes: Int, contentStateShape: UInt64, staleDate: UnixSeconds?,
        relevanceScore: Double?, alert: JSONValue?, timestamp: UnixSeconds?
    ) {
        self.init(
            contentState: contentState, staleDate: staleDate, relevanceScore: relevanceScore, alert: alert,
            timestamp: timestamp)
        knownContentStateBytes = contentStateBytes
        knownShape = contentStateShape
    }

    /// `contentState`'s compact JSON size (the size rule's part an update brings): the known one,
    /// else measured now.
    var contentStateBytes: Int { knownContentStateBytes ?? ActivityDataSize.bytes(of: contentState) }

    /// `contentState`'s shape fingerprint: the known one, else taken now.
    var contentStateShape: UInt64 { knownShape ?? ContentStateShape.fingerprint(of: contentState) }

    /// Updates are equal when what they show is: the remembered size and shape are not part of the value.
    package static func == (left: ActivityUpdate, right: ActivityUpdate) -> Bool {
        left.contentState == right.contentState && left.staleDate == right.staleDate
            && left.relevanceScore == right.relevanceScore && left.alert == right.alert
            && left.timestamp == right.timestamp
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(contentState)
        hasher.combine(staleDate)
        hasher.combine(relevanceScore)
        hasher.combine(alert)
        hasher.combine(timestamp)
    }

    /// The first number that is not finite (NaN or infinite), named as on the app API, or nil.
    var nonFiniteField: String? {
        if let staleDate, !staleDate.isFinite { return "staleDate" }
        if let relevanceScore, !relevanceScore.isFinite { return "relevanceScore" }
        if let timestamp, !timestamp.isFinite { return "timestamp" }
        return nil
    }
}

/// Where an update comes from, which decides whether it draws on the update budget.
package enum ActivityUpdateSource: Sendable, Hashable {
    /// The app itself (`Activity.update`): applied at once, never counted against the budget.
    case app
    /// An ActivityKit push with its `apns-priority`. 10 (or more) draws on the budget; anything lower
    /// (5, and 1, which broadcast pushes may use) never draws and is applied after `lowPriorityDelay`.
    case push(priority: Int)

    /// True for pushes that draw on the update budget.
    package var drawsOnBudget: Bool {
        if case .push(let priority) = self { return priority >= 10 }
        return false
    }
}

// MARK: - JSON

extension ActivityUpdate {
    /// The app API shape `{contentState, staleDate?, relevanceScore?, alert?, timestamp?}`; nil members are left out.
    package var json: JSONValue {
        var members: JSONObject = ["contentState": contentState]
        if let staleDate { members["staleDate"] = .number(staleDate) }
        if let relevanceScore { members["relevanceScore"] = .number(relevanceScore) }
        if let alert { members["alert"] = alert }
        if let timestamp { members["timestamp"] = .number(timestamp) }
        return .object(members)
    }

    /// Reads the app API body of `POST /v1/activities/{id}/update`. `contentState` must be an object,
    /// `alert` an object when present, numbers finite; unknown keys are errors naming the key.
    package init(json: JSONValue, path: String = "") throws(JSONFieldError) {
        let fields = try JSONFields(json, path: path)
        try fields.rejectUnknown(["contentState", "staleDate", "relevanceScore", "alert", "timestamp"])
        try self.init(fields: fields)
    }

    /// Reads the members shared with the stored pending update (unknown keys are the caller's business).
    init(fields: JSONFields) throws(JSONFieldError) {
        let content = try fields.require("contentState")
        guard case .object = content else { throw fields.error("contentState", "must be an object") }
        let alert = fields.value("alert")
        if let alert, alert.objectValue == nil { throw fields.error("alert", "must be an object") }
        self.init(
            contentState: content, staleDate: try fields.number("staleDate"),
            relevanceScore: try fields.number("relevanceScore"), alert: alert, timestamp: try fields.number("timestamp")
        )
    }
}
