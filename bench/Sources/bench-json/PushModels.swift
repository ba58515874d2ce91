/// Codable mirrors of the payloads, to time JSONDecoder and JSONEncoder as an app would use them.
struct DeliveryPush: Codable {
    struct APS: Codable {
        var timestamp: Int
        var event: String
        var staleDate: Int
        var relevanceScore: Double
        var contentState: DeliveryState
        var alert: Alert

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert
            case staleDate = "stale-date"
            case relevanceScore = "relevance-score"
            case contentState = "content-state"
        }
    }

    struct DeliveryState: Codable {
        struct Driver: Codable {
            var name: String
            var rating: Double
            var phone: String
        }

        struct Vehicle: Codable {
            var kind: String
            var plate: String
            var lat: Double
            var lon: Double
        }

        struct Item: Codable {
            var name: String
            var qty: Int
        }

        var orderId: String
        var status: String
        var etaMinutes: Int
        var progress: Double
        var stopsRemaining: Int
        var driver: Driver
        var vehicle: Vehicle
        var items: [Item]
        var message: String
        var updatedAt: Int
    }

    struct Alert: Codable {
        struct Localized: Codable {
            var locKey: String
            var locArgs: [String]?

            enum CodingKeys: String, CodingKey {
                case locKey = "loc-key"
                case locArgs = "loc-args"
            }
        }

        var title: Localized
        var body: Localized
        var sound: String
    }

    var aps: APS
}

struct GamePush: Codable {
    struct APS: Codable {
        var timestamp: Int
        var event: String
        var staleDate: Int
        var relevanceScore: Double
        var contentState: GameState
        var alert: Alert

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert
            case staleDate = "stale-date"
            case relevanceScore = "relevance-score"
            case contentState = "content-state"
        }
    }

    struct GameState: Codable {
        struct Team: Codable {
            var abbr: String
            var name: String
            var score: Int
            var hits: Int
            var errors: Int
        }

        struct Play: Codable {
            var seq: Int
            var inning: Int
            var half: String
            var team: String
            var batter: String
            var pitchSpeed: Double
            var result: String
            var rbi: Int
        }

        var gameId: String
        var status: String
        var inning: Int
        var half: String
        var outs: Int
        var balls: Int
        var strikes: Int
        var bases: [Bool]
        var home: Team
        var away: Team
        var lastPlays: [Play]
        var broadcast: String
    }

    struct Alert: Codable {
        var title: String
        var body: String
        var sound: String
    }

    var aps: APS
}
