import RelayJSON
import XCTest

@testable import RelayCore

/// Every form of `LoggedHeaders` writes the object it stands for, and only that.
final class LoggedHeadersTests: XCTestCase {
    private let fields: [(name: String, value: String)] = [
        ("apns-topic", "com.example.app.push-type.liveactivity"), ("authorization", "bearer secret.jwt.value"),
        ("apns-priority", "10"), ("x-quote", "say \"hi\"\n"),
    ]

    private func written(_ headers: LoggedHeaders) throws -> JSONValue {
        var out = JSONOutput(capacity: 64)
        headers.write(to: &out)
        return try JSONValue(parsing: out.bytes())
    }

    /// Fields are written as the JSON object they stand for, escaping included.
    func testFieldsWriteTheSameObject() throws {
        let headers = LoggedHeaders.fields([
            (name: "apns-topic", value: "com.example.app"), (name: "x-quote", value: "a \"b\" \\ é\n"),
            (name: "authorization", value: "(redacted)"),
        ])
        var out = JSONOutput()
        headers.write(to: &out)
        let written = String(decoding: out.bytes(), as: UTF8.self)
        XCTAssertEqual(try JSONValue(parsing: written), .object(headers.object))
        XCTAssertEqual(
            headers, ["apns-topic": "com.example.app", "x-quote": "a \"b\" \\ é\n", "authorization": "(redacted)"])
        var empty = JSONOutput()
        LoggedHeaders.fields([]).write(to: &empty)
        let emptyBytes = empty.bytes()
        XCTAssertEqual(emptyBytes, Array("{}".utf8))
    }

    func testTheSharedFieldsWriteTheRedactedObject() throws {
        let shared = LoggedHeaders.redacting(fields, authorization: "bearer (redacted; kid=K)")
        let expected: JSONObject = [
            "apns-topic": "com.example.app.push-type.liveactivity", "authorization": "bearer (redacted; kid=K)",
            "apns-priority": "10", "x-quote": "say \"hi\"\n",
        ]
        XCTAssertEqual(shared.object, expected)
        XCTAssertEqual(try written(shared), .object(expected))
        XCTAssertEqual(shared, .object(expected))
        XCTAssertEqual(shared.hashValue, LoggedHeaders.object(expected).hashValue)
        var out = JSONOutput(capacity: 64)
        shared.write(to: &out)
        let text = String(decoding: out.bytes(), as: UTF8.self)
        XCTAssertFalse(text.contains("secret"))
    }

    func testEveryFormWritesWhatItsObjectSays() throws {
        let redacted = fields.map { (name: $0.name, value: $0.name == "authorization" ? "(redacted)" : $0.value) }
        let forms: [LoggedHeaders] = [
            .fields(redacted), .redacting(fields, authorization: "(redacted)"),
            .object(JSONObject(members: redacted.map { (key: $0.name, value: .string($0.value)) })),
        ]
        for form in forms {
            XCTAssertEqual(try written(form), .object(form.object), "\(form)")
            XCTAssertEqual(form, forms[0])
        }
        // A name that only resembles `authorization` keeps its value.
        let lookalike = LoggedHeaders.redacting(
            [("authorizations", "kept"), ("authorizatio", "kept")], authorization: "x")
        XCTAssertEqual(lookalike.object, ["authorizations": "kept", "authorizatio": "kept"])
    }
}
