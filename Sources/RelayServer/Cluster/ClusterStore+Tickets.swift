import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

// MARK: - Stream tickets, redeemable on any node

extension ClusterStore {
    /// Keeps a stream ticket's grant under `key` (the digest of its text) until it expires:
    /// `tkt:{<key>}`, set only if new, with Redis's own expiry.
    func keepTicket(
        _ key: String, grant: StreamTickets.Grant, now: Double, on loop: EventLoop,
        completion: @escaping @Sendable (StoreError?) -> Void
    ) {
        let milliseconds = max(1, Int((grant.expiresAt - now) * 1000))
        let text = String(decoding: Self.ticketJSON(grant).serialized(), as: UTF8.self)
        client(on: loop).send(
            RedisCommand(["SET", ClusterKeys.ticket(key), text, "PX", String(milliseconds), "NX"], idempotent: true)
        ) { result in
            switch result {
            case .failure(let error): completion(Self.storeError(error))
            case .success(let reply):
                completion(
                    reply.string == "OK"
                        ? nil : StoreError(operation: "ticket", code: 0, message: "a ticket with that digest exists"))
            }
        }
    }

    /// Takes the grant kept under `key` (a ticket is single-use, `GETDEL`); nil when it is
    /// unknown, used, expired at real time `now`, or unreadable.
    func takeTicket(
        _ key: String, now: Double, on loop: EventLoop,
        completion: @escaping @Sendable (Result<StreamTickets.Grant?, StoreError>) -> Void
    ) {
        client(on: loop).send(RedisCommand(["GETDEL", ClusterKeys.ticket(key)])) { result in
            switch result {
            case .failure(let error): completion(.failure(Self.storeError(error)))
            case .success(.bulkString(let bytes)):
                let grant = (try? JSONValue(parsing: bytes)).flatMap(Self.grant(from:))
                completion(.success(grant.flatMap { $0.expiresAt > now ? $0 : nil }))
            case .success: completion(.success(nil))
            }
        }
    }

    /// `{"deviceId"?, "filter": {...}, "expiresAt"}`: no `deviceId` for the admin.
    static func ticketJSON(_ grant: StreamTickets.Grant) -> JSONValue {
        let filter = grant.filter
        return [
            "deviceId": .optional(grant.principal.deviceId.map(JSONValue.string)),
            "filter": [
                "deviceId": .optional(filter.deviceId.map(JSONValue.string)),
                "bundleId": .optional(filter.bundleId.map(JSONValue.string)),
                "activityId": .optional(filter.activityId.map(JSONValue.string)),
                "alarmId": .optional(filter.alarmId.map(JSONValue.string)),
                "types": .optional(
                    filter.types.map { JSONValue.array($0.map(\.rawValue).sorted().map(JSONValue.string)) }),
            ],
            "expiresAt": .number(grant.expiresAt),
        ]
    }

    /// The grant `ticketJSON` wrote.
    static func grant(from json: JSONValue) -> StreamTickets.Grant? {
        guard let expiresAt = json["expiresAt"]?.doubleValue, let fields = json["filter"] else { return nil }
        var filter = EventFilter(
            deviceId: fields["deviceId"]?.stringValue, bundleId: fields["bundleId"]?.stringValue,
            activityId: fields["activityId"]?.stringValue, alarmId: fields["alarmId"]?.stringValue)
        if let names = fields["types"]?.arrayValue {
            guard case .success(let types) = StreamQuery.parseTypes(names.compactMap(\.stringValue)) else { return nil }
            filter.types = types
        }
        let principal = json["deviceId"]?.stringValue.map(AppPrincipal.device) ?? .admin
        return StreamTickets.Grant(principal: principal, filter: filter, expiresAt: expiresAt)
    }
}
