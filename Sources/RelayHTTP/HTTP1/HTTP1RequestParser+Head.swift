// MARK: - Header section: finding its end, then parsing the request line and fields.

extension HTTP1RequestParser {
    /// How the body of a parsed head is delimited.
    enum BodyFraming: Equatable {
        /// No body.
        case none
        /// Content-Length octets.
        case fixed(Int)
        /// Chunked transfer coding.
        case chunked
    }

    /// Scans on from `scan` for the empty line that ends the header section. Returns the offset from
    /// `readIndex` just past it, or nil when more bytes are needed. Enforces the header byte limit.
    mutating func findHeadEnd(_ scan: inout HeadScan) throws(HTTP1ParseError) -> Int? {
        let start = readIndex
        let available = buffer.count - start
        let limit = min(available, limits.maxHeaderBytes)
        while scan.position < limit {
            let index = start + scan.position
            scan.position += 1
            guard buffer[index] == HTTP1Syntax.lf else { continue }
            var lineEnd = index
            if lineEnd > start + scan.lineStart, buffer[lineEnd - 1] == HTTP1Syntax.cr { lineEnd -= 1 }
            let isEmpty = lineEnd == start + scan.lineStart
            scan.lineStart = scan.position
            if !isEmpty {
                scan.sawRequestLine = true
            } else if scan.sawRequestLine {
                return scan.position
            } else {
                scan.requestLineStart = scan.position  // empty line before the request line: ignored
            }
        }
        if available > limits.maxHeaderBytes {
            throw scan.sawRequestLine
                ? HTTP1ParseError(
                    status: 431, .headerSectionTooLarge, value: "more than \(limits.maxHeaderBytes) octets")
                : HTTP1ParseError(status: 414, .targetTooLong, value: "more than \(limits.maxHeaderBytes) octets")
        }
        return nil
    }

    /// Parses the header section in `buffer[requestLine..<end]` (which ends with its empty line).
    func parseHead(requestLine: Int, end: Int) throws(HTTP1ParseError) -> (PendingRequest, BodyFraming) {
        var lines = HTTP1LineIterator(buffer: buffer, range: requestLine..<end)
        guard let firstLine = lines.next() else { throw HTTP1ParseError(status: 400, .malformedRequestLine) }
        let (parsedRequest, minorVersion) = try parseRequestLine(buffer[firstLine])
        var request = parsedRequest
        var fieldCount = 0
        while let line = lines.next(), !line.isEmpty {
            fieldCount += 1
            guard fieldCount <= limits.maxHeaderFields else {
                throw HTTP1ParseError(
                    status: 431, .headerSectionTooLarge, value: "more than \(limits.maxHeaderFields) fields")
            }
            let (name, value) = try parseField(buffer[line])
            request.headers.add(name, value)
        }
        let info = try connectionInfo(request.headers, minorVersion: minorVersion)
        return (
            PendingRequest(request: request, info: info), try bodyFraming(request.headers, minorVersion: minorVersion)
        )
    }

    // MARK: - Request line

    /// `method SP request-target SP HTTP-version`, single spaces, no bare CR.
    private func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (HTTPRequest, Int) {
        if line.contains(HTTP1Syntax.cr) { throw HTTP1ParseError(status: 400, .bareCR, bytes: line) }
        guard let firstSpace = line.firstIndex(of: HTTP1Syntax.space),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: HTTP1Syntax.space)
        else { throw HTTP1ParseError(status: 400, .malformedRequestLine, bytes: line) }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard HTTP1Syntax.isToken(method) else {
            throw HTTP1ParseError(status: 400, .malformedRequestLine, bytes: method)
        }
        let minorVersion = try parseVersion(version)
        let methodString = String(decoding: method, as: UTF8.self)
        let (path, query) = try splitTarget(target, method: methodString)
        return (HTTPRequest(method: methodString, path: path, query: query), minorVersion)
    }

    /// `HTTP/1.x`: returns x (0 or 1; later minors count as 1). Other majors are 505.
    private func parseVersion(_ version: ArraySlice<UInt8>) throws(HTTP1ParseError) -> Int {
        let bytes = Array(version)
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard bytes.count == 8, bytes[0..<5].elementsEqual("HTTP/".utf8), digits.contains(bytes[5]),
            bytes[6] == UInt8(ascii: "."), digits.contains(bytes[7])
        else { throw HTTP1ParseError(status: 400, .malformedRequestLine, bytes: version) }
        guard bytes[5] == UInt8(ascii: "1") else {
            throw HTTP1ParseError(status: 505, .unsupportedVersion, bytes: version)
        }
        return bytes[7] == UInt8(ascii: "0") ? 0 : 1
    }

    /// Path and query from an origin-form (`/p?q`), absolute-form (`http://host/p?q`) or asterisk-form
    /// (`*`, OPTIONS only) target (RFC 9112 §3.2).
    private func splitTarget(
        _ target: ArraySlice<UInt8>, method: String
    ) throws(HTTP1ParseError) -> (path: String, query: String) {
        guard !target.isEmpty, target.allSatisfy(HTTP1Syntax.isTargetOctet) else {
            throw HTTP1ParseError(status: 400, .invalidTarget, bytes: target)
        }
        let text = String(decoding: target, as: UTF8.self)
        if text.hasPrefix("/") { return HTTPRequest.splitTarget(text) }
        if text == "*", method == "OPTIONS" { return ("*", "") }
        for scheme in ["http://", "https://"] {
            guard text.utf8.count > scheme.utf8.count,
                text.utf8.prefix(scheme.utf8.count).map(HTTP1Syntax.lowercaseASCII).elementsEqual(scheme.utf8)
            else { continue }
            let rest = text.dropFirst(scheme.count)
            guard let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return ("/", "") }
            guard authorityEnd > rest.startIndex else { break }
            let pathAndQuery = String(rest[authorityEnd...])
            return HTTPRequest.splitTarget(pathAndQuery.hasPrefix("?") ? "/" + pathAndQuery : pathAndQuery)
        }
        throw HTTP1ParseError(status: 400, .invalidTarget, bytes: target)
    }

    // MARK: - Fields

    /// `field-name ":" OWS field-value OWS`; no obs-fold, no whitespace before the colon.
    private func parseField(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (String, String) {
        guard let first = line.first, first != HTTP1Syntax.space, first != HTTP1Syntax.tab else {
            throw HTTP1ParseError(status: 400, .obsoleteLineFolding, bytes: line)
        }
        guard let colon = line.firstIndex(of: HTTP1Syntax.colon), HTTP1Syntax.isToken(line[..<colon]) else {
            throw HTTP1ParseError(status: 400, .malformedField, bytes: line)
        }
        let value = HTTP1Syntax.trimmingWhitespace(line[(colon + 1)...])
        guard value.allSatisfy({ HTTP1Syntax.isFieldValueOctet[Int($0)] }) else {
            throw HTTP1ParseError(status: 400, .invalidFieldValue, bytes: line[..<colon])
        }
        return (String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    // MARK: - Connection semantics

    /// Host rules (RFC 9112 §3.2), keep-alive (§9.3) and Expect: 100-continue (RFC 9110 §10.1.1).
    private func connectionInfo(_ headers: HTTPHeaders, minorVersion: Int) throws(HTTP1ParseError) -> HTTP1RequestInfo {
        let hosts = headers.values("host")
        if hosts.count > 1 || (minorVersion >= 1 && hosts.isEmpty) {
            throw HTTP1ParseError(status: 400, .invalidHost, value: "\(hosts.count) Host fields")
        }
        let options = headers.values("connection").flatMap(HTTP1Syntax.listElements).map { $0.lowercased() }
        let keepAlive = minorVersion >= 1 ? !options.contains("close") : options.contains("keep-alive")
        let expectsContinue = minorVersion >= 1 && headers["expect"]?.lowercased() == "100-continue"
        return HTTP1RequestInfo(minorVersion: minorVersion, keepAlive: keepAlive, expectsContinue: expectsContinue)
    }
}

/// Iterates the lines of a header section: ranges without their LF (and CR before it, if any).
struct HTTP1LineIterator {
    /// The octets, shared with the parser (not copied).
    let buffer: [UInt8]
    /// Start of the next line.
    var position: Int
    /// End of the section.
    let end: Int

    /// Lines of `buffer[range]`.
    init(buffer: [UInt8], range: Range<Int>) {
        self.buffer = buffer
        position = range.lowerBound
        end = range.upperBound
    }

    /// The next line's range, without line terminator, or nil at the end.
    mutating func next() -> Range<Int>? {
        guard position < end else { return nil }
        let start = position
        while position < end, buffer[position] != HTTP1Syntax.lf { position += 1 }
        var lineEnd = position
        position += 1
        if lineEnd > start, buffer[lineEnd - 1] == HTTP1Syntax.cr { lineEnd -= 1 }
        return start..<lineEnd
    }
}
