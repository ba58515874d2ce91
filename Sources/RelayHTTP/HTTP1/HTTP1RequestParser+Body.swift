// MARK: - Body: framing from the header fields, then Content-Length and chunked reading.

extension HTTP1RequestParser {
    /// What one body-reading step achieved.
    enum BodyStep {
        /// The body is complete.
        case complete
        /// More bytes are needed; the reader is in this state.
        case needMore(BodyState)
        /// Progress was made; carry on from this state.
        case `continue`(BodyState)
    }

    /// The longest chunk-size line accepted, extensions included.
    static let maxChunkLineBytes = 4096

    /// Decides how the body is delimited (RFC 9112 §6.3), enforcing the body limit up front when known.
    func bodyFraming(_ headers: HTTPHeaders, minorVersion: Int) throws(HTTP1ParseError) -> BodyFraming {
        let transferEncodings = headers.values("transfer-encoding")
        let contentLengths = headers.values("content-length")
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else {
                throw HTTP1ParseError(status: 400, .contentLengthWithTransferEncoding)
            }
            let joined = transferEncodings.joined(separator: ", ")
            guard minorVersion >= 1 else { throw HTTP1ParseError(status: 400, .invalidTransferEncoding, value: joined) }
            let codings = transferEncodings.flatMap(HTTP1Syntax.listElements).map { $0.lowercased() }
            if let unsupported = codings.first(where: { $0 != "chunked" }) {
                throw HTTP1ParseError(status: 501, .unsupportedTransferEncoding, value: unsupported)
            }
            guard codings.count == 1 else {
                throw HTTP1ParseError(status: 400, .invalidTransferEncoding, value: joined)
            }
            return .chunked
        }
        guard !contentLengths.isEmpty else { return .none }
        // Several values (fields or a list) are allowed only when they agree (RFC 9110 §8.6).
        var length: Int?
        for element in contentLengths.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let digits = element.trimmingHTTPWhitespace()
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else {
                throw HTTP1ParseError(status: 400, .invalidContentLength, value: String(element.prefix(64)))
            }
            // Beyond 18 digits a value cannot fit; it is certainly over any body limit.
            let value = digits.utf8.count > 18 ? Int.max : Int(digits) ?? Int.max
            guard length == nil || length == value else {
                throw HTTP1ParseError(status: 400, .invalidContentLength, value: contentLengths.joined(separator: ", "))
            }
            length = value
        }
        let bodyLength = length ?? 0
        guard bodyLength <= limits.maxBodyBytes else {
            throw HTTP1ParseError(status: 413, .bodyTooLarge, value: String(bodyLength))
        }
        return bodyLength == 0 ? .none : .fixed(bodyLength)
    }

    /// Reads as much of the body as the buffer holds, appending to `body`.
    mutating func readBody(_ state: BodyState) throws(HTTP1ParseError) -> BodyStep {
        let available = buffer.count - readIndex
        switch state {
        case .fixed(let remaining):
            let take = min(remaining, available)
            body.append(contentsOf: buffer[readIndex..<(readIndex + take)])
            readIndex += take
            return take == remaining ? .complete : .needMore(.fixed(remaining: remaining - take))

        case .chunkSize:
            guard let line = try chunkLine(available: available) else { return .needMore(.chunkSize) }
            let size = try chunkSize(buffer[line])
            return .continue(size == 0 ? .trailers(bytes: 0) : .chunkData(remaining: size))

        case .chunkData(let remaining):
            guard available > 0 else { return .needMore(state) }
            let take = min(remaining, available)
            body.append(contentsOf: buffer[readIndex..<(readIndex + take)])
            readIndex += take
            return take == remaining ? .continue(.chunkDataEnd) : .needMore(.chunkData(remaining: remaining - take))

        case .chunkDataEnd:
            guard available >= 2 else {
                if available == 1, buffer[readIndex] != HTTP1Syntax.cr { throw malformedChunk(at: readIndex) }
                return .needMore(state)
            }
            guard buffer[readIndex] == HTTP1Syntax.cr, buffer[readIndex + 1] == HTTP1Syntax.lf else {
                throw malformedChunk(at: readIndex)
            }
            readIndex += 2
            return .continue(.chunkSize)

        case .trailers(let bytes):
            // Trailer fields are read (bounded) and dropped; an empty line ends the message.
            guard let lf = buffer[readIndex...].firstIndex(of: HTTP1Syntax.lf) else {
                guard bytes + available <= limits.maxHeaderBytes else { throw trailersTooLarge() }
                return .needMore(state)
            }
            let length = lf - readIndex
            let isEmpty = length == 0 || (length == 1 && buffer[readIndex] == HTTP1Syntax.cr)
            readIndex = lf + 1
            if isEmpty { return .complete }
            guard bytes + length + 1 <= limits.maxHeaderBytes else { throw trailersTooLarge() }
            return .continue(.trailers(bytes: bytes + length + 1))
        }
    }

    /// Finds a complete chunk-size line (which must end in CRLF), consumes it, and returns it without CRLF.
    private mutating func chunkLine(available: Int) throws(HTTP1ParseError) -> Range<Int>? {
        let window = buffer[readIndex..<(readIndex + min(available, Self.maxChunkLineBytes))]
        guard let lf = window.firstIndex(of: HTTP1Syntax.lf) else {
            if available >= Self.maxChunkLineBytes { throw malformedChunk(at: readIndex) }
            return nil
        }
        guard lf > readIndex, buffer[lf - 1] == HTTP1Syntax.cr else { throw malformedChunk(at: readIndex) }
        let line = readIndex..<(lf - 1)
        readIndex = lf + 1
        return line
    }

    /// `chunk-size [ chunk-ext ]`: hex digits, then optional `BWS ; ...` extensions, which are ignored.
    private func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = Self.hexValue(line[index]) {
            size = size * 16 + digit
            guard body.count + size <= limits.maxBodyBytes else {
                throw HTTP1ParseError(status: 413, .bodyTooLarge, bytes: line)
            }
            index += 1
        }
        guard index > line.startIndex else { throw HTTP1ParseError(status: 400, .malformedChunk, bytes: line) }
        let extensions = HTTP1Syntax.trimmingWhitespace(line[index...])
        if let first = extensions.first {
            guard first == UInt8(ascii: ";"), extensions.allSatisfy({ HTTP1Syntax.isFieldValueOctet[Int($0)] }) else {
                throw HTTP1ParseError(status: 400, .malformedChunk, bytes: line)
            }
        }
        return size
    }

    private static func hexValue(_ octet: UInt8) -> Int? {
        switch octet {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(octet - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(octet - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(octet - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }

    private func malformedChunk(at index: Int) -> HTTP1ParseError {
        HTTP1ParseError(status: 400, .malformedChunk, bytes: buffer[index..<min(buffer.count, index + 16)])
    }

    private func trailersTooLarge() -> HTTP1ParseError {
        HTTP1ParseError(status: 431, .headerSectionTooLarge, value: "trailers over \(limits.maxHeaderBytes) octets")
    }
}
