/// A response body made a page at a time, as the connection has room to send it: a list of
/// thousands of records costs the relay about one page per request, however slowly the peer
/// reads (or however long it keeps its HTTP/2 window shut).
///
/// The session calls `next` on the connection's loop, one call at a time: HTTP/2 when the
/// stream has less than a frame's worth queued, HTTP/1.1 while the socket takes writes. It never
/// calls again after `.last` or `.failed`, and drops the pages unread when the peer goes away.
public protocol ResponsePages: AnyObject, Sendable {
    /// The next piece of the body.
    func next() -> ResponsePage
}

/// One piece of a paged body.
public enum ResponsePage: Sendable, Equatable {
    /// More of the body; more follows.
    case more([UInt8])
    /// The rest of the body (possibly empty).
    case last([UInt8])
    /// The body cannot be completed (a store read failed): the peer sees an unfinished answer
    /// (HTTP/2 `RST_STREAM INTERNAL_ERROR`, HTTP/1.1 the connection closed), never a shortened one
    /// that looks whole.
    case failed
}

/// How a paged body starts: pulled until it ends or passes a few frames' worth, so a small body
/// takes the plain path (one response, `content-length` on HTTP/1.1) and only a large one is sent
/// a page at a time.
enum PagedBodyStart: Equatable {
    /// The whole body, at most about `wholeBodyBytes` (plus the last page).
    case whole([UInt8])
    /// The start of a body that goes on: more pages follow.
    case partial([UInt8])
    /// The body failed before it was complete.
    case failed

    /// Bodies that end within this many bytes are sent whole.
    static let wholeBodyBytes = 32 * 1024

    /// Pulls pages from `pages` until the body ends or holds `wholeBodyBytes`.
    init(pulling pages: any ResponsePages) {
        var body: [UInt8] = []
        while true {
            switch pages.next() {
            case .last(let bytes):
                body += bytes
                self = .whole(body)
                return
            case .failed:
                self = .failed
                return
            case .more(let bytes):
                body += bytes
                if body.count >= Self.wholeBodyBytes {
                    self = .partial(body)
                    return
                }
            }
        }
    }
}

extension ResponsePages {
    /// The length of the rest of the body, counted page by page without keeping the pages (a
    /// HEAD request's `content-length`); nil when it failed.
    func remainingByteCount() -> Int? {
        var count = 0
        while true {
            switch next() {
            case .more(let bytes): count += bytes.count
            case .last(let bytes): return count + bytes.count
            case .failed: return nil
            }
        }
    }
}
