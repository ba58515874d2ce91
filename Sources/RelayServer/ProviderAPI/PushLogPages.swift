import RelayCore
import RelayStore

/// The body of `GET /v1/pushes`, `{"items": [record, ...], "nextBefore": id | null}`, read from
/// the store and rendered a page at a time as the peer reads, so a thousand records held back by
/// a shut window cost one page, not the whole answer.
///
/// Each page reads the next few rows below the last one read (ids only go down, so later pushes
/// never slip in) and ends once it holds `pageBytes`. The bytes are those the whole list would
/// give: records joined by commas in the stored form, and `nextBefore` as a single read of
/// `limit` rows would set it (the last row when `limit` rows were found, else null; for a device
/// key, where its scan of `maxScan` rows stopped).
final class PushLogPages: ResponsePages, @unchecked Sendable {
    // Sendable: `next` runs on one connection's loop, one call at a time.
    private let reader: StoreReader
    private let query: PushLogQuery
    private let visibility: PushLogVisibility?
    /// The id the next read starts below.
    private var cursor: Int64?
    /// Rows found so far (visible ones, for a device key).
    private var found = 0
    /// Rows a device key's scan has looked at.
    private var scanned = 0
    /// Set once the last row is found: the page that holds it closes the body.
    private var nextBefore: Int64??
    /// Record bytes read so far (to size the next read).
    private var readBytes = 0
    private var started = false
    private var wroteRecord = false
    /// The first page, read when the request is answered so that a store failure is a `500`.
    private var firstPage: ResponsePage?

    /// A page ends once it holds this many bytes (or the rows run out).
    static let pageBytes = 16 * 1024
    /// Rows a device key's scan reads at a time; `maxScan` is a multiple of it, so the scan
    /// stops at the same row as one read of 200 would.
    static let scanRows = 8
    /// Most rows one device-key request looks at before answering with what it found.
    static let maxScan = 5000
    /// Bounds for the rows read at once for the admin: enough for a page of small records,
    /// few enough that a page of the largest (5 KiB) stays near `pageBytes`.
    static let readRows = 4...64

    /// Reads the first page; throws when the store cannot be read.
    init(reader: StoreReader, query: PushLogQuery, visibility: PushLogVisibility?) throws(StoreError) {
        self.reader = reader
        self.query = query
        self.visibility = visibility
        cursor = query.before
        if let visibility {
            let hiddenToken = query.filter.token.map { !visibility.tokens.contains($0) } ?? false
            let hiddenChannel = query.filter.channelId.map { !visibility.channels.contains($0) } ?? false
            if hiddenToken || hiddenChannel { nextBefore = .some(nil) }
        }
        firstPage = try page()
    }

    func next() -> ResponsePage {
        if let first = firstPage {
            firstPage = nil
            return first
        }
        do {
            return try page()
        } catch {
            RelayLog.error("pushlog.read", ["error": error.description])
            return .failed
        }
    }

    /// The next page: records until `pageBytes`, then the closing members once the rows run out.
    private func page() throws(StoreError) -> ResponsePage {
        var page: [UInt8] = []
        if !started {
            page += Array(#"{"items":["#.utf8)
            started = true
        }
        while nextBefore == nil, page.count < Self.pageBytes {
            for row in try readRows() where !row.push.record.isEmpty {
                if wroteRecord { page.append(UInt8(ascii: ",")) }
                page += row.push.record
                wroteRecord = true
            }
        }
        guard let end = nextBefore else { return .more(page) }
        page += Array(#"],"nextBefore":"#.utf8)
        page += Array((end.map { String($0) } ?? "null").utf8)
        page.append(UInt8(ascii: "}"))
        return .last(page)
    }

    /// The next rows the caller may see; sets `nextBefore` when they are the last.
    private func readRows() throws(StoreError) -> [StoredPush] {
        guard let visibility else { return try readAll() }
        guard found < query.limit, scanned < Self.maxScan else {
            nextBefore = .some(cursor)
            return []
        }
        let rows = try reader.pushes(filter: query.filter, before: cursor, limit: Self.scanRows)
        scanned += rows.count
        var admitted: [StoredPush] = []
        for row in rows where visibility.admits(token: row.push.token, channelId: row.push.channelId) {
            admitted.append(row)
            found += 1
            if found == query.limit {
                nextBefore = .some(row.id)
                return admitted
            }
        }
        guard rows.count == Self.scanRows, let last = rows.last else {
            nextBefore = .some(nil)
            return admitted
        }
        cursor = last.id
        return admitted
    }

    /// The admin's next rows: as many as should fill the rest of a page, judged by the records
    /// read so far.
    private func readAll() throws(StoreError) -> [StoredPush] {
        let wanted = min(query.limit - found, readSize)
        let rows = try reader.pushes(filter: query.filter, before: cursor, limit: wanted)
        found += rows.count
        readBytes += rows.reduce(0) { $0 + $1.push.record.count }
        cursor = rows.last?.id ?? cursor
        if rows.count < wanted {
            nextBefore = .some(nil)
        } else if found == query.limit {
            nextBefore = .some(rows.last?.id)
        }
        return rows
    }

    /// Rows for the next read: about a page's worth at the records' average size so far.
    private var readSize: Int {
        guard found > 0 else { return Self.readRows.lowerBound }
        let average = max(1, readBytes / found)
        return min(max(Self.pageBytes / average, Self.readRows.lowerBound), Self.readRows.upperBound)
    }
}
