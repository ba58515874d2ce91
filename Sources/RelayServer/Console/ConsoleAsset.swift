import RelayCore
import RelayHTTP
import RelayNet

/// One file of the browser console, compiled into the binary (`PackageResources`, from
/// `Console/Assets`), with the headers it is served with.
///
/// Every asset carries a strong `etag` (the SHA-256 of its bytes) and `cache-control: no-cache`,
/// so a browser keeps a copy but asks each time and gets `304` while the binary is the same.
struct ConsoleAsset: Sendable {
    /// The URL path it is served at.
    let path: String
    let contentType: String
    let body: [UInt8]
    /// `"<sha-256 hex>"`, quoted as HTTP requires.
    let etag: String

    init(path: String, contentType: String, body: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
        etag = "\"" + Hex.encode(SHA256.hash(body)) + "\""
    }

    /// The console's files: the page at `/`, its script, style sheet and icon.
    static let all: [ConsoleAsset] = [
        ConsoleAsset(path: "/", contentType: "text/html; charset=utf-8", body: PackageResources.index_html),
        ConsoleAsset(
            path: "/console/console.js", contentType: "text/javascript; charset=utf-8",
            body: PackageResources.console_js),
        ConsoleAsset(
            path: "/console/console.css", contentType: "text/css; charset=utf-8", body: PackageResources.console_css),
        ConsoleAsset(path: "/console/icon.svg", contentType: "image/svg+xml", body: PackageResources.icon_svg),
    ]

    /// The content security policy of every console response: only this origin's own script,
    /// style sheet, images and connections; no inline code, no frames, no forms posting elsewhere.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The headers every console response carries besides its own.
    static func securityHeaders(_ headers: inout HTTPHeaders) {
        headers.add("content-security-policy", contentSecurityPolicy)
        headers.add("x-content-type-options", "nosniff")
        headers.add("referrer-policy", "no-referrer")
        headers.add("x-frame-options", "DENY")
        headers.add("cross-origin-opener-policy", "same-origin")
        headers.add("cross-origin-resource-policy", "same-origin")
    }

    /// The answer to a `GET` or `HEAD` carrying `ifNoneMatch`: `304` when it names this etag
    /// (or `*`), else `200` with the body (none for `HEAD`).
    func response(ifNoneMatch: String?, head: Bool) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("etag", etag)
        headers.add("cache-control", "no-cache")
        Self.securityHeaders(&headers)
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.add("content-type", contentType)
        return HTTPResponse(status: 200, headers: headers, body: head ? [] : body)
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 13.1.2 asks).
    static func matches(_ list: String, _ etag: String) -> Bool {
        list.split(separator: ",").contains { item in
            var tag = item.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            return tag == etag
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
