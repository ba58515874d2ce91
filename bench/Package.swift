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
            name: "bench-json",
            dependencies: [.product(name: "RelayCore", package: "ActivityRelay")],
            swiftSettings: settings),
        .executableTarget(
            name: "bench-core",
            dependencies: [.product(name: "RelayCore", package: "ActivityRelay")],
            swiftSettings: settings),
    ]
)
