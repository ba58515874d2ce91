import RelayRedis

/// Replies from a hostile Redis server: any bytes, cut into reads, must give values or a
/// `RESPError`, never a crash; every value must survive a RESP3 round trip.
enum RESPTarget {
    static func run(_ bytes: [UInt8]) {
        var limits = RESPLimits()
        limits.maxBulkBytes = 1 << 16
        limits.maxAggregateCount = 1 << 12
        var parser = RESPParser(limits: limits)
        for piece in pieces(of: bytes, limit: 5) {
            parser.append(piece)
            while true {
                guard let value = try? parser.next() else { break }
                let encoded = RESPEncoder.encode(value)
                var fresh = RESPParser()
                fresh.append(encoded)
                guard let again = try? fresh.next(), RESPEncoder.encode(again) == encoded else {
                    fatalError("RESP round trip changed \(value)")
                }
            }
        }
    }
}
