/// An incremental HTTP/1.1 request parser (RFC 9112): bytes in with `feed`, requests out with `next`.
///
/// It is a pure value: no I/O, no clock. The server feeds what it reads, then calls `next()` until it
/// answers `.needMore`; several pipelined requests in one read come out one by one, in order. `progress`
/// tells whether the connection is idle, inside a header section, or inside a body, so the server can run
/// a header-read timeout apart from the body timeout. Limits bound everything the peer controls: header
/// bytes and field count (431, or 414 for a request line alone), body bytes (413).
///
/// Choices where RFC 9112 leaves room: a bare LF ends a start or field line (§2.2, MAY), while chunk
/// framing requires CRLF; a bare CR, obs-fold and whitespace before the first field are rejected (400);
/// Content-Length together with Transfer-Encoding is rejected (400); a transfer coding other than a single
/// `chunked` is 501 (or 400 for `chunked` twice); trailer fields are read, bounded, and dropped.
public struct HTTP1RequestParser: Sendable {
    /// Bounds on what a peer can make the parser hold.
    public struct Limits: Sendable, Equatable {
        /// The header section, request line included (and trailers, counted separately).
        package var maxHeaderBytes: Int
        /// The number of header fields.
        package var maxHeaderFields: Int
        /// The body, after removing chunked framing.
        package var maxBodyBytes: Int

        /// Limits with defaults suited to an API server.
        public init(maxHeaderBytes: Int = 16_384, maxHeaderFields: Int = 100, maxBodyBytes: Int = 1_048_576) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderFields = maxHeaderFields
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// Where the parser stands, for the server's timeouts.
    package enum Progress: Sendable, Equatable {
        /// Between requests with nothing buffered: the idle (keep-alive) timeout applies.
        case idle
        /// Part of a header section has arrived: the header-read timeout applies.
        case head
        /// The header section is complete and the body is pending: the body timeout applies. When the
        /// client expects `100 Continue`, the server should send it (or its final answer) now.
        case body(expectsContinue: Bool)
    }

    /// How far the search for the end of the header section has got, in offsets from `readIndex`.
    struct HeadScan: Sendable {
        /// Next octet to examine.
        var position = 0
        /// Start of the line being scanned.
        var lineStart = 0
        /// Start of the request line, after any empty lines that precede it.
        var requestLineStart = 0
        /// Whether a non-empty line (the request line) has been seen.
        var sawRequestLine = false
    }

    /// A request whose head is parsed and whose body is being read.
    struct PendingRequest: Sendable {
        /// Method, target and fields (the body is collected apart, in `body`).
        var request: HTTPRequest
        /// Version and connection facts.
        var info: HTTP1RequestInfo
    }

    /// Where the body reader stands.
    enum BodyState: Sendable {
        /// Content-Length framing: octets still to read.
        case fixed(remaining: Int)
        /// Chunked: expecting a chunk-size line.
        case chunkSize
        /// Chunked: inside chunk data.
        case chunkData(remaining: Int)
        /// Chunked: expecting the CRLF after chunk data.
        case chunkDataEnd
        /// Chunked: reading trailer lines after the last chunk; octets read so far.
        case trailers(bytes: Int)
    }

    /// What the parser is reading.
    enum State: Sendable {
        /// A header section, scanned this far.
        case head(HeadScan)
        /// The body of `pending`.
        case body(BodyState)
        /// Nothing more: the connection must close after answering the error.
        case failed(HTTP1ParseError)
    }

    /// The limits this parser enforces.
    package let limits: Limits

    /// Octets fed; those before `readIndex` are consumed.
    var buffer: [UInt8] = []
    /// The first unconsumed octet of `buffer`.
    var readIndex = 0
    /// What is being read.
    var state: State = .head(HeadScan())
    /// The request whose body is being read; its body accumulates in `body`, kept apart so that appending
    /// never copies.
    var pending: PendingRequest?
    /// The body read so far for `pending`.
    var body: [UInt8] = []

    /// A parser for one connection, enforcing `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Appends bytes read from the connection. Ignored once the parser has failed.
    public mutating func feed(_ bytes: [UInt8]) {
        if case .failed = state { return }
        buffer.append(contentsOf: bytes)
    }

    /// Octets fed but not yet consumed. A server that stops reading while requests are queued keeps this
    /// bounded by reading only after `next()` answered `.needMore`.
    package var bufferedByteCount: Int { buffer.count - readIndex }

    /// Bytes this parser holds for the connection: unread octets and the body collected so far.
    package var heldByteCount: Int { bufferedByteCount + body.count }

    /// Where the parser stands; see `Progress`.
    package var progress: Progress {
        switch state {
        case .head: return bufferedByteCount == 0 ? .idle : .head
        case .body: return .body(expectsContinue: pending?.info.expectsContinue ?? false)
        case .failed: return .head
        }
    }

    /// The next complete request, `.needMore`, or the error that ends the connection (repeated on every
    /// later call).
    public mutating func next() -> HTTP1ParseResult {
        let result: HTTP1ParseResult
        do {
            result = try step()
        } catch {
            state = .failed(error)
            result = .error(error)
        }
        compact()
        return result
    }

    /// Advances through the buffered bytes as far as they allow.
    private mutating func step() throws(HTTP1ParseError) -> HTTP1ParseResult {
        while true {
            switch state {
            case .failed(let error):
                return .error(error)
            case .head(var scan):
                guard let headEnd = try findHeadEnd(&scan) else {
                    state = .head(scan)
                    return .needMore
                }
                let (head, framing) = try parseHead(
                    requestLine: readIndex + scan.requestLineStart, end: readIndex + headEnd)
                readIndex += headEnd
                switch framing {
                case .none:
                    state = .head(HeadScan())
                    return .request(head.request, head.info)
                case .fixed(let length):
                    pending = head
                    body.reserveCapacity(length)
                    state = .body(.fixed(remaining: length))
                case .chunked:
                    pending = head
                    state = .body(.chunkSize)
                }
            case .body(let bodyState):
                switch try readBody(bodyState) {
                case .complete:
                    return completeRequest()
                case .needMore(let next):
                    state = .body(next)
                    return .needMore
                case .continue(let next):
                    state = .body(next)
                }
            }
        }
    }

    /// Hands out the pending request with its body and gets ready for the next one.
    private mutating func completeRequest() -> HTTP1ParseResult {
        state = .head(HeadScan())
        guard var head = pending else { return .needMore }
        pending = nil
        head.request.body = body
        body = []
        return .request(head.request, head.info)
    }

    /// Drops consumed octets once they are all consumed, or once they outweigh the rest.
    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            readIndex = 0
        } else if readIndex >= 4096, readIndex * 2 >= buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }
}
