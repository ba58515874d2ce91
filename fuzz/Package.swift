// swift-tools-version:6.0
import PackageDescription

/// Coverage-guided fuzzing of what the relay reads from outside (libFuzzer, from the Swift
/// toolchain). A package of its own, like `bench/`, so that the relay never depends on it and its
/// sanitizer flags never reach the relay's own build. `fuzz/run.sh` builds and runs it.
let package = Package(
    name: "ActivityRelayFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "ActivityRelay", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "relay-fuzz",
            dependencies: [
                .product(name: "RelayJSON", package: "ActivityRelay"),
                .product(name: "RelayCore", package: "ActivityRelay"),
                .product(name: "RelayHTTP", package: "ActivityRelay"),
                .product(name: "RelayNet", package: "ActivityRelay"),
                .product(name: "RelayRedis", package: "ActivityRelay"),
                .product(name: "RelayServer", package: "ActivityRelay"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ])
    ]
)
