// swift-tools-version:6.0
import PackageDescription

/// FFmpeg's libraries the video layer links (libavformat's pkg-config names the others).
let ffmpegPackages = ["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev"]

let package = Package(
    name: "Timeline",
    // Linux only (Debian 12 and its packages: see tools/install-deps): the code uses Glibc,
    // /proc and Linux file-system behaviour, and says so at compile time elsewhere
    // (Sources/LMDB/Platform.swift). No Apple platform is claimed.
    products: [
        .library(name: "Timeline", targets: ["Timeline"]),
        // Cluster mode (needs libnats): `options.cluster = ClusterOptions(urls: …)`.
        .library(name: "TimelineCluster", targets: ["TimelineCluster"]),
        // Firebase import (needs libyajl): `service.importFirebase(path:)`.
        .library(name: "TimelineImport", targets: ["TimelineImport"]),
        .executable(name: "timeline", targets: ["TimelineTool"]),
    ],
    targets: [
        // C bridges: one module per Debian library.
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CYAJL", pkgConfig: "yajl", providers: [.apt(["libyajl-dev"])]),
        .systemLibrary(name: "CNATS", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat", providers: [.apt(ffmpegPackages)]),
        // The bench's peer design only (TimelineBench): the library never links SQLite.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The thin safe layers: the only code that touches C pointers.
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        .target(name: "Sodium", dependencies: ["CSodium"]),
        // Digests libsodium lacks (SHA-1 for the WebSocket handshake, HMAC-SHA-1 for one-time
        // codes) and RSA (ActivityPub's actor keys), through OpenSSL's libcrypto.
        .target(name: "OpenSSL", dependencies: ["COpenSSL"]),
        // Web Push: message encryption (RFC 8291) and VAPID (RFC 8292) over OpenSSL.
        // HTTPS requests (libcurl): Web Push deliveries.
        .target(name: "Curl", dependencies: ["CCurl"]),
        .target(name: "WebPush", dependencies: ["OpenSSL", "Curl"]),
        // HTTP Signatures as ActivityPub servers make and check them (draft-cavage, RFC 9421).
        .target(name: "HTTPSignatures", dependencies: ["OpenSSL", "Sodium"]),
        // Zip archives written as a stream (libarchive): a user's export.
        .target(name: "Archive", dependencies: ["CArchive"]),
        // gzip for the HTTP answers a client asks to have compressed (zlib).
        .target(name: "Zlib", dependencies: ["CZlib"]),
        // Video (FFmpeg's libav*): a phone's or a browser's video transcoded to H.264 + AAC MP4.
        .target(name: "FFmpeg", dependencies: ["CFFmpeg"]),
        // QR code symbols (libqrencode): two-factor enrolment's code for an authenticator app.
        .target(name: "QRCode", dependencies: ["CQREncode"]),
        // Image decoding, resizing and encoding (libvips).
        .target(name: "Vips", dependencies: ["CVips"]),
        // The NATS C client: JetStream streams and key-value buckets (the replicated log).
        .target(name: "NATS", dependencies: ["CNATS"]),
        // HTTP/1.1 on libmicrohttpd: the daemon, its callbacks, event streams.
        .target(name: "MicroHTTPD", dependencies: ["CMicroHTTPD"]),
        // SQLite for the bench's peer design (`timeline bench` races it in the same run).
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        // Streaming JSON (for imports far larger than memory), over yajl.
        .target(name: "JSONStream", dependencies: ["CYAJL", "JSONModel"]),
        // JSON values, their writer, an encoder into them, and JSON Schemas read from Swift types.
        .target(name: "JSONModel"),
        // Pure domain: commands -> events, validation. No I/O.
        .target(name: "TimelineDomain", dependencies: ["JSONModel"]),
        // Event store, projections and the public service API.
        .target(name: "Timeline", dependencies: [
            "LMDB", "Sodium", "Vips", "FFmpeg", "Archive", "OpenSSL", "QRCode", "TimelineDomain",
        ]),
        // Importing a Firebase export of the seeds' app, streamed (libyajl): its own product, so
        // the core library builds without libyajl.
        .target(name: "TimelineImport", dependencies: [
            "Timeline", "JSONStream", "JSONModel", "LMDB", "Sodium", "TimelineDomain", "Archive",
        ]),
        // Cluster mode: the replicated log and key store on NATS JetStream.
        .target(name: "TimelineCluster", dependencies: ["Timeline", "NATS", "TimelinePush"]),
        // The HTTP API: routes, handlers, live streams, over the MicroHTTPD layer.
        .target(name: "TimelineHTTP", dependencies: [
            "Timeline", "MicroHTTPD", "Sodium", "OpenSSL", "JSONModel", "Zlib", "HTTPSignatures",
            "TimelineFederation",
        ]),
        // Federation's requests to other servers: fetching actors, delivering signed activities.
        .target(name: "TimelineFederation", dependencies: ["Curl", "HTTPSignatures", "OpenSSL", "JSONModel"]),
        // Web Push deliveries: the outbox and its worker (`timeline serve`).
        .target(name: "TimelinePush", dependencies: ["Timeline", "WebPush", "Curl", "OpenSSL", "JSONModel"]),
        // `timeline bench`: synthetic network, measurements beside their raw-LMDB and SQLite
        // baselines (and, with --http, the API beside nginx).
        .target(name: "TimelineBench", dependencies: [
            "Timeline", "TimelineCluster", "LMDB", "NATS", "MicroHTTPD", "TimelineHTTP", "SQLite", "TimelinePush",
            "WebPush", "OpenSSL", "FFmpeg", "TimelineFederation", "Curl",
        ]),
        // Thin executable: `timeline exec|query|demo|rebuild|audit|bench|...`.
        .executableTarget(name: "TimelineTool", dependencies: [
            "Timeline", "TimelineCluster", "TimelineHTTP", "TimelineBench", "TimelineImport", "Vips", "TimelinePush",
            "WebPush", "OpenSSL", "TimelineFederation",
        ], path: "tools/timeline"),
        // The README's library example, compiled and run by tools/test (so it cannot drift).
        .executableTarget(name: "QuickStart", dependencies: ["Timeline"], path: "Examples/QuickStart"),
        // A test fixture (holds a read transaction until killed): built for the tests, shipped in
        // no product.
        .executableTarget(name: "ReaderHolder", dependencies: ["Timeline"], path: "Tests/ReaderHolder"),
        .testTarget(name: "TimelineTests", dependencies: [
            "Timeline", "TimelineDomain", "LMDB", "Sodium", "JSONStream", "NATS", "MicroHTTPD", "TimelineCluster",
            "TimelineHTTP", "TimelineBench", "Vips", "TimelineImport", "OpenSSL", "WebPush", "Curl", "JSONModel",
            "FFmpeg", "HTTPSignatures", "TimelineFederation",
        ], exclude: ["Fixtures"]),  // read from the source tree by path
    ]
)
