/// Which node serves each hash slot: the masters as `CLUSTER SHARDS` (Redis 7) or `CLUSTER SLOTS`
/// report them. Pure: a reply in, a slot table out.
package struct ClusterTopology: Equatable, Sendable {
    /// One master and the slots it serves.
    package struct Shard: Equatable, Sendable {
        /// The master's address, `host:port`.
        package var master: String
        /// False when the cluster marks the master failed (its slots wait for a replica's promotion).
        package var masterOnline: Bool
        /// The replicas' addresses.
        package var replicas: [String]
        /// Inclusive slot ranges.
        package var slots: [ClosedRange<Int>]
    }

    /// The shards with at least one slot.
    package var shards: [Shard]

    /// The master address serving each slot, nil for an uncovered slot or a failed master.
    package func slotTable() -> [String?] {
        var table = [String?](repeating: nil, count: HashSlot.count)
        for shard in shards where shard.masterOnline {
            for range in shard.slots { for slot in range { table[slot] = shard.master } }
        }
        return table
    }

    /// Every address named, masters first.
    package var addresses: [String] { shards.map(\.master) + shards.flatMap(\.replicas) }

    /// Reads a `CLUSTER SHARDS` reply (RESP3 maps or RESP2 key-value arrays). `queried` stands in for
    /// a node whose endpoint is unknown (`?`); `tls` picks `tls-port` over `port`.
    package static func fromShards(_ reply: RESPValue, queried: String, tls: Bool) throws(RedisError) -> ClusterTopology
    {
        guard let entries = reply.elements else { throw .topology("CLUSTER SHARDS reply is not an array") }
        var shards: [Shard] = []
        for entry in entries {
            guard let slotBounds = entry["slots"]?.elements, slotBounds.count % 2 == 0,
                let nodes = entry["nodes"]?.elements
            else { throw .topology("CLUSTER SHARDS entry without slots and nodes") }
            var ranges: [ClosedRange<Int>] = []
            for index in stride(from: 0, to: slotBounds.count, by: 2) {
                guard let low = slotBounds[index].integer, let high = slotBounds[index + 1].integer,
                    0 <= low, low <= high, high < Int64(HashSlot.count)
                else { throw .topology("CLUSTER SHARDS slot range out of bounds") }
                ranges.append(Int(low)...Int(high))
            }
            var master: (String, Bool)?
            var replicas: [String] = []
            for node in nodes {
                let port = (tls ? node["tls-port"]?.integer : nil) ?? node["port"]?.integer
                var host = node["endpoint"]?.string ?? node["ip"]?.string ?? "?"
                if host == "?" || host.isEmpty { host = node["ip"]?.string ?? "?" }
                guard let port, (1...65_535).contains(port) else { continue }
                let address = host == "?" ? queried : Self.address(host: host, port: Int(port))
                if node["role"]?.string == "master" {
                    master = (address, node["health"]?.string ?? "online" == "online")
                } else {
                    replicas.append(address)
                }
            }
            guard let master, !ranges.isEmpty else { continue }
            shards.append(Shard(master: master.0, masterOnline: master.1, replicas: replicas, slots: ranges))
        }
        return ClusterTopology(shards: shards)
    }

    /// Reads a `CLUSTER SLOTS` reply: `[start, end, [host, port, id...], replicas...]` per range.
    package static func fromSlots(_ reply: RESPValue, queried: String) throws(RedisError) -> ClusterTopology {
        guard let entries = reply.elements else { throw .topology("CLUSTER SLOTS reply is not an array") }
        var byMaster: [String: Shard] = [:]
        var order: [String] = []
        for entry in entries {
            guard let fields = entry.elements, fields.count >= 3, let low = fields[0].integer,
                let high = fields[1].integer, 0 <= low, low <= high, high < Int64(HashSlot.count)
            else { throw .topology("CLUSTER SLOTS entry malformed") }
            let nodes = fields[2...].compactMap { node -> String? in
                guard let parts = node.elements, parts.count >= 2, let port = parts[1].integer,
                    (1...65_535).contains(port)
                else { return nil }
                let host = parts[0].string ?? "?"
                return host == "?" || host.isEmpty ? queried : address(host: host, port: Int(port))
            }
            guard let master = nodes.first else { continue }
            if byMaster[master] == nil {
                order.append(master)
                byMaster[master] = Shard(
                    master: master, masterOnline: true, replicas: Array(nodes.dropFirst()), slots: [])
            }
            byMaster[master]?.slots.append(Int(low)...Int(high))
        }
        return ClusterTopology(shards: order.compactMap { byMaster[$0] })
    }

    /// `host:port`, with brackets around an IPv6 host.
    package static func address(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension RedisConnection {
    /// Asks this node for the cluster's topology: `CLUSTER SHARDS`, or `CLUSTER SLOTS` from a
    /// server without it. `completion` gets nil when neither answer gives one.
    func queryTopology(address: String, tls: Bool, completion: @escaping (ClusterTopology?) -> Void) {
        send(
            [Array("CLUSTER".utf8), Array("SHARDS".utf8)],
            waiter: .own { result in
                switch result {
                case .success(let reply):
                    completion(try? ClusterTopology.fromShards(reply, queried: address, tls: tls))
                case .failure(.server):
                    self.send(
                        [Array("CLUSTER".utf8), Array("SLOTS".utf8)],
                        waiter: .own { result in
                            guard case .success(let reply) = result else { return completion(nil) }
                            completion(try? ClusterTopology.fromSlots(reply, queried: address))
                        })
                case .failure:
                    completion(nil)
                }
            })
    }
}
