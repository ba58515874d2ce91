/// The server side of one HTTP/2 connection (RFC 9113), as a pure value: bytes in, events and
/// bytes out, no sockets and no clock (like nghttp2's `mem_recv`/`mem_send`).
///
/// The shell feeds what it reads to `receive(_:)`, acts on the returned events, answers requests
/// with `sendResponse` / `sendHead` + `sendData`, and writes whatever `nextOutput()` returns
/// whenever the socket can take more. It closes the socket once `canClose` is true and the last
/// output is written. Our SETTINGS are the first output.
///
/// Response bodies wait in a per-stream queue until the stream and connection windows allow them;
/// streams with data are served round-robin, one frame each per turn, so a stream whose window is
/// closed never holds up the others.
public struct HTTP2ServerConnection: Sendable {
    /// The 24 octets every client connection starts with (RFC 9113 §3.4).
    package static let clientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Where the connection stands.
    enum Phase: Hashable, Sendable {
        /// Waiting for the rest of the client preface; `matched` octets seen so far.
        case preface(matched: Int)
        /// The preface arrived; the next frame must be SETTINGS.
        case awaitingSettings
        /// Frames flow.
        case open
        /// A connection error or an abortive GOAWAY: nothing more is read or produced.
        case closed
    }

    /// The limits in force, clamped to legal values.
    let configuration: HTTP2Configuration
    var phase = Phase.preface(matched: 0)

    // MARK: Receiving
    var frameDecoder: HTTP2FrameDecoder
    var headerDecoder: HPACKDecoder
    /// A HEADERS frame whose CONTINUATION frames are still arriving.
    var pendingHeaderBlock: HTTP2PendingHeaderBlock?
    /// Active streams: open or half-closed.
    var streams: [UInt32: HTTP2Stream] = [:]
    var closedStreams = HTTP2ClosedStreams()
    /// The highest stream id the client has used in HEADERS; lower unused ids are closed.
    var highestStreamID: UInt32 = 0
    /// The highest stream we accepted: GOAWAY's last-stream-id.
    var lastAcceptedStreamID: UInt32 = 0
    /// The stream limit we enforce (SETTINGS_MAX_CONCURRENT_STREAMS as last sent).
    var maxConcurrentStreams: Int
    /// The receive window new streams start with: 65,535 until the client acknowledges our SETTINGS.
    var localInitialWindowSize = HTTP2PeerSettings.defaultInitialWindowSize
    /// Our SETTINGS frames not yet acknowledged, oldest first.
    var unacknowledgedSettings: [[HTTP2Setting]] = []
    /// The connection-level window the client may still fill.
    var receiveWindow: HTTP2FlowControlWindow
    /// Bytes received on the connection not yet credited back.
    var receivedUnacknowledged = 0
    var floodGuard: HTTP2FloodGuard

    // MARK: Sending
    var headerEncoder = HPACKEncoder()
    var peerSettings = HTTP2PeerSettings()
    /// The connection-level window we may still fill.
    var sendWindow = HTTP2FlowControlWindow(HTTP2PeerSettings.defaultInitialWindowSize)
    /// Frames ready to go regardless of flow control: SETTINGS, ACKs, HEADERS, RST_STREAM, GOAWAY.
    var controlOutput: [UInt8] = []
    /// GOAWAY and RST_STREAM frames sent and received, for the shell's metrics.
    var controlFrames = HTTP2ControlFrameTally()
    /// Streams with queued DATA, in round-robin order.
    var scheduledStreams: [UInt32] = []

    // MARK: Shutdown
    /// The last-stream-id of the GOAWAY we sent, if any; streams above it are ignored.
    var goawayLastStreamID: UInt32?
    var goawayReceived = false

    /// A connection with `configuration`'s limits; our SETTINGS (and the connection WINDOW_UPDATE
    /// when the configured window exceeds 65,535) are queued as the first output.
    public init(configuration: HTTP2Configuration = HTTP2Configuration()) {
        let configuration = configuration.clamped
        self.configuration = configuration
        maxConcurrentStreams = configuration.maxConcurrentStreams
        frameDecoder = HTTP2FrameDecoder(maxFrameSize: configuration.maxFrameSize)
        headerDecoder = HPACKDecoder(maxHeaderListSize: configuration.maxHeaderListSize)
        receiveWindow = HTTP2FlowControlWindow(configuration.connectionWindowSize)
        floodGuard = HTTP2FloodGuard(
            controlBudget: configuration.controlFrameBudget, resetBudget: configuration.streamResetBudget)
        let settings = [
            HTTP2Setting(.maxConcurrentStreams, UInt32(configuration.maxConcurrentStreams)),
            HTTP2Setting(.initialWindowSize, UInt32(configuration.initialWindowSize)),
            HTTP2Setting(.maxFrameSize, UInt32(configuration.maxFrameSize)),
            HTTP2Setting(.maxHeaderListSize, UInt32(configuration.maxHeaderListSize)),
        ]
        HTTP2Frame(streamID: 0, payload: .settings(settings)).encode(into: &controlOutput)
        unacknowledgedSettings.append(settings)
        let extra = configuration.connectionWindowSize - HTTP2PeerSettings.defaultInitialWindowSize
        if extra > 0 {
            HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: UInt32(extra))).encode(into: &controlOutput)
        }
    }

    // MARK: - State queries

    /// Streams currently open or half-closed (they count against the concurrency limit).
    package var openStreamCount: Int { streams.count }

    /// True when nothing is in flight: no streams, no partial header block, no output waiting.
    /// The shell may apply its idle timeout (and then `sendGoaway`).
    package var isIdle: Bool { streams.isEmpty && pendingHeaderBlock == nil && controlOutput.isEmpty }

    /// True when the connection is finished: it failed or was aborted, or a GOAWAY went either way
    /// and the last stream completed, and all output has been taken. Close the socket once the
    /// bytes already returned by `nextOutput()` are written.
    package var canClose: Bool {
        guard controlOutput.isEmpty else { return false }
        if phase == .closed { return true }
        return (goawayLastStreamID != nil || goawayReceived) && streams.isEmpty && pendingHeaderBlock == nil
    }

    /// True when `nextOutput()` has bytes to return now.
    package var hasOutput: Bool {
        if !controlOutput.isEmpty { return true }
        guard phase != .closed else { return false }
        return scheduledStreams.contains { id in
            // One read of the stream: each read through the table copies it (there is no borrowing
            // accessor on a dictionary's values), retaining its body and queued output.
            guard let stream = streams[id], stream.hasPendingData else { return false }
            return stream.bufferedBytes == 0
                || (stream.sendWindow.available > 0 && sendWindow.available > 0)
        }
    }

    /// Response bytes queued on `streamID` and not yet handed out, for detecting slow readers.
    package func bufferedBytes(streamID: UInt32) -> Int { streams[streamID]?.bufferedBytes ?? 0 }

    // MARK: - Output

    /// The next bytes to write, or nil when there is nothing to send now. Control frames come
    /// first, then DATA frames round-robin across streams while windows allow, up to about
    /// `outputChunkSize` bytes. Call again while it returns bytes and the socket takes them.
    public mutating func nextOutput() -> [UInt8]? {
        var output: [UInt8] = []
        swap(&output, &controlOutput)
        if phase != .closed {
            scheduleData(into: &output)
        }
        // RST_STREAM(NO_ERROR) frames queued by streams that just ended go after their last DATA.
        output.append(contentsOf: controlOutput)
        controlOutput.removeAll(keepingCapacity: true)
        return output.isEmpty ? nil : output
    }

    /// Appends DATA frames, one per stream per turn, until a full turn sends nothing or the chunk
    /// is full.
    private mutating func scheduleData(into output: inout [UInt8]) {
        var idleTurns = 0
        while !scheduledStreams.isEmpty, idleTurns < scheduledStreams.count,
            output.count < configuration.outputChunkSize
        {
            let id = scheduledStreams.removeFirst()
            guard streams[id] != nil else { continue }
            let frame = streams[id]?.emitDataFrame(
                connectionWindow: sendWindow.available, maxFrameSize: peerSettings.maxFrameSize, into: &output)
            if let frame {
                idleTurns = 0
                sendWindow.consume(frame.length)
                if frame.length > 0 { floodGuard.creditDataFrameSent() }
                if frame.endStream {
                    finishLocalSide(id)
                    continue
                }
            } else {
                idleTurns += 1
            }
            if streams[id]?.hasPendingData == true {
                scheduledStreams.append(id)
            } else {
                streams[id]?.isScheduled = false
            }
        }
    }
}
