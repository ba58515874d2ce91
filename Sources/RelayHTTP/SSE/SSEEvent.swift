/// One Server-Sent Event (HTML Living Standard, "Server-sent events").
///
/// When encoding, nil fields are left out. When parsing, `id` is the stream's last event ID at dispatch
/// (inherited from earlier events, nil when empty), `event` is nil for the default type `message`, and
/// `retry` is the reconnection time given in this event's block, if any.
public struct SSEEvent: Sendable, Equatable {
    /// The event ID; the client reconnects with it as `Last-Event-ID`.
    package var id: String?
    /// The event type; nil means `message`.
    package var event: String?
    /// The payload; may span several lines.
    public var data: String
    /// The reconnection time in milliseconds.
    package var retry: Int?

    /// An event with the given fields.
    package init(id: String? = nil, event: String? = nil, data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}
