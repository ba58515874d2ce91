import RelayCore
package import RelayJSON

/// The browser console's settings (config object `console`): per-`attributesType` templates that
/// say what each presentation of an activity shows, as a widget's SwiftUI views would.
///
/// ```json
/// "console": {"templates": {"PizzaDeliveryAttributes": {
///   "title": {"key": "attributes.orderNumber", "label": "Order"},
///   "lockScreen": [{"key": "status"}, {"key": "eta", "label": "Arrives", "kind": "relativeDate"},
///                  {"key": "progress", "kind": "progress"}],
///   "compactLeading": {"key": "status"}, "compactTrailing": {"key": "eta", "kind": "timer"},
///   "minimal": {"key": "progress", "kind": "progress"}, "expanded": [{"key": "driver", "label": "Driver"}]}}}
/// ```
///
/// A field's `key` names a content-state member, or `attributes.<name>` a static attribute; `kind`
/// is how its value shows (`text`, the default; `number`; `progress` for 0...1; `relativeDate`
/// and `timer` for Unix seconds); `label` and `suffix` are optional text. Presentations left out
/// fall back to the console's generic layout. Templates are checked when the config is read, and
/// the page renders every value as text.
public struct ConsoleSettings: Sendable, Hashable {
    /// The templates by attributes type, as validated (what `GET /console/templates` answers).
    package var templates: JSONObject = [:]

    /// No templates: every activity gets the generic layout.
    public init() {}

    /// The config keys, as written in the `console` object.
    static let keys: Set<String> = ["templates"]
    /// A template's presentations: one field each, or (the lists) up to `maxFields` fields.
    static let singleFields: Set<String> = ["title", "compactLeading", "compactTrailing", "minimal"]
    static let fieldLists: Set<String> = ["lockScreen", "expanded"]
    /// The members of one field.
    static let fieldKeys: Set<String> = ["key", "label", "kind", "suffix"]
    /// How a field's value may show.
    static let kinds = ["text", "number", "progress", "relativeDate", "timer"]
    static let maxTemplates = 1000
    static let maxFields = 16
    static let maxTextLength = 200

    /// Reads the `console` object; errors name the key path (`console.templates.X.lockScreen[1].kind`).
    init(fields: ConfigFields) throws(JSONFieldError) {
        try fields.rejectUnknown(Self.keys)
        self.init()
        guard let templates = try fields.object("templates") else { return }
        guard templates.members.count <= Self.maxTemplates else {
            throw fields.error("templates", "must have at most \(Self.maxTemplates) attributes types")
        }
        for type in templates.members.keys {
            guard !type.isEmpty, type.utf8.count <= Self.maxTextLength else {
                throw templates.error(type, "must be keyed by an attributes type of 1 to \(Self.maxTextLength) bytes")
            }
            let template = try templates.requireObject(type)
            try template.rejectUnknown(Self.singleFields.union(Self.fieldLists))
            for name in Self.singleFields {
                if let field = try template.object(name) { try Self.checkField(field) }
            }
            for name in Self.fieldLists {
                guard let list = try template.array(name, limit: Self.maxFields) else { continue }
                for (index, element) in list.enumerated() {
                    try Self.checkField(try JSONFields(element, path: template.keyPath(name) + "[\(index)]"))
                }
            }
        }
        self.templates = templates.members
    }

    /// One field: `key` required, `label` and `suffix` short text, `kind` one of `kinds`.
    private static func checkField(_ field: ConfigFields) throws(JSONFieldError) {
        try field.rejectUnknown(fieldKeys)
        let key = try field.requireString("key", "a content-state member or attributes.<name>")
        guard key.utf8.count <= maxTextLength, key != "attributes." else {
            throw field.error("key", "must name a content-state member or attributes.<name>")
        }
        for name in ["label", "suffix"] {
            if let text = try field.string(name), text.utf8.count > maxTextLength {
                throw field.error(name, "must be at most \(maxTextLength) bytes")
            }
        }
        _ = try field.parsed("kind", kinds.joined(separator: ", ")) { kinds.contains($0) ? $0 : nil }
    }
}
