extension String {
    /// The pieces one after another, in a string allocated once at its final size. An
    /// interpolation sizes its buffer from its literals and grows it again for an ID or a date, and
    /// every push that is held back or refused builds a message like that.
    static func joined(
        _ first: String, _ second: String, _ third: String = "", _ fourth: String = "", _ fifth: String = ""
    ) -> String {
        var result = String()
        result.reserveCapacity(
            first.utf8.count + second.utf8.count + third.utf8.count + fourth.utf8.count + fifth.utf8.count)
        result.append(first)
        result.append(second)
        result.append(third)
        result.append(fourth)
        result.append(fifth)
        return result
    }
}
