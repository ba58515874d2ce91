import RelayHTTP

/// A refused stream or ticket request: status, app-API error code and a human message.
struct StreamError: Error, Sendable, Equatable {
    let status: Int
    let code: String
    let message: String

    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The JSON error response (`allow` for a 405).
    func response(allow: String) -> HTTPResponse {
        var response = self.response
        response.headers.add("allow", allow)
        return response
    }

    /// The JSON error response.
    var response: HTTPResponse {
        var response = JSONResponse.error(status, code, message)
        if status == 401 {
            response.headers.add("www-authenticate", "Bearer realm=\"activity-relay\", error=\"invalid_token\"")
        }
        return response
    }
}
