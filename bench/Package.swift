// swift-tools-version:6.0
import PackageDescription

/// The settings every benchmark target shares, as the root package's targets do.
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Benchmarks live in their own package so that the relay itself never depends on them.
let package = Package(
    name: "ActivityRelayBench",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, so that the product reference below does not depend on the checkout's folder name.
        .package(name: "ActivityRelay", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "bench-stream",
            dependencies: [
                .product(name: "RelayServer", package: "ActivityRelay"),
                .product(name: "RelayNet", package: "ActivityRelay"),
                .product(name: "RelayHTTP", package: "ActivityRelay"),
                .product(name: "RelayJSON", package: "ActivityRelay"),
                .product(name: "RelayCore", package: "ActivityRelay"),
            ],
            swiftSettings: settings),
        .executableTarget(
            name: "bench-engine-server",
            dependencies: [
                .product(name: "RelayServer", package: "ActivityRelay"),
                .product(name: "RelayHTTP", package: "ActivityRelay"),
                .product(name: "RelayNet", package: "ActivityRelay"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]),
        // OpenSSL's own memory per idle session, measured without any server (C, links the system OpenSSL).
        .executableTarget(
            name: "bench-openssl-idle",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // The reads that scan the durable log (a filtered stream resumption, a push log search).
        .executableTarget(
            name: "bench-log-read",
            dependencies: [.product(name: "RelayStore", package: "ActivityRelay")],
            swiftSettings: settings),
        .executableTarget(
            name: "bench-json",
            dependencies: [.product(name: "RelayJSON", package: "ActivityRelay")],
            swiftSettings: settings),
        // Links jemalloc, as the relay's executable does (README, "Architecture"), so the core runs
        // on the allocator it runs on in the server.
        .executableTarget(
            name: "bench-core",
            dependencies: [
                .product(name: "RelayJSON", package: "ActivityRelay"),
                .product(name: "RelayCore", package: "ActivityRelay"),
            ],
            swiftSettings: settings,
            linkerSettings: [.linkedLibrary("jemalloc")]),
    ]
)
