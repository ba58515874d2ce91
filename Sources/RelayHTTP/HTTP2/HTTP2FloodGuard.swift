/// Flood and rapid-reset protection without a clock: budgets of unproductive work that only
/// productive work earns back.
///
/// Every frame that makes us work or answer without moving a request forward (PING, SETTINGS,
/// PRIORITY, WINDOW_UPDATE, RST_STREAM, empty DATA or CONTINUATION, unknown types, frames we must
/// answer with RST_STREAM) costs one from the control budget. Every stream the peer resets before
/// our response is complete costs one from the reset budget (CVE-2023-44487). Completed responses
/// and DATA frames we send earn credit back, up to the full budget. A well-behaved client stays
/// near full budget; a flood drains it and the connection ends with ENHANCE_YOUR_CALM.
struct HTTP2FloodGuard: Sendable {
    /// What a completed response earns back in the control budget: enough for a client that
    /// sends a couple of control frames per request.
    static let controlCreditPerResponse = 4

    private let controlBudget: Int
    private let resetBudget: Int
    private(set) var controlBalance: Int
    private(set) var resetBalance: Int

    init(controlBudget: Int, resetBudget: Int) {
        self.controlBudget = max(controlBudget, 1)
        self.resetBudget = max(resetBudget, 1)
        controlBalance = self.controlBudget
        resetBalance = self.resetBudget
    }

    /// Charges one unproductive frame; false once the budget is spent.
    mutating func chargeControlFrame() -> Bool {
        controlBalance -= 1
        return controlBalance > 0
    }

    /// Charges one stream reset by the peer before its response completed; false once spent.
    mutating func chargeReset() -> Bool {
        resetBalance -= 1
        return resetBalance > 0
    }

    /// Credits a response we completed.
    mutating func creditCompletedResponse() {
        controlBalance = min(controlBalance + Self.controlCreditPerResponse, controlBudget)
        resetBalance = min(resetBalance + 1, resetBudget)
    }

    /// What a non-empty DATA frame we send earns back: clients may answer each with a stream and
    /// a connection WINDOW_UPDATE.
    static let controlCreditPerDataFrame = 2

    /// Credits a non-empty DATA frame we sent.
    mutating func creditDataFrameSent() {
        controlBalance = min(controlBalance + Self.controlCreditPerDataFrame, controlBudget)
    }
}
