import RelayCore
import RelayJSON
import RelayNet
import RelayRedis
import RelayStore

// MARK: - The push log across the fleet

extension ClusterStore {
    /// One page of the fleet's push log: the records, newest first, and where the next page
    /// starts (nil once the log's start was reached).
    struct PushPage: Sendable {
        var items: [JSONValue] = []
        var nextBefore: Int64?
    }

    /// Feed entries read at a time.
    static let pushScanBatch = 256
    /// Most feed entries one request looks at before answering with what it found; `nextBefore`
    /// then says where it stopped, so the next page goes on from there.
    static let maxPushScan = 20_000

    /// The push records that match `filter` (and that `visibility` lets a device key see), newest
    /// first, at most `limit`, below feed entry `before`. Every push's record is the subject of
    /// its `push.received` event, so the fleet feed is the fleet's push log; a record's place in
    /// it is its entry number, which `before` and `nextBefore` name.
    func fleetPushes(
        filter: PushFilter, before: Int64?, limit: Int, visibility: PushLogVisibility?, on loop: EventLoop,
        completion: @escaping @Sendable (Result<PushPage, StoreError>) -> Void
    ) {
        scanPushes(
            below: before.map { UInt64(max(0, $0)) }, page: PushPage(), scanned: 0, filter: filter, limit: limit,
            visibility: visibility, on: client(on: loop), completion: completion)
    }

    private func scanPushes(
        below upper: UInt64?, page: PushPage, scanned: Int, filter: PushFilter, limit: Int,
        visibility: PushLogVisibility?, on client: RedisClusterClient,
        completion: @escaping @Sendable (Result<PushPage, StoreError>) -> Void
    ) {
        if upper == 0 { return completion(.success(page)) }
        let end = upper.map { "0-\($0 - 1)" } ?? "+"
        let range = RedisCommand(
            ["XREVRANGE", ClusterKeys.feed, end, "-", "COUNT", String(Self.pushScanBatch)], idempotent: true)
        entries(range, maxEntries: Self.pushScanBatch, on: client) { [self] read in
            let entries: [StreamEntry]
            switch read {
            case .failure(let error): return completion(.failure(error))
            case .success(let found): entries = found
            }
            var page = page
            for entry in entries {
                guard entry.value(of: "t") == Array(RelayEventType.pushReceived.rawValue.utf8),
                    let data = entry.value(of: "d"), let record = (try? JSONValue(parsing: data))?["push"],
                    Self.matches(record, filter)
                else { continue }
                if let visibility,
                    !visibility.admits(token: record["token"]?.stringValue, channelId: record["channelId"]?.stringValue)
                {
                    continue
                }
                page.items.append(record)
                if page.items.count == limit {
                    page.nextBefore = Int64(entry.id.sequence)
                    return completion(.success(page))
                }
            }
            let seen = scanned + entries.count
            guard entries.count == Self.pushScanBatch, let last = entries.last else {
                return completion(.success(page))
            }
            guard seen < Self.maxPushScan else {
                page.nextBefore = Int64(last.id.sequence)
                return completion(.success(page))
            }
            scanPushes(
                below: last.id.sequence, page: page, scanned: seen, filter: filter, limit: limit,
                visibility: visibility, on: client, completion: completion)
        }
    }
}
