/// The relay's virtual clock as a pure value: where virtual time stood at one real instant, and
/// how fast it has run since.
///
/// Virtual time at real time `r` is `virtualAnchor + (r - realAnchor) * rate`. Every change first
/// re-anchors at the current reading, so time already passed is never rewritten; a change that
/// would move the clock backwards is refused. A new clock has rate 0: it stands still until moved.
/// The shell that owns the clock reads the real time and persists the value (it is `Codable`).
package struct VirtualClock: Sendable, Hashable, Codable {
    /// The latest time the clock may show, 9999-12-31T23:59:59Z, so every reading stays a
    /// sensible calendar date and converts to whole milliseconds without overflow.
    package static let latestTime: UnixSeconds = 253_402_300_799

    /// The real time at which the clock was last anchored.
    package private(set) var realAnchor: UnixSeconds
    /// The virtual time the clock showed at `realAnchor`.
    package private(set) var virtualAnchor: UnixSeconds
    /// Virtual seconds per real second: 0 stands still, 1 runs in real time, 60 runs a minute a second.
    package private(set) var rate: Double

    /// A clock that shows `virtual` at real time `real` and stands still (rate 0). Values outside
    /// the clock's range are clamped into `0...latestTime`.
    package init(showing virtual: UnixSeconds, atReal real: UnixSeconds) {
        realAnchor = real.isFinite ? real : 0
        virtualAnchor = virtual.isFinite ? min(max(virtual, 0), Self.latestTime) : 0
        rate = 0
    }

    /// A clock that starts at the real time `real`, as a data dir's first start does, and stands still.
    package init(startingAt real: UnixSeconds) {
        self.init(showing: real, atReal: real)
    }

    /// The virtual time at real time `real`. A real clock that stepped back before the anchor
    /// reads as the anchor, so the virtual clock never runs backwards.
    package func now(real: UnixSeconds) -> UnixSeconds {
        guard rate > 0, real > realAnchor else { return virtualAnchor }
        return min(virtualAnchor + (real - realAnchor) * rate, Self.latestTime)
    }

    /// Moves the clock forward by `seconds` (finite, not negative) from its reading at `real`.
    package mutating func advance(by seconds: Double, real: UnixSeconds) throws(ClockError) {
        guard seconds.isFinite, seconds >= 0 else { throw .invalidAdvance(seconds: seconds) }
        let current = now(real: real)
        let target = current + seconds
        guard target <= Self.latestTime else { throw .outOfRange(requested: target) }
        anchor(virtual: target, real: real)
    }

    /// Sets the clock to `time`, which must not be earlier than its reading at `real`.
    package mutating func set(_ time: UnixSeconds, real: UnixSeconds) throws(ClockError) {
        guard time.isFinite, time <= Self.latestTime else { throw .outOfRange(requested: time) }
        let current = now(real: real)
        guard time >= current else { throw .backwards(now: current, requested: time) }
        anchor(virtual: time, real: real)
    }

    /// Changes how fast the clock runs from real time `real` on; time already passed keeps its rate.
    package mutating func setRate(_ newRate: Double, real: UnixSeconds) throws(ClockError) {
        guard newRate.isFinite, newRate >= 0 else { throw .invalidRate(newRate) }
        anchor(virtual: now(real: real), real: real)
        rate = newRate
    }

    private mutating func anchor(virtual: UnixSeconds, real: UnixSeconds) {
        virtualAnchor = virtual
        // Never move the real anchor back: a stepped-back real clock would otherwise replay time.
        if real.isFinite && real > realAnchor { realAnchor = real }
    }
}

// MARK: - Codable

extension VirtualClock {
    private enum CodingKeys: String, CodingKey {
        case realAnchor, virtualAnchor, rate
    }

    /// Decodes a stored clock, refusing values no sequence of changes could have produced.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        realAnchor = try container.decode(UnixSeconds.self, forKey: .realAnchor)
        virtualAnchor = try container.decode(UnixSeconds.self, forKey: .virtualAnchor)
        rate = try container.decode(Double.self, forKey: .rate)
        guard realAnchor.isFinite, virtualAnchor.isFinite, virtualAnchor <= Self.latestTime else {
            throw DecodingError.dataCorruptedError(
                forKey: .virtualAnchor, in: container, debugDescription: "clock anchors must be finite and in range")
        }
        guard rate.isFinite, rate >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .rate, in: container, debugDescription: "clock rate must be finite and not negative")
        }
    }
}
