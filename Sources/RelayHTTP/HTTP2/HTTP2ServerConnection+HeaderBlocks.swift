extension HTTP2ServerConnection {
    /// The most compressed field-block bytes buffered across HEADERS and CONTINUATION frames.
    /// HPACK output is never much larger than the decoded list it stands for, so a legitimate
    /// block fits in twice the header list limit (CONTINUATION floods, CVE-2024-27316).
    var maxHeaderBlockBytes: Int { max(2 * configuration.maxHeaderListSize, 16_384) }

    /// HEADERS: decides what the block is for (RFC 9113 §5.1, §5.1.1, §5.1.2, §8.1) and starts
    /// collecting it.
    mutating func startHeaderBlock(
        streamID: UInt32, fragment: [UInt8], endStream: Bool, endHeaders: Bool, priority: HTTP2Priority?,
        events: inout [HTTP2ConnectionEvent]
    ) throws(HTTP2ProtocolError) {
        guard streamID & 1 == 1 else {
            throw .connection(.protocolError, "even stream id from a client", value: Int(streamID))
        }
        var disposition: HTTP2PendingHeaderBlock.Disposition
        if let state = streams[streamID]?.state {
            if !state.canReceive {
                disposition = .streamError(.stream(streamID, .streamClosed, "HEADERS after END_STREAM"))
            } else if !endStream {
                disposition = .streamError(.stream(streamID, .protocolError, "second HEADERS without END_STREAM"))
            } else {
                disposition = .trailers
            }
        } else if streamID > highestStreamID {
            highestStreamID = streamID
            if goawayLastStreamID != nil {
                disposition = .ignore
            } else if streams.count >= maxConcurrentStreams {
                disposition = .streamError(.stream(streamID, .refusedStream, "concurrent stream limit reached"))
            } else {
                disposition = .openStream(endStream: endStream)
            }
        } else {
            disposition = try dispositionOnInactiveStream(streamID)
        }
        if priority?.dependency == streamID, !disposition.isIgnore {
            disposition = .streamError(.stream(streamID, .protocolError, "stream depends on itself"))
        }
        if fragment.isEmpty && !endHeaders {
            try chargeControlFrame()
        }
        guard fragment.count <= maxHeaderBlockBytes else {
            throw .connection(.enhanceYourCalm, "header block too large", value: fragment.count)
        }
        pendingHeaderBlock = HTTP2PendingHeaderBlock(streamID: streamID, block: fragment, disposition: disposition)
        if endHeaders {
            try completeHeaderBlock(events: &events)
        }
    }

    /// HEADERS on a stream id at or below the highest used, with no active stream.
    private func dispositionOnInactiveStream(
        _ streamID: UInt32
    ) throws(HTTP2ProtocolError) -> HTTP2PendingHeaderBlock.Disposition {
        if let goawayLastStreamID, streamID > goawayLastStreamID { return .ignore }
        switch closedStreams.reason(for: streamID) {
        case .resetByUs?:
            return .ignore
        case .resetByPeer?:
            return .streamError(.stream(streamID, .streamClosed, "HEADERS after RST_STREAM"))
        case .ended?:
            throw .connection(.streamClosed, "HEADERS on a closed stream", value: Int(streamID))
        case nil:
            throw .connection(.protocolError, "stream id not above the previous one", value: Int(streamID))
        }
    }

    /// Any frame while a field block is open: only CONTINUATION on the same stream may come.
    mutating func continueHeaderBlock(
        _ frame: HTTP2Frame, events: inout [HTTP2ConnectionEvent]
    ) throws(HTTP2ProtocolError) {
        guard case .continuation(let fragment, let endHeaders) = frame.payload,
            frame.streamID == pendingHeaderBlock?.streamID
        else {
            throw .connection(.protocolError, "header block interrupted by another frame")
        }
        if fragment.isEmpty && !endHeaders {
            try chargeControlFrame()
        }
        pendingHeaderBlock?.block.append(contentsOf: fragment)
        let size = pendingHeaderBlock?.block.count ?? 0
        guard size <= maxHeaderBlockBytes else {
            throw .connection(.enhanceYourCalm, "header block too large", value: size)
        }
        if endHeaders {
            try completeHeaderBlock(events: &events)
        }
    }

    /// Decompresses the finished block, then acts on it.
    private mutating func completeHeaderBlock(events: inout [HTTP2ConnectionEvent]) throws(HTTP2ProtocolError) {
        guard let pending = pendingHeaderBlock else { return }
        pendingHeaderBlock = nil
        let streamID = pending.streamID
        // nil: the list exceeded our limit, but the block was fully processed and HPACK is in sync.
        let fields: [(name: String, value: String)]?
        do throws(HPACKError) {
            fields = try headerDecoder.decode(pending.block)
        } catch {
            guard error.isHeaderListTooLarge else {
                throw .connection(.compressionError, "header block could not be decompressed", value: error.offset)
            }
            fields = nil
        }
        switch pending.disposition {
        case .ignore:
            return
        case .streamError(let error):
            throw error
        case .trailers:
            // Trailers are checked and dropped: no route uses them. An oversized list is dropped too.
            if let fields {
                try HTTP2RequestHead.validateTrailers(fields, streamID: streamID)
            }
            if try streams[streamID]?.receiveEndStream() == .complete {
                deliver(streamID, tooLarge: false, events: &events)
            }
        case .openStream(let endStream):
            guard let fields else {
                rejectOversizedHeaders(streamID, endStream: endStream)
                return
            }
            let head = try HTTP2RequestHead(validating: fields, streamID: streamID)
            openStream(streamID, head: head)
            if endStream {
                if try streams[streamID]?.receiveEndStream() == .complete {
                    deliver(streamID, tooLarge: false, events: &events)
                }
            } else if let declared = head.contentLength, declared > configuration.maxRequestBodyBytes {
                streams[streamID]?.discardBody()
                deliver(streamID, tooLarge: true, events: &events)
            }
        }
    }

    /// Records a new active stream.
    private mutating func openStream(_ streamID: UInt32, head: HTTP2RequestHead?) {
        streams[streamID] = HTTP2Stream(
            id: streamID, head: head, sendWindow: peerSettings.initialWindowSize,
            receiveWindow: localInitialWindowSize)
        lastAcceptedStreamID = streamID
    }

    /// A request whose header list exceeds SETTINGS_MAX_HEADER_LIST_SIZE: answered 431 by the
    /// connection itself (RFC 9113 §10.5.1), without the server hearing of it.
    private mutating func rejectOversizedHeaders(_ streamID: UInt32, endStream: Bool) {
        openStream(streamID, head: nil)
        if endStream {
            streams[streamID]?.state.receiveEndStream()
        }
        sendHead(streamID: streamID, head: HTTPResponseHead(status: 431), endStream: true)
    }
}
