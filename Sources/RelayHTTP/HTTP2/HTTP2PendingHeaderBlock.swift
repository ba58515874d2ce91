/// A field block still arriving in CONTINUATION frames, and what to do with it once complete.
///
/// The outcome is decided when HEADERS arrives, but acted on only after the whole block has been
/// decompressed: HPACK state must stay in step with the client even for streams we refuse,
/// reset or ignore (RFC 9113 §4.3).
struct HTTP2PendingHeaderBlock: Sendable {
    /// What the block is for.
    enum Disposition: Sendable {
        /// The request head of a new stream.
        case openStream(endStream: Bool)
        /// Trailers ending an open stream's request.
        case trailers
        /// A stream we reset or that lies above our GOAWAY: decompress and drop.
        case ignore
        /// A stream error to report once the block is decompressed.
        case streamError(HTTP2ProtocolError)

        /// Whether the block is decompressed and dropped.
        var isIgnore: Bool {
            if case .ignore = self { return true }
            return false
        }
    }

    /// The stream the HEADERS frame opened the block on.
    let streamID: UInt32
    /// The fragments so far, concatenated.
    var block: [UInt8]
    /// What to do with it.
    let disposition: Disposition
}
