/// One line of what the relay says about a push (its record's `hint`, an error's `message`),
/// kept as what it says and written out only when read.
///
/// The emulator notes these while it holds its lock; the push log and the event stream read them
/// afterwards. The common notes quote a date, and formatting it (and joining the lines) under the
/// lock cost more than the rest of the note, so they are kept as their parts.
package enum PushNote: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    /// A note already written.
    case text(String)
    /// `activity ID ended at DATE; its token is no longer valid` (`410 Unregistered`).
    case activityEnded(id: String, at: UnixSeconds)
    /// An update held back: for the budget (`the priority-10 update budget is spent`) or as a
    /// low-priority one (`priority 5 is applied opportunistically`), `; held until DATE`, and
    /// `; it replaces an earlier held update` when it took the place of one.
    case held(forBudget: Bool, until: UnixSeconds, replacing: Bool)

    package init(stringLiteral value: String) { self = .text(value) }

    package init(stringInterpolation: DefaultStringInterpolation) {
        self = .text(String(stringInterpolation: stringInterpolation))
    }

    /// The note as people read it.
    package var text: String {
        switch self {
        case .text(let text):
            return text
        case .activityEnded(let id, let at):
            return String.joined("activity ", id, " ended at ", UTCDate.format(at), "; its token is no longer valid")
        case .held(let forBudget, let until, let replacing):
            let why = forBudget ? "the priority-10 update budget is spent" : "priority 5 is applied opportunistically"
            let merged = replacing ? "; it replaces an earlier held update" : ""
            return String.joined(why, "; held until ", UTCDate.format(until), merged)
        }
    }
}

/// A push's notes, read as one hint: the lines joined with `; `, or nil when there are none.
/// Equal when they read the same, however they are kept.
struct PushHint: Sendable, Hashable {
    var notes: [PushNote]

    init(_ notes: [PushNote]) { self.notes = notes }

    /// A hint already written (nil: none).
    init(_ text: String?) { notes = text.map { [.text($0)] } ?? [] }

    var text: String? {
        switch notes.count {
        case 0: return nil
        case 1: return notes[0].text
        default: return notes.map(\.text).joined(separator: "; ")
        }
    }

    static func == (left: PushHint, right: PushHint) -> Bool { left.text == right.text }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
