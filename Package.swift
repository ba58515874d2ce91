// swift-tools-version:6.0
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode, warnings kept visible.
let common: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ActivityRelay",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "activity-relay", targets: ["activity-relay"]),
        .library(name: "RelayJSON", targets: ["RelayJSON"]),
        .library(name: "RelayCore", targets: ["RelayCore"]),
        .library(name: "RelayHTTP", targets: ["RelayHTTP"]),
        .library(name: "RelayNet", targets: ["RelayNet"]),
        .library(name: "RelayStore", targets: ["RelayStore"]),
        .library(name: "RelayRedis", targets: ["RelayRedis"]),
        .library(name: "RelayServer", targets: ["RelayServer"]),
    ],
    targets: [
        // System libraries: module.modulemap + shim.h only.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLZ4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(name: "CRelayLinux"),
        // The executable's allocator: its malloc replaces glibc's for the whole process (see README).
        .systemLibrary(name: "CJemalloc", providers: [.apt(["libjemalloc-dev"])]),

        // Pure layers: JSON, the domain over it, the HTTP codecs.
        .target(name: "RelayJSON", swiftSettings: common),
        .target(name: "RelayCore", dependencies: ["RelayJSON"], swiftSettings: common),
        .target(name: "RelayHTTP", swiftSettings: common),

        // Effects: sockets and TLS, SQLite (with LZ4 for the event log's data).
        .target(name: "RelayNet", dependencies: ["COpenSSL", "CRelayLinux"], swiftSettings: common),
        // Redis Cluster client: RESP3 over RelayNet's loops.
        .target(name: "RelayRedis", dependencies: ["RelayNet"], swiftSettings: common),
        .target(
            name: "RelayStore", dependencies: ["RelayCore", "CSQLite", "CLZ4", "CRelayLinux"], swiftSettings: common),

        // Wiring: routes, auth, fan-out.
        .target(
            name: "RelayServer",
            dependencies: ["RelayJSON", "RelayCore", "RelayHTTP", "RelayNet", "RelayRedis", "RelayStore"],
            // The browser console's files, compiled into the binary as byte arrays.
            resources: [.embedInCode("Console/Assets")],
            swiftSettings: common),
        .executableTarget(
            name: "activity-relay",
            dependencies: ["RelayServer", "CJemalloc"],
            swiftSettings: common),

        // Test support (test doubles, the child-process runner) for the test targets that import it.
        .target(name: "RelayTestKit", dependencies: ["RelayCore"], swiftSettings: common),

        .testTarget(name: "RelayJSONTests", dependencies: ["RelayJSON", "RelayTestKit"], swiftSettings: common),
        .testTarget(
            name: "RelayCoreTests", dependencies: ["RelayJSON", "RelayCore", "RelayTestKit"], exclude: ["Fixtures"],
            swiftSettings: common),
        .testTarget(
            name: "RelayHTTPTests", dependencies: ["RelayHTTP", "RelayTestKit"], exclude: ["Fixtures"],
            swiftSettings: common),
        .testTarget(
            name: "RelayNetTests", dependencies: ["RelayNet", "RelayTestKit", "COpenSSL"], exclude: ["Fixtures"],
            swiftSettings: common),
        .testTarget(
            name: "RelayRedisTests", dependencies: ["RelayRedis", "RelayNet", "RelayTestKit"], swiftSettings: common),
        .testTarget(
            name: "RelayStoreTests", dependencies: ["RelayStore"], exclude: ["Fixtures"],
            swiftSettings: common),
        .testTarget(
            name: "RelayServerTests",
            dependencies: [
                "RelayServer", "RelayTestKit", "RelayJSON", "RelayCore", "RelayHTTP", "RelayNet", "RelayRedis",
                "RelayStore",
            ],
            exclude: ["Fixtures"],
            swiftSettings: common),
    ]
)
