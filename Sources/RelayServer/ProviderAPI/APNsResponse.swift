import RelayCore
import RelayHTTP
import RelayJSON

/// Responses in APNs' exact shapes.
///
/// Success has an empty body; a refusal is `{"reason": "..."}` (plus `"timestamp"` in
/// milliseconds with 410) as `application/json`. Every answer carries the request's identifier
/// header: `apns-id` for device pushes, `apns-request-id` for broadcasts and channel management.
enum APNsResponse {
    /// `200` for a device push: `apns-id` and `apns-unique-id`, no body.
    static func accepted(apnsID: String, uniqueID: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.reserveCapacity(2)
        headers.add(lowercaseName: "apns-id", apnsID)
        headers.add(lowercaseName: "apns-unique-id", uniqueID)
        return HTTPResponse(status: 200, headers: headers)
    }

    /// A success of broadcast or channel management: `status`, `apns-request-id`, the `extra`
    /// headers and, when given, a JSON body.
    static func success(
        _ status: Int, requestID: String, extra: [(String, String)] = [], body: JSONValue? = nil
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("apns-request-id", requestID)
        for (name, value) in extra { headers.add(name, value) }
        guard let body else { return HTTPResponse(status: status, headers: headers) }
        headers.add("content-type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: body.serialized())
    }

    /// A refusal: Apple's status, `content-type: application/json`, the identifier header
    /// (`idHeader: id`) and `{"reason": ...}` (with `"timestamp"` on 410).
    static func refused(_ error: APNsError, idHeader: String, id: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        headers.add(idHeader, id)
        return HTTPResponse(status: error.status, headers: headers, body: error.jsonBody.serialized())
    }

    /// The answer when the store could not commit: `500 InternalServerError` (nothing was acknowledged).
    static func storeFailure(idHeader: String, id: String) -> HTTPResponse {
        refused(APNsError(.internalServerError, "the push could not be stored"), idHeader: idHeader, id: id)
    }
}
