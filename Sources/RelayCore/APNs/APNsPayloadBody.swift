/// The body checks device pushes and broadcasts share: emptiness, size, JSON, Live Activity shape.
enum APNsPayloadBody {
    /// `PayloadEmpty` for no bytes, `413 PayloadTooLarge` past `limit`, `BadRequestPayload` for a
    /// body `parseJSON` rejects or that is not a Live Activity payload.
    static func decode(_ body: [UInt8]?, limit: Int, parseJSON: APNsBodyParser) -> Result<
        LiveActivityPayload, APNsError
    > {
        guard let body, !body.isEmpty else {
            return .failure(APNsError(.payloadEmpty, "the request has no body; send the JSON payload"))
        }
        guard body.count <= limit else {
            return .failure(APNsError(.payloadTooLarge, "the payload is \(body.count) bytes; the limit is \(limit)"))
        }
        let json: JSONValue
        do {
            json = try parseJSON(body)
        } catch {
            return .failure(APNsError(.badRequestPayload, "the payload is not valid JSON: \(error)"))
        }
        return LiveActivityPayload.parse(json).mapError(\.apnsError)
    }
}
