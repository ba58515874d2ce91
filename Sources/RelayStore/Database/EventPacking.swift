import CLZ4
import CSQLite

/// How the event log keeps an event's `data`: packed with LZ4 (block format) against a fixed
/// dictionary of the relay's own event shapes, or as it is when that would not make it smaller.
///
/// A push's two events are about 1.9 KB of JSON whose keys and constant strings repeat in every
/// event; packed they are about 0.9 KB. A durable push's cost follows the bytes it writes (the
/// WAL's pages, then the checkpoint's copy of them) as much as the statements it runs: packed,
/// a push writes ~4.3 KB instead of ~7.0 and the checkpointer takes half the time (bench/README,
/// "The session of 2026-12-02 (sixth)"). LZ4 rather than zstd: zstd's smaller output (about
/// 0.65 KB) cost 3.5 µs per event against LZ4's 0.6.
///
/// Stored form: the tag byte `lz4Tag`, the data's length (4 bytes, little-endian), the LZ4 block.
/// Data kept as it is starts with its JSON (`{`), so rows written before packing read the same.
/// Every reader goes through `unpacked`, or through the SQL functions `relay_data(data)` and
/// `relay_data(data, offset, length)` (the bytes at `offset`, as `substr(data, offset + 1,
/// length)` on the unpacked data) that `register(on:)` adds to each connection: documents and
/// push records that events carry are found by their offsets in the unpacked data.
enum EventPacking {
    /// The first byte of packed data: LZ4 against `dictionary`. A new dictionary needs a new tag.
    static let lz4Tag: UInt8 = 0x01
    /// The tag and the unpacked length.
    static let headerSize = 5
    /// The largest unpacked length accepted when reading (a damaged length must not allocate
    /// without bound): far above the 5 KB payload limit and the subjects events carry.
    static let maxUnpackedLength = 16 << 20

    /// The dictionary: a `push.received` and an `activity.updated` in the shapes the relay writes,
    /// with placeholder values. Never change these bytes: every packed row refers to them.
    nonisolated(unsafe) static let dictionary: UnsafeRawBufferPointer = {
        let text = [
            #"{"at":1700000000.123456,"deviceId":"00000000-0000-4000-8000-000000000000","#,
            #""push":{"activityId":"00000000-0000-4000-8000-000000000000","#,
            #""apnsId":"00000000-0000-4000-8000-000000000000","bundleId":"com.example.app","#,
            #""headers":{"user-agent":"","apns-topic":"com.example.app.push-type.liveactivity","#,
            #""apns-push-type":"liveactivity","apns-priority":"10","apns-expiration":"0","apns-id":"","#,
            #""authorization":"bearer (redacted; kid= iss= iat=)","content-length":"100"},"hint":null,"#,
            #""outcome":"applied","payload":{"aps":{"event":"update","timestamp":1700000000,"#,
            #""content-state":{},"stale-date":1700000000,"dismissal-date":1700000000,"alert":{"title":"","#,
            #""body":""}}},"reason":null,"receivedAt":1700000000.123456,"status":200,"token":"","#,
            #""uniqueId":"00000000-0000-4000-8000-000000000000"},"seq":1,"#,
            #""type":"push.received"}{"activity":{"attributes":{},"attributesType":"Attributes","#,
            #""bundleId":"com.example.app","channelId":null,"contentState":{},"counters":{"applied":1,"#,
            #""coalesced":0,"deferred":0,"discarded":0,"ignoredStale":0,"refusedOverBudget":0,"rejected":0},"#,
            #""deviceId":"00000000-0000-4000-8000-000000000000","dismissAt":null,"endedAt":null,"#,
            #""id":"00000000-0000-4000-8000-000000000000","lastTimestamp":1700000000,"pendingUpdate":null,"#,
            #""pushToken":"","relevanceScore":0,"staleDate":null,"startedAt":1700000000.123456,"#,
            #""state":"active","systemEndAt":1700000000.123456,"updateBudget":{"capacity":16,"#,
            #""frequentPushesEnabled":false,"refillPerSecond":0.004444444444444444,"tokens":15.5,"#,
            #""updatedAt":1700000000.123456}},"at":1700000000.123456,"cause":"push","#,
            #""deviceId":"00000000-0000-4000-8000-000000000000","seq":1,"type":"activity.updated"}"#,
        ].joined()
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: text.utf8.count, alignment: 16)
        _ = bytes.initializeMemory(as: UInt8.self, from: text.utf8)
        // Never freed: LZ4 refers to the dictionary from every packer's state.
        return UnsafeRawBufferPointer(bytes)
    }()

    /// Whether `stored` is packed.
    static func isPacked(_ stored: UnsafeRawBufferPointer) -> Bool { stored.first == lz4Tag }

    /// The data `stored` holds, or a message naming what is wrong with it.
    static func unpacked(_ stored: UnsafeRawBufferPointer) -> Result<[UInt8], StoreError> {
        withUnpacked(stored) { .success(Array($0)) }
    }

    /// Calls `body` with the data `stored` holds (its own bytes when it is not packed, else a
    /// temporary buffer); a damaged packing is an error naming it.
    static func withUnpacked<R>(
        _ stored: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result<R, StoreError>
    ) -> Result<R, StoreError> {
        guard isPacked(stored) else { return body(stored) }
        guard stored.count >= headerSize else { return .failure(damaged("it is shorter than its header")) }
        let length = Int(stored.loadUnaligned(fromByteOffset: 1, as: UInt32.self).littleEndian)
        guard length <= maxUnpackedLength else {
            return .failure(damaged("its length \(length) is over \(maxUnpackedLength)"))
        }
        return withUnsafeTemporaryAllocation(byteCount: max(length, 1), alignment: 1) { buffer in
            let source = UnsafeRawBufferPointer(rebasing: stored[headerSize...])
            let written = LZ4_decompress_safe_usingDict(
                source.baseAddress?.assumingMemoryBound(to: CChar.self),
                buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                Int32(source.count), Int32(length), dictionary.baseAddress?.assumingMemoryBound(to: CChar.self),
                Int32(dictionary.count))
            guard written == Int32(length) else {
                return .failure(damaged("LZ4 answered \(written) for \(length) bytes"))
            }
            return body(UnsafeRawBufferPointer(rebasing: buffer[..<length]))
        }
    }

    private static func damaged(_ problem: String) -> StoreError {
        .store("read event data", "the event's packed data is damaged: \(problem)")
    }
}

/// Packs event data for one thread at a time (the store writer's): LZ4's state with the
/// dictionary loaded once, attached (not copied) to a working state reset for each event.
final class EventPacker {
    private let loaded: UnsafeMutablePointer<LZ4_stream_t>
    private let work: UnsafeMutablePointer<LZ4_stream_t>
    private var buffer: UnsafeMutableRawBufferPointer
    /// LZ4's acceleration: 2 packed a push's two sample events in 0.97 µs each against 1.36 µs
    /// at 1, for 1% more bytes (383 against 379 of 977); 4 and 8 cost 4% and 10% more bytes
    /// (bench/README, the eighth session). Readers do not depend on it.
    private static let acceleration: Int32 = 2

    init() {
        loaded = UnsafeMutablePointer<LZ4_stream_t>.allocate(capacity: 1)
        work = UnsafeMutablePointer<LZ4_stream_t>.allocate(capacity: 1)
        LZ4_initStream(loaded, MemoryLayout<LZ4_stream_t>.size)
        LZ4_initStream(work, MemoryLayout<LZ4_stream_t>.size)
        let dictionary = EventPacking.dictionary
        LZ4_loadDict(loaded, dictionary.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(dictionary.count))
        buffer = .allocate(byteCount: 4096, alignment: 16)
    }

    deinit {
        loaded.deallocate()
        work.deallocate()
        buffer.deallocate()
    }

    /// Calls `body` with `data` as the log stores it: packed when that is smaller (or when the
    /// data starts with `lz4Tag`), else as it is. The packed bytes are valid only during `body`.
    func withStored<R, E: Error>(_ data: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let packed: Int? = data.withUnsafeBytes { source in
            guard source.count <= EventPacking.maxUnpackedLength,
                source.count > EventPacking.headerSize || source.first == EventPacking.lz4Tag
            else { return nil }
            let bound = Int(LZ4_compressBound(Int32(source.count))) + EventPacking.headerSize
            if buffer.count < bound {
                buffer.deallocate()
                buffer = .allocate(byteCount: bound, alignment: 16)
            }
            // Each event packs against the dictionary alone, so each reads back on its own. Attaching
            // refers to the loaded state's tables where copying it moved 16 KB per event.
            LZ4_resetStream_fast(work)
            LZ4_attach_dictionary(work, loaded)
            // Smaller than the data, or it is kept as it is; but data that starts like packed data
            // (not JSON) is always packed, or it would read as packed.
            let limit = source.first == EventPacking.lz4Tag ? bound : source.count - 1
            let written = LZ4_compress_fast_continue(
                work, source.baseAddress?.assumingMemoryBound(to: CChar.self),
                (buffer.baseAddress! + EventPacking.headerSize).assumingMemoryBound(to: CChar.self),
                Int32(source.count), Int32(limit - EventPacking.headerSize), Self.acceleration)
            guard written > 0 else { return nil }
            buffer[0] = EventPacking.lz4Tag
            buffer.storeBytes(of: UInt32(source.count).littleEndian, toByteOffset: 1, as: UInt32.self)
            return EventPacking.headerSize + Int(written)
        }
        if let packed { return try body(UnsafeRawBufferPointer(rebasing: buffer[..<packed])) }
        let result = data.withUnsafeBytes { bytes in Result { () throws(E) -> R in try body(bytes) } }
        return try result.get()
    }
}

extension EventPacking {
    /// Adds `relay_data(data)` (the data a stored value holds) and `relay_data(data, offset,
    /// length)` (`length` bytes of it from `offset`, clamped as `substr` clamps) to a connection.
    static func register(on connection: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var rc = sqlite3_create_function_v2(connection, "relay_data", 1, flags, nil, relayData, nil, nil, nil)
        if rc == SQLITE_OK {
            rc = sqlite3_create_function_v2(connection, "relay_data", 3, flags, nil, relayData, nil, nil, nil)
        }
        return rc
    }
}

/// The SQL function `relay_data` (see `EventPacking.register(on:)`): NULL when any argument is.
private func relayData(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments, (0..<Int(count)).allSatisfy({ sqlite3_value_type(arguments[$0]) != SQLITE_NULL }) else {
        sqlite3_result_null(context)
        return
    }
    let stored = UnsafeRawBufferPointer(
        start: sqlite3_value_blob(arguments[0]), count: Int(sqlite3_value_bytes(arguments[0])))
    let offset = count == 3 ? max(0, Int(sqlite3_value_int64(arguments[1]))) : 0
    let length = count == 3 ? max(0, Int(sqlite3_value_int64(arguments[2]))) : Int.max
    let outcome = EventPacking.withUnpacked(stored) { data -> Result<Void, StoreError> in
        let start = min(offset, data.count)
        let end = length >= data.count - start ? data.count : start + length
        if end > start, let base = data.baseAddress {
            sqlite3_result_blob(context, base + start, Int32(end - start), relay_sqlite_transient())
        } else {
            sqlite3_result_zeroblob(context, 0)
        }
        return .success(())
    }
    if case .failure(let error) = outcome { sqlite3_result_error(context, error.message, -1) }
}
