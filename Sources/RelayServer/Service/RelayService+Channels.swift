import RelayCore
import RelayNet
import RelayStore

/// Broadcast channels and broadcasts, in either store: on the process's emulator (SQLite mode,
/// one command and one commit each), or cluster-wide (`ClusterStore+Channels`,
/// `ClusterStore+Broadcast`). In cluster mode each must be called on an event loop, where its
/// completion runs too.
extension RelayService {
    /// Creates a channel of `bundleId` (`400 CannotCreateChannelConfig` past the per-app cap).
    func createChannel(
        bundleId: String, policy: MessageStoragePolicy,
        completion: @escaping @Sendable (Result<Result<EmulatedChannel, APNsError>, StoreError>) -> Void
    ) {
        guard let cluster else {
            return perform(
                { emulator, now in emulator.createChannel(bundleId: bundleId, policy: policy, at: now) },
                completion: completion)
        }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.createChannel(bundleId: bundleId, policy: policy, on: loop, completion: completion)
    }

    /// Channel `id` of `bundleId`, or `400 ChannelNotRegistered`.
    func channel(
        _ id: String, bundleId: String,
        completion: @escaping @Sendable (Result<Result<EmulatedChannel, APNsError>, StoreError>) -> Void
    ) {
        let query: @Sendable (DeviceEmulator) -> Result<EmulatedChannel, APNsError> = {
            $0.channel(id, bundleId: bundleId)
        }
        guard let cluster else { return completion(.success(read(query))) }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.readChannel(id, on: loop, query, completion: completion)
    }

    /// Deletes channel `id` of `bundleId`.
    func deleteChannel(
        _ id: String, bundleId: String,
        completion: @escaping @Sendable (Result<Result<Void, APNsError>, StoreError>) -> Void
    ) {
        guard let cluster else {
            return perform(
                { emulator, now in emulator.deleteChannel(id, bundleId: bundleId, at: now) }, completion: completion)
        }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.deleteChannel(id, bundleId: bundleId, on: loop, completion: completion)
    }

    /// The ids of `bundleId`'s channels, sorted.
    func channelIDs(bundleId: String, completion: @escaping @Sendable (Result<[String], StoreError>) -> Void) {
        guard let cluster else { return completion(.success(read { $0.channelIDs(bundleId: bundleId) })) }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.channelIDs(bundleId: bundleId, on: loop, completion: completion)
    }

    /// A broadcast that passed validation is delivered to its channel's subscribers; one that
    /// failed is recorded as refused (under `channelId` and `bundleId` when known).
    func broadcast(
        _ validated: Result<BroadcastPushRequest, APNsError>, channelId: String?, bundleId: String?,
        context: PushContext, completion: @escaping @Sendable (Result<PushResult, StoreError>) -> Void
    ) {
        if let cluster {
            guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
            switch validated {
            case .success(let push):
                return cluster.broadcast(push, context: context, on: loop, completion: completion)
            case .failure(let error):
                return cluster.recordUnowned(on: loop, completion: completion) { emulator, now in
                    emulator.recordRefusal(
                        error, token: nil, channelId: channelId, bundleId: bundleId, context: context, at: now)
                }
            }
        }
        perform(
            in: .none,
            { emulator, now -> PushResult in
                switch validated {
                case .success(let push):
                    return emulator.deliverBroadcast(push, context: context, at: now)
                case .failure(let error):
                    return emulator.recordRefusal(
                        error, token: nil, channelId: channelId, bundleId: bundleId, context: context, at: now)
                }
            }, completion: completion)
    }

    /// `perform(in:_:completion:)` for a command that may start an activity on `channel`: cluster
    /// mode lends the command the channel, kept in its own slot, and indexes the device as
    /// its subscriber (`ClusterStore.perform(in:joining:)`).
    func perform<T: Sendable>(
        in scope: StateScope, joining channel: JoinedChannel?,
        _ command: @escaping @Sendable (inout DeviceEmulator, UnixSeconds) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        guard let cluster, let channel else { return perform(in: scope, command, completion: completion) }
        guard let loop = EventLoop.current else { return completion(.failure(Self.offLoop)) }
        cluster.perform(in: scope, joining: channel, on: loop, command, completion: completion)
    }
}
