// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Timeline",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Timeline", targets: ["Timeline"]),
        .executable(name: "timeline", targets: ["TimelineTool"]),
    ],
    targets: [
        // C bridges: one module per Debian library.
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // The thin safe layers: the only code that touches C pointers.
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        .target(name: "Sodium", dependencies: ["CSodium"]),
        // Pure domain: commands -> events, validation. No I/O.
        .target(name: "TimelineDomain"),
        // Event store, projections and the public service API.
        .target(name: "Timeline", dependencies: ["LMDB", "Sodium", "TimelineDomain"]),
        // Thin executable: `timeline exec|query|demo|...`.
        .executableTarget(name: "TimelineTool", dependencies: ["Timeline"], path: "tools/timeline"),
        .testTarget(name: "TimelineTests", dependencies: ["Timeline", "TimelineDomain", "LMDB", "Sodium"]),
    ]
)
