/// A header field as the HPACK tables key it: name and value, compared exactly (HTTP/2 names are lowercase).
package struct HPACKField: Hashable, Sendable {
    /// The field name.
    package var name: String
    /// The field value.
    package var value: String

    /// A field with `name` and `value`.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
