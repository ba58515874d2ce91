import RelayCore
import RelayHTTP
import RelayJSON
import Synchronization

/// The APNs-compatible provider API (CONTRACT §4), over HTTP/2 only:
///
/// - `POST /3/device/{token}`: Live Activity pushes (`+DevicePush`);
/// - `POST|GET|DELETE /1/apps/{bundleId}/channels`, `GET /1/apps/{bundleId}/all-channels`:
///   channel management (`+Channels`);
/// - `POST /4/broadcasts/apps/{bundleId}`: broadcast pushes (`+Broadcast`).
///
/// The group owns every path under `/1/`, `/3/` and `/4/`, so a mistyped provider path gets
/// APNs' `404 BadPath` rather than the app API's error shape. Over HTTP/1.1 every such request
/// is `505` with `{"reason": "HTTPVersionNotSupported"}` (APNs itself is HTTP/2 only and would
/// not even complete the connection).
///
/// Requests are checked on the connection's loop (RelayCore's rules plus the provider token),
/// then every push, accepted or refused, goes through `RelayService.perform` so that it is in
/// the push log before the answer is sent: a `200` is durable.
public struct ProviderRoutes: RouteGroup {
    let service: RelayService
    let authenticator: ProviderAuthenticator
    /// Refusals in a row after which the connection gets GOAWAY; 0 never.
    let refusalLimit: Int
    /// The apps with the Broadcast Capability (see `authorizeBroadcast`).
    let broadcastBundleIDs: AllowedBundleIDs
    /// Injected failures for device pushes (`/v1/faults`).
    let faults: FaultInjector

    /// The default of `refusalLimit`: Apple documents that APNs disconnects after "too many
    /// errors" without a number; 100 in a row is the relay's.
    public static let defaultRefusalLimit = 100

    /// The provider API over `service`, accepting tokens of `keyring`'s keys; channels and
    /// broadcasts only for the apps of `broadcastBundleIDs`; device pushes meet `faults`' rules.
    package init(
        service: RelayService, keyring: ProviderKeyring, refusalLimit: Int = defaultRefusalLimit,
        broadcastBundleIDs: AllowedBundleIDs = .any, faults: FaultInjector = FaultInjector()
    ) {
        self.faults = faults
        self.service = service
        self.authenticator = ProviderAuthenticator(keyring: keyring, clock: service.clock)
        self.refusalLimit = max(0, refusalLimit)
        self.broadcastBundleIDs = broadcastBundleIDs
    }

    /// The authorization step of channel management and broadcasts: the provider token may push
    /// to `bundleID`, then the app has the Broadcast Capability (Apple's `400 FeatureNotEnabled`
    /// otherwise; the capability is switched on per App ID in the developer account, which the
    /// config key `broadcastBundleIds` stands in for).
    func authorizeBroadcast(
        _ authorization: String?, bundleID: String, context: ConnectionContext, token: inout ProviderToken?
    ) -> APNsError? {
        if let error = authenticator.authorizeApp(authorization, bundleID: bundleID, context: context, token: &token) {
            return error
        }
        guard broadcastBundleIDs.allows(bundleID) else {
            return APNsError(
                .featureNotEnabled,
                "\(bundleID) has no Broadcast Capability on this relay (config key broadcastBundleIds)")
        }
        return nil
    }

    public func owns(_ path: String) -> Bool {
        path.hasPrefix("/3/") || path.hasPrefix("/1/") || path.hasPrefix("/4/") || path == "/3" || path == "/1"
            || path == "/4"
    }

    public func handle(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        guard request.context.httpVersion == "h2" else {
            respondHTTP1(request, respond: respond)
            return
        }
        let path = request.request.path
        if path.hasPrefix("/1/") || path == "/1" {
            handleChannel(request, respond: respond)
        } else if path.hasPrefix("/4/") || path == "/4" {
            handleBroadcast(request, respond: respond)
        } else {
            handleDevicePush(request, respond: respond)
        }
    }

    /// `505 {"reason": "HTTPVersionNotSupported"}`: the provider API speaks HTTP/2 only.
    private func respondHTTP1(_ request: ServerRequest, respond: @escaping @Sendable (ServerResponse) -> Void) {
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        let body: JSONValue = [
            "reason": "HTTPVersionNotSupported",
            "message": "the provider API speaks HTTP/2 only, as APNs does; use an HTTP/2 client (curl --http2)",
        ]
        RelayLog.info(
            "provider.http1",
            [
                "conn": String(request.context.id), "method": request.request.method,
                "path": String(request.request.path.prefix(64)),
            ])
        respond(.full(HTTPResponse(status: 505, headers: headers, body: body.serialized())))
    }

    // MARK: - Shared by the handlers

    /// The request's headers as RelayCore's rules read them.
    static func fields(_ headers: HTTPHeaders) -> APNsHeaderFields {
        APNsHeaderFields(headers.fields.map { (name: $0.name, value: $0.value) })
    }

    /// Where generated identifiers come from: the system's secure random source.
    private static let ids = SecureIdentifiers()

    /// A fresh lowercase version-4 UUID for `apns-id`, `apns-unique-id` or `apns-request-id`.
    static func newID() -> String { ids.uuid() }

    /// The request's own identifier from `header` (`apns-id`, `apns-request-id`) when it is a
    /// valid UUID, echoed as sent; otherwise a new one, as APNs generates.
    static func identifier(_ header: String, in headers: APNsHeaderFields) -> String {
        headers[header].flatMap { try? APNsMessageID.parse($0, header: header).get().rawValue } ?? newID()
    }

    /// Counts a provider answer on its connection: a refusal (4xx other than 410, which Apple
    /// says "isn't considered an error condition") adds one, anything else starts over. At
    /// `refusalLimit` in a row the connection is closed with GOAWAY `{"reason": reason}`. Call it
    /// after `respond`: both hop to the connection's loop in order, so the answer leaves before
    /// the GOAWAY (clients such as python `h2` drop answers that arrive after one). Any thread.
    func count(status: Int, reason: APNsReason?, on context: ConnectionContext) {
        guard (400..<500).contains(status), status != 410 else {
            context.providerRefusalsInARow.store(0, ordering: .relaxed)
            return
        }
        let refusals = context.providerRefusalsInARow.add(1, ordering: .relaxed).newValue
        guard refusalLimit > 0, refusals >= refusalLimit else { return }
        context.providerRefusalsInARow.store(0, ordering: .relaxed)
        RelayLog.info(
            "provider.disconnect",
            ["conn": String(context.id), "refusals": String(refusals), "reason": reason?.rawValue ?? "-"])
        context.closeWithGoaway(reason: reason?.rawValue ?? APNsReason.badRequestParams.rawValue)
    }

    /// The body a request discarded as over the listener's limit stands in as `limit + 1`
    /// bytes, so RelayCore's size check answers `413 PayloadTooLarge` in its usual place.
    static func body(of request: ServerRequest, limit: Int) -> [UInt8] {
        request.bodyTooLarge ? [UInt8](repeating: UInt8(ascii: " "), count: limit + 1) : request.request.body
    }

    /// `error` with a message that does not pretend to know the size of a discarded body.
    static func sizeAware(_ error: APNsError, request: ServerRequest, limit: Int) -> APNsError {
        guard request.bodyTooLarge, error.reason == .payloadTooLarge else { return error }
        return APNsError(
            .payloadTooLarge, "the body is over the listener's body limit; the provider limit is \(limit) bytes")
    }
}
