public import RelayJSON

/// Turns request body bytes into JSON for the APNs rules.
///
/// The rules take the parser as an argument so that parsing happens only after the cheap checks
/// (size, emptiness) passed, and so that RelayCore's APNs rules do not fix which parser the server
/// uses. The server passes `{ try JSONValue(parsing: $0) }`; any thrown error is reported to the
/// sender as `BadRequestPayload` with the error's description.
public typealias APNsBodyParser = (_ bytes: [UInt8]) throws -> JSONValue
