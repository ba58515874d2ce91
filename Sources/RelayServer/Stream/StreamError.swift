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

    /// `401 unauthorized` for a missing or unknown key.
    static let unauthorized = StreamError(
        401, "unauthorized", "send authorization: bearer <admin or device key>, or a stream ticket")

    /// The JSON error response.
    var response: HTTPResponse {
        var response = JSONResponse.error(status, code, message)
        if status == 401 { response.headers.add("www-authenticate", "Bearer") }
        return response
    }
}
