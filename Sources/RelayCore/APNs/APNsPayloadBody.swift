import RelayJSON

/// The body checks device pushes and broadcasts share: emptiness, size, JSON, Live Activity shape.
enum APNsPayloadBody {
    /// `PayloadEmpty` for no bytes, `413 PayloadTooLarge` past `limit`, `BadRequestPayload` for a
    /// body `parseJSON` rejects or that is not a Live Activity payload.
    static func decode(_ body: [UInt8]?, limit: Int, parseJSON: APNsBodyParser) -> Result<
        LiveActivityPayload, APNsError
    > {
        let bytes: [UInt8]
        switch checkSize(body, limit: limit) {
        case .success(let checked): bytes = checked
        case .failure(let error): return .failure(error)
        }
        let json: JSONValue
        do {
            json = try parseJSON(bytes)
        } catch {
            return .failure(notJSON(error))
        }
        return LiveActivityPayload.parse(json).mapError(\.apnsError)
    }

    /// `decode(_:limit:parseJSON:)` with RelayCore's own parser, reading the usual payload shape
    /// without building its outer objects (`LiveActivityPayload.decode`). Same answers.
    static func decode(_ body: [UInt8]?, limit: Int) -> Result<LiveActivityPayload, APNsError> {
        let bytes: [UInt8]
        switch checkSize(body, limit: limit) {
        case .success(let checked): bytes = checked
        case .failure(let error): return .failure(error)
        }
        switch LiveActivityPayload.decode(bytes) {
        case .success(let payload): return .success(payload)
        case .failure(.json(let error)): return .failure(notJSON(error))
        case .failure(.payload(let error)): return .failure(error.apnsError)
        }
    }

    /// The body when it is there and within `limit`, else `PayloadEmpty` or `413 PayloadTooLarge`.
    private static func checkSize(_ body: [UInt8]?, limit: Int) -> Result<[UInt8], APNsError> {
        guard let body, !body.isEmpty else {
            return .failure(APNsError(.payloadEmpty, "the request has no body; send the JSON payload"))
        }
        guard body.count <= limit else {
            return .failure(APNsError(.payloadTooLarge, "the payload is \(body.count) bytes; the limit is \(limit)"))
        }
        return .success(body)
    }

    /// `BadRequestPayload` for a body that is not JSON.
    private static func notJSON(_ error: any Error) -> APNsError {
        APNsError(.badRequestPayload, "the payload is not valid JSON: \(error)")
    }
}
