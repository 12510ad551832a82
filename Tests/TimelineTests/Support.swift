import Foundation
import JSONModel
import Synchronization
import Testing
@testable import Timeline
import TimelineBench
import TimelineDomain

/// A clock tests move by hand.
final class TestClock: WallClock, Sendable {
    private let now: Mutex<Int64>
    init(_ start: Int64 = 1_700_000_000_000) { now = Mutex(start) }
    func nowMilliseconds() -> Int64 { now.withLock { $0 } }
    func advance(_ ms: Int64) { now.withLock { $0 += ms } }
}

/// Seeded randomness, so random tests repeat exactly.
typealias SeededRandom = SplitMix

/// A fresh directory under the system's temporary directory.
/// Removed when the test process exits (databases hold real blocks: a run would otherwise
/// leave gigabytes behind).
func temporaryPath(_ name: String = "db") -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    TemporaryDirectories.shared.add(dir.path)
    return dir.appendingPathComponent(name).path
}

/// The directories `temporaryPath` made, removed at exit.
final class TemporaryDirectories: Sendable {
    static let shared = TemporaryDirectories()
    private let paths = Mutex<[String]>([])

    private init() {
        atexit { TemporaryDirectories.shared.removeAll() }
    }

    func add(_ path: String) { paths.withLock { $0.append(path) } }

    func removeAll() {
        for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// Opens a test service: fast password hashing, no fsync unless `durable`, a test clock and
/// seeded identifiers.
func openService(
    path: String = temporaryPath(), clock: TestClock = TestClock(), durable: Bool = false,
    seed: UInt64 = 42, configure: (inout TimelineService.Options) -> Void = { _ in }
) throws -> TimelineService {
    var options = TimelineService.Options()
    options.durable = durable
    options.clock = clock
    options.passwordCost = .minimum
    // Tests of hiding by reports report from accounts made moments before; AbuseResistanceTests
    // sets these thresholds to check them.
    options.reportMinimumAccountAge = 0
    options.reportMinimumActivity = 0
    let random = Mutex(SeededRandom(seed: seed))
    options.random = { random.withLock { $0.next() } }
    configure(&options)
    return try TimelineService(path: path, options: options)
}

/// A small real GIF (2×1), distinct for each `n`: its first palette colour comes from `n`. With
/// a `comment`, a comment extension carries it (the image pipeline must strip it).
func gifBytes(_ n: Int, comment: String? = nil) -> [UInt8] {
    var bytes = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x80, 0, 0]
    bytes += [UInt8(n & 255), UInt8((n >> 8) & 255), UInt8((n >> 16) & 255), 1, 2, 3]
    if let comment {
        let text = Array(comment.utf8)
        precondition(text.count < 256)
        bytes += [0x21, 0xFE, UInt8(text.count)] + text + [0]
    }
    bytes += [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B]
    return bytes
}

/// A real PNG of `side`×`side` RGB noise, distinct for each `n`, stored without compression
/// (3·side² bytes and a little): noise stays large when the image pipeline re-encodes it,
/// which is what the tests that fill a disk need (`side` 256: about 100 KB stored a post).
func noisePNG(_ n: Int, side: Int = 256) -> [UInt8] {
    var random = SeededRandom(seed: UInt64(n) &* 7919 &+ 17)
    var raw: [UInt8] = []
    raw.reserveCapacity((side * 3 + 1) * side + 8)
    for _ in 0..<side {
        raw.append(0)  // filter: none
        var left = side * 3
        while left > 0 {
            var word = random.next()
            for _ in 0..<min(8, left) {
                raw.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
            left -= min(8, left)
        }
    }
    // zlib with stored deflate blocks.
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
        let count = min(65_535, raw.count - offset)
        let final: UInt8 = offset + count == raw.count ? 1 : 0
        zlib += [final, UInt8(count & 255), UInt8(count >> 8), UInt8(~count & 255), UInt8((~count >> 8) & 255)]
        zlib += raw[offset..<offset + count]
        offset += count
    } while offset < raw.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in raw {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
    }
    zlib += bigEndian(b << 16 | a)

    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return bigEndian(UInt32(data.count)) + body + bigEndian(~crc)
    }
    let header = bigEndian(UInt32(side)) + bigEndian(UInt32(side)) + [8, 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib)
        + chunk("IEND", [])
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 255), UInt8((value >> 8) & 255), UInt8(value & 255)]
}

func gifBase64(_ n: Int) -> String { Data(gifBytes(n)).base64EncodedString() }

extension TimelineService {
    func createUser(_ name: String, password: String = "password-123") async throws -> Profile {
        guard
            case .user(let profile) = try await execute(
                .createUser(username: name, email: "\(name)@example.com", password: password, bio: nil, url: nil))
        else { throw TimelineError(.internal, "createUser returned no user") }
        return profile
    }

    func addPost(by user: UserID, caption: String? = nil, image: Int = 0) async throws -> Post {
        guard
            case .post(let post) = try await execute(
                .addPost(image: gifBase64(image), caption: caption), as: .user(user.rawValue))
        else { throw TimelineError(.internal, "addPost returned no post") }
        return post
    }

    func addComment(by user: UserID, on post: PostID, _ text: String = "nice") async throws -> Timeline.Comment {
        guard
            case .comment(let comment) = try await execute(
                .addComment(post: post.rawValue, text: text), as: .user(user.rawValue))
        else { throw TimelineError(.internal, "addComment returned no comment") }
        return comment
    }

    @discardableResult
    func run(_ command: Command, as user: UserID) async throws -> CommandResult {
        try await execute(command, as: .user(user.rawValue))
    }

    /// Every item of a paginated query, walking all pages.
    func all<Item>(limit: Int = 7, _ page: (PageRequest) throws -> Page<Item>) rethrows -> [Item] {
        var items: [Item] = []
        var request = PageRequest(limit: limit)
        while true {
            let answer = try page(request)
            items += answer.items
            guard let next = answer.next else { return items }
            request.before = next
        }
    }
}

/// The payload of each kind of result, or `nil` for another kind (for `#require`).
extension CommandResult {
    var session: (token: String, user: Profile)? {
        if case let .session(token, user) = self { return (token, user) }
        return nil
    }

    var token: String? {
        if case .token(let token) = self { return token }
        return nil
    }

    var created: String? {
        if case .created(let id) = self { return id }
        return nil
    }

    var profile: Profile? {
        if case .user(let profile) = self { return profile }
        return nil
    }

    var post: Post? {
        if case .post(let post) = self { return post }
        return nil
    }

    var postComment: Timeline.Comment? {
        if case .comment(let comment) = self { return comment }
        return nil
    }
}

/// Expects `body` to fail with `code` (and `field`, when given).
func expectError(
    _ code: TimelineError.Code, field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(code.rawValue), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as TimelineError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let field { #expect(error.field == field, "\(error)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Reads a child process's output until it contains `marker` (or the output ends).
@discardableResult
func waitForOutput(_ pipe: Pipe, containing marker: String) -> String {
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains(marker) {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen.append(chunk)
    }
    return String(decoding: seen, as: UTF8.self)
}

/// The built `timeline` executable, beside the test bundle.
func timelineExecutable(_ name: String = "timeline") throws -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    let fallback = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../.build/debug/\(name)"
    ).standardized
    let url = FileManager.default.fileExists(atPath: beside.path) ? beside : fallback
    try #require(FileManager.default.fileExists(atPath: url.path), "build the \(name) executable first")
    return url
}

/// The real `timeline` executable running `arguments` (fast password hashing, stderr
/// discarded), with pipes on its standard input and output.
struct ToolProcess {
    let process = Process()
    let input = Pipe()
    let output = Pipe()

    /// Runs the built executable `executable` (the `timeline` tool unless given).
    init(_ arguments: [String], environment: [String: String] = [:], executable: String = "timeline") throws {
        process.executableURL = try timelineExecutable(executable)
        process.arguments = arguments
        process.environment = ["TIMELINE_PASSWORD_COST": "minimum"].merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try spawn(process)
    }

    /// Kills it with SIGKILL and waits for it to be gone.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// Answers the query `name` with `fields` through the catalogue, as `timeline exec` and the HTTP
/// API ask it.
func ask(_ service: TimelineService, _ name: String, _ fields: JSONValue = [:], viewer: UserID? = nil) throws
    -> QueryResult
{
    try Catalogue.query(named: name, JSONInput(object: fields)).answer(service, viewer: viewer)
}

/// Starts `process`, one spawn at a time: Foundation's `Process.run()` on Linux is not safe to
/// call from several threads at once (a fresh-clone run crashed in its memcpy while the suite's
/// many child processes started together). Every child process of the tests starts here.
func spawn(_ process: Process) throws { try spawning.withLock { try process.run() } }

private let spawning = NSLock()

/// `pngBytes` (a one-pixel PNG) in a new file, for an upload by a client in another process.
func pixelFile() throws -> String {
    let photo = temporaryPath("pixel.png")
    try Data(pngBytes).write(to: URL(fileURLWithPath: photo))
    return photo
}
