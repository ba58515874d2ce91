import RelayCore
import RelayJSON
import RelayServer
import XCTest

/// `console.templates` in the config file: a good template is served as written; a bad one stops
/// the start with one line naming its key path.
final class ConsoleTemplateConfigTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    private func parse(_ text: String) throws -> RelayConfiguration {
        try scratch.write("relay.json", text)
        return try RelayConfiguration.parse(arguments: ["--config", "relay.json"], workingDirectory: scratch.path)
    }

    func testAGoodTemplateIsKeptAsWritten() throws {
        let template =
            #"{"title": {"key": "attributes.orderNumber", "label": "Order"}, "lockScreen": [{"key": "status"}, "#
            + #"{"key": "eta", "kind": "relativeDate"}, {"key": "progress", "kind": "progress"}], "#
            + #""compactLeading": {"key": "status"}, "compactTrailing": {"key": "eta", "kind": "timer"}, "#
            + #""minimal": {"key": "progress", "kind": "progress"}, "expanded": [{"key": "driver", "suffix": "!"}]}"#
        let configuration = try parse(#"{"console": {"templates": {"PizzaDeliveryAttributes": "# + template + "}}}")
        XCTAssertEqual(
            configuration.console.templates["PizzaDeliveryAttributes"],
            try JSONValue(parsing: Array(template.utf8)))
        XCTAssertEqual(try parse("{}").console, ConsoleSettings())
        XCTAssertEqual(try parse(#"{"console": {}}"#).console.templates, [:])
    }

    func testBadTemplatesNameTheirPath() throws {
        let cases = [
            (
                #"{"console": {"templates": {"T": {"lockScreen": [{"key": "a"}, {"key": "b", "kind": "html"}]}}}}"#,
                #"console.templates.T.lockScreen[1].kind: must be text, number, progress, relativeDate, timer (found string "html")"#
            ),
            (
                #"{"console": {"templates": {"T": {"lockscreen": []}}}}"#,
                "console.templates.T.lockscreen: is not a known key (known: compactLeading, compactTrailing, expanded, "
                    + "lockScreen, minimal, title) (found array of 0)"
            ),
            (
                #"{"console": {"templates": {"T": {"title": {"label": "x"}}}}}"#,
                "console.templates.T.title.key: is required (a content-state member or attributes.<name>) (missing)"
            ),
            (
                #"{"console": {"templates": {"T": {"minimal": {"key": "a", "color": "red"}}}}}"#,
                #"console.templates.T.minimal.color: is not a known key (known: key, kind, label, suffix) (found string "red")"#
            ),
            (
                #"{"console": {"templates": {"T": {"expanded": {"key": "a"}}}}}"#,
                #"console.templates.T.expanded: must be an array (found object of 1 keys)"#
            ),
            (
                #"{"console": {"templates": {"T": 3}}}"#,
                "console.templates.T: must be an object (found number 3)"
            ),
            (
                #"{"console": {"template": {}}}"#,
                "console.template: is not a known key (known: templates) (found object of 0 keys)"
            ),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try parse(text)) { error in
                XCTAssertEqual((error as? ConfigurationError)?.message, message, text)
            }
        }
        let many = (0..<17).map { #"{"key": "k\#($0)"}"# }.joined(separator: ", ")
        XCTAssertThrowsError(try parse(#"{"console": {"templates": {"T": {"lockScreen": [\#(many)]}}}}"#)) { error in
            XCTAssertEqual(
                (error as? ConfigurationError)?.message,
                "console.templates.T.lockScreen: must have at most 16 elements (found array of 17)")
        }
    }
}
