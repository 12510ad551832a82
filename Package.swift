// swift-tools-version:6.0
import PackageDescription

/// Whole-program specialisation across our own modules (the LMDB layer's generic
/// transaction helpers are on every hot path).
let optimise: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

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
        .systemLibrary(name: "CYAJL", pkgConfig: "yajl", providers: [.apt(["libyajl-dev"])]),
        .systemLibrary(name: "CNATS", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // The thin safe layers: the only code that touches C pointers.
        .target(name: "LMDB", dependencies: ["CLMDB"], swiftSettings: optimise),
        .target(name: "Sodium", dependencies: ["CSodium"], swiftSettings: optimise),
        // The NATS C client: JetStream streams and key-value buckets (the replicated log).
        .target(name: "NATS", dependencies: ["CNATS"], swiftSettings: optimise),
        // HTTP/1.1 on libmicrohttpd: the daemon, its callbacks, event streams.
        .target(name: "MicroHTTPD", dependencies: ["CMicroHTTPD"], swiftSettings: optimise),
        // Streaming JSON (for imports far larger than memory), over yajl.
        .target(name: "JSONStream", dependencies: ["CYAJL"], swiftSettings: optimise),
        // Pure domain: commands -> events, validation. No I/O.
        .target(name: "TimelineDomain", swiftSettings: optimise),
        // Event store, projections and the public service API.
        .target(name: "Timeline", dependencies: ["LMDB", "Sodium", "JSONStream", "NATS", "TimelineDomain"], swiftSettings: optimise),
        // The HTTP API: routes, handlers, live streams, over the MicroHTTPD layer.
        .target(name: "TimelineHTTP", dependencies: ["Timeline", "MicroHTTPD"], swiftSettings: optimise),
        // `timeline bench`: synthetic network, measurements beside their raw-LMDB baselines (and,
        // with --http, the API beside nginx).
        .target(name: "TimelineBench", dependencies: ["Timeline", "LMDB", "NATS", "MicroHTTPD", "TimelineHTTP"], swiftSettings: optimise),
        // Thin executable: `timeline exec|query|demo|rebuild|audit|bench|...`.
        .executableTarget(name: "TimelineTool", dependencies: ["Timeline", "TimelineHTTP", "TimelineBench"], path: "tools/timeline"),
        .testTarget(name: "TimelineTests", dependencies: ["Timeline", "TimelineDomain", "LMDB", "Sodium", "JSONStream", "NATS", "MicroHTTPD", "TimelineHTTP", "TimelineBench"],
                    exclude: ["Fixtures"]),  // read from the source tree by path
    ]
)
