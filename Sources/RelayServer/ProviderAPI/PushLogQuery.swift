import RelayHTTP
import RelayStore

/// The parameters of `GET /v1/pushes`: `token`, `apnsId`, `uniqueId`, `bundleId`, `channelId`
/// (each an exact match), `limit` (1–1000, default 100) and `before` (an entry id from a
/// previous page's `nextBefore`, for older entries).
struct PushLogQuery: Sendable, Equatable {
    var filter = PushFilter()
    var limit = PushLogQuery.defaultLimit
    var before: Int64?

    static let defaultLimit = 100
    static let maxLimit = 1000
    /// Longest filter value accepted (tokens are at most 400 hex digits).
    static let maxValueLength = 512

    /// Why the query was refused: the parameter and what is wrong with it.
    struct Problem: Error, Sendable, Equatable {
        var parameter: String
        var message: String
    }

    /// Parses `request`'s query; unknown parameters are refused so that a misspelt filter does
    /// not silently return everything.
    init(_ request: HTTPRequest) throws(Problem) {
        for (name, value) in request.queryItems {
            guard value.utf8.count <= Self.maxValueLength else {
                throw Problem(parameter: name, message: "\(name) is longer than \(Self.maxValueLength) bytes")
            }
            switch name {
            case "token": filter.token = value.lowercased()
            case "apnsId": filter.apnsId = value
            case "uniqueId": filter.uniqueId = value
            case "bundleId": filter.bundleId = value
            case "channelId": filter.channelId = value
            case "limit":
                guard let number = Int(value), (1...Self.maxLimit).contains(number) else {
                    throw Problem(parameter: name, message: "limit must be a whole number from 1 to \(Self.maxLimit)")
                }
                limit = number
            case "before":
                guard let number = Int64(value), number > 0 else {
                    throw Problem(parameter: name, message: "before must be a positive entry id (a page's nextBefore)")
                }
                before = number
            default:
                let known = "token, apnsId, uniqueId, bundleId, channelId, limit, before"
                throw Problem(
                    parameter: name, message: "unknown parameter '\(name.prefix(64))'; the push log takes \(known)")
            }
        }
    }
}
