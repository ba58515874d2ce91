import CRelayLinux
import Glibc

// MARK: - Reading

extension Connection {
    /// Reads at most `maxReadBytesPerPass` bytes and feeds them through TLS. Level-triggered epoll reports
    /// the socket again next pass if more is waiting, which is what makes the bound fair and safe.
    func readFromSocket() {
        var budget = limits.maxReadBytesPerPass
        let buffer = loop.ioBuffer
        while budget > 0 && !readPaused && !peerFinishedSending && phase != .closed {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(limits.readChunkSize, budget)])
            let result: IOResult
            do {
                result = try socket.read(into: chunk)
            } catch {
                close(error: error)
                return
            }
            switch result {
            case .wouldBlock:
                budget = 0
            case .processed(0):
                peerClosedInput()
                return
            case .processed(let count):
                budget -= count
                // The shared buffer is free again once the engine has copied the bytes.
                engine.receive(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                processInput()
            }
        }
        if phase != .closed { engine.releaseIdleBuffers() }
    }

    /// Drives the handshake and then decrypts application data already held by the engine.
    func processInput() {
        if phase == .handshaking { advanceHandshake() }
        if phase == .open || phase == .closingAfterFlush { readApplicationData() }
        guard phase != .closed else { return }
        if engine.pendingCiphertext > 0 || (writeWaitsForInput && plaintextStart < plaintext.count) {
            scheduleFlush()  // handshake replies, tickets, alerts, or a write that waited for this input
        }
    }

    private func advanceHandshake() {
        for _ in 0..<8 {  // `.needsOutputDrained` can repeat; memory BIOs make it vanishingly rare
            switch engine.handshake() {
            case .complete:
                handshakeCompleted()
                return
            case .needsInput:
                return
            case .needsOutputDrained:
                if !sendCiphertext() { return waitForOutputDrain() }
            case .failed(let error):
                close(error: error)
                return
            }
        }
    }

    /// OpenSSL wants its output gone before it reads on, and the socket is full: resume input processing
    /// from `flushAtEndOfPass` once EPOLLOUT has let the ciphertext out.
    private func waitForOutputDrain() {
        guard phase != .closed else { return }
        inputWaitsForOutput = true
        scheduleFlush()
    }

    private func handshakeCompleted() {
        if let handshakeTimer {
            loop.cancel(handshakeTimer)
            self.handshakeTimer = nil
        }
        phase = .open
        alpnProtocol = engine.alpnProtocol
        tlsVersion = engine.protocolVersion
        peerCertificateDER = engine.peerCertificateDER()
        let handler = makeHandler()
        self.handler = handler
        handler.connectionReady(self)
    }

    /// Decrypts until the engine needs more input, delivering one batch per shared-buffer fill. While
    /// closing after flush the bytes are decrypted (so close_notify is seen) and dropped.
    private func readApplicationData() {
        let buffer = loop.plaintextBuffer
        var filled = 0
        func deliver() {
            guard filled > 0 else { return }
            let bytes = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
            filled = 0
            if phase == .open { handler?.connection(self, received: bytes) }
        }
        while phase == .open || phase == .closingAfterFlush {
            if readPaused && phase == .open { break }  // resumed by `resumeReading`, data stays in the engine
            switch engine.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
            case .bytes(let count):
                filled += count
                if filled == buffer.count { deliver() }
            case .needsInput:
                deliver()
                return
            case .needsOutputDrained:
                deliver()
                if !sendCiphertext() { return waitForOutputDrain() }
            case .closed:
                deliver()
                peerSentCloseNotify()
                return
            case .failed(let error):
                deliver()
                close(error: error)
                return
            }
        }
        deliver()
    }

    private func peerSentCloseNotify() {
        guard phase != .closed else { return }
        if pendingWriteBytes == 0 { close(error: nil) } else { phase = .closingAfterFlush }
    }

    /// The peer shut its side (recv returned 0): nothing more will arrive, so stop watching for input and
    /// close once pending output is out.
    private func peerClosedInput() {
        peerFinishedSending = true
        if phase == .handshaking {
            close(
                error: TLSError(operation: "TLS handshake", reason: "peer closed the connection during the handshake"))
            return
        }
        if pendingWriteBytes == 0 {
            close(error: nil)
        } else {
            if phase == .open { phase = .closingAfterFlush }
            updateInterest()
        }
    }

    /// Re-enables reading after backpressure, first consuming whatever the engine already holds (the socket
    /// may have nothing new, so level-triggered epoll would not report it).
    func resumeReading() {
        readPaused = false
        processInput()
        if phase != .closed { updateInterest() }
    }
}

// MARK: - Writing

extension Connection: LoopFlushable {
    /// Asks the loop to call `flushAtEndOfPass` once this pass's callbacks are done.
    func scheduleFlush() {
        guard !flushScheduled, phase != .closed else { return }
        flushScheduled = true
        loop.flushAtEndOfPass(self)
    }

    /// Encrypts buffered plaintext and sends as much ciphertext as the kernel takes; watches EPOLLOUT for
    /// the rest. Finishes a `closeAfterFlush` once everything is out.
    func flushAtEndOfPass() {
        flushScheduled = false
        guard phase != .closed else { return }
        encryptPlaintext()
        guard phase != .closed else { return }
        let drained = sendCiphertext()
        guard phase != .closed else { return }
        if drained && inputWaitsForOutput {
            inputWaitsForOutput = false
            processInput()
            guard phase != .closed else { return }
        }
        if drained && pendingWriteBytes == 0 {
            engine.releaseIdleBuffers()
            if plaintext.capacity > 16 * 1024 { plaintext = [] }  // do not hold a burst's buffer while idle
            if phase == .closingAfterFlush {
                close(error: nil)
                return
            }
        }
        if !writable && pendingWriteBytes < limits.writeLowWaterMark {
            writable = true
            handler?.connectionWritable(self)
            guard phase != .closed else { return }
            resumeReading()
            return
        }
        updateInterest()
    }

    /// Feeds buffered plaintext to SSL_write in record-sized steps.
    func encryptPlaintext() {
        while plaintextStart < plaintext.count && (phase == .open || phase == .closingAfterFlush) {
            let step = min(plaintext.count - plaintextStart, 16 * 1024)
            let result = plaintext.withUnsafeBytes {
                engine.write(UnsafeRawBufferPointer(rebasing: $0[plaintextStart..<plaintextStart + step]))
            }
            switch result {
            case .accepted(let count):
                plaintextStart += count
                writeWaitsForInput = false
            case .needsInput:
                writeWaitsForInput = true  // retried by `processInput` when the peer's bytes arrive
                return
            case .needsOutputDrained:
                if !sendCiphertext() { return }
            case .failed(let error):
                close(error: error)
                return
            }
        }
        if plaintextStart == plaintext.count {
            plaintext.removeAll(keepingCapacity: true)
            plaintextStart = 0
        }
    }

    /// Sends the engine's ciphertext straight from its memory BIO; true when nothing is left.
    @discardableResult
    func sendCiphertext() -> Bool {
        while engine.pendingCiphertext > 0 {
            let result: IOResult
            do {
                result = try engine.withPendingCiphertext { pending throws(SystemError) in try socket.write(pending) }
            } catch {
                close(error: error)
                return false
            }
            switch result {
            case .processed(let written):
                engine.discardCiphertext(written, scratch: loop.ioBuffer)
            case .wouldBlock:
                return false
            }
        }
        return true
    }

    /// Syncs the epoll mask with what the connection waits for: input unless paused or finished, output
    /// only while ciphertext is stuck in the engine.
    func updateInterest() {
        guard let registration, phase != .closed else { return }
        readPaused = readPaused || !writable
        var events: UInt32 = 0
        if !readPaused && !peerFinishedSending { events |= relay_EPOLLIN }
        if engine.pendingCiphertext > 0 { events |= relay_EPOLLOUT }
        guard events != registeredEvents else { return }
        do {
            try loop.modify(registration, events: events)
            registeredEvents = events
        } catch {
            close(error: error)
        }
    }
}
