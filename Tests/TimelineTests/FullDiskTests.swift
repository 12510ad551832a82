import Foundation
import LMDB
import Testing
@testable import Timeline
import TimelineDomain

/// Storage running out — a capped map, a full filesystem — and a failure between the two
/// commits of a write: typed errors, nothing appended, nothing applied twice, the process
/// lives on and reads still work.
@Suite struct FullDiskTests {
    /// `timeline ARGUMENTS` with `lines` on its standard input (through files: the input is
    /// megabytes of images); its exit status and its output lines, parsed.
    func runTool(_ arguments: [String], input lines: [String] = []) async throws -> (
        status: Int32, answers: [[String: Any]]
    ) {
        let directory = temporaryPath("io")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let inputPath = directory + "/in", outputPath = directory + "/out"
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: inputPath))
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        let process = Process()
        process.executableURL = try timelineExecutable()
        process.arguments = arguments
        process.environment = ["TIMELINE_PASSWORD_COST": "minimum"]
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = FileHandle.nullDevice
        try spawn(process)
        await exited(process)
        let output = try String(contentsOfFile: outputPath, encoding: .utf8)
        let answers = try output.split(separator: "\n").map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        return (process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus, answers)
    }

    func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Creates user `bob` in the database at `path`; returns his id.
    func createBob(_ path: String, _ options: [String] = []) async throws -> String {
        let line = try json([
            "command": "createUser", "username": "bob", "email": "bob@example.com", "password": "password-123"
        ])
        let (status, answers) = try await runTool(["exec", "--db", path] + options, input: [line])
        #expect(status == 0)
        let result = try #require(answers.first?["result"] as? [String: Any], "\(answers)")
        return try #require(result["id"] as? String)
    }

    /// `count` addPost lines by `user`, each with a distinct image of ~100 KB.
    func posts(by user: String, count: Int, from first: Int = 0) throws -> [String] {
        try (first..<first + count).map { index in
            let image = noisePNG(index)
            return try json([
                "id": "p\(index)", "as": user, "command": "addPost", "image": Data(image).base64EncodedString()
            ])
        }
    }

    func codes(_ answers: [[String: Any]]) -> [String] {
        answers.map { ($0["error"] as? [String: Any])?["code"] as? String ?? "ok" }
    }

    /// The number of events in the log, through `timeline audit verify`.
    func verifiedEventCount(_ path: String) async throws -> Int {
        let process = Process()
        let output = Pipe()
        process.executableURL = try timelineExecutable()
        process.arguments = ["audit", "verify", "--db", path]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try spawn(process)
        await exited(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        let words = text.split(separator: " ")
        let index = try #require(words.firstIndex(of: "events;"), "\(text)")
        return try #require(Int(words[index - 1]))
    }

    @Test func aCappedMapFailsWithStorageFullAndTheProcessLivesOn() async throws {
        let path = temporaryPath()
        let bob = try await createBob(path, ["--map-size", "3M"])
        let query = try json(["id": "q", "query": "user", "user": bob])
        let (status, answers) = try await runTool(
            ["exec", "--db", path, "--map-size", "3M"], input: try posts(by: bob, count: 40) + [query])
        #expect(status == 0)
        #expect(answers.count == 41)
        let outcomes = codes(answers.dropLast().map { $0 })
        let stored = outcomes.prefix { $0 == "ok" }.count
        #expect(stored > 0 && stored < 40, "\(outcomes)")
        #expect(outcomes.dropFirst(stored).allSatisfy { $0 == "storage_full" }, "\(outcomes)")
        let profile = try #require(answers.last?["result"] as? [String: Any])
        #expect(profile["postCount"] as? Int == stored)
        #expect(try await verifiedEventCount(path) == 1 + stored)  // the failed commands appended nothing
    }

    /// A real full filesystem (a small tmpfs): commands fail with `storage_full` and append
    /// nothing, the process answers every later line, reads, `audit verify` and `backup` work,
    /// and writes resume once space is freed.
    @Test func aFullFilesystemFailsWithStorageFullReadsWorkAndWritesResume() async throws {
        try #require(getuid() == 0, "mounting a tmpfs needs root (CI runs as root)")
        let mountPoint = temporaryPath("tmpfs")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try #require(
            shell("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint) == 0, "could not mount a tmpfs")
        defer { _ = shell("umount", "-l", mountPoint) }
        let path = mountPoint + "/db"
        let bob = try await createBob(path)

        // Leave ~2.5 MiB: room for some 100 KB posts, not for 40.
        var space = statvfs()
        try #require(statvfs(mountPoint, &space) == 0)
        let filler = mountPoint + "/filler"
        let fillerBytes = Int(space.f_bavail) * Int(space.f_frsize) - 2_500 * 1024
        try #require(fillerBytes > 0)
        try Data(count: fillerBytes).write(to: URL(fileURLWithPath: filler))

        let query = try json(["id": "q", "query": "posts", "user": bob, "limit": 100])
        let (status, answers) = try await runTool(
            ["exec", "--db", path], input: try posts(by: bob, count: 40) + [query])
        #expect(status == 0, "the process died")
        #expect(answers.count == 41)
        let outcomes = codes(answers.dropLast().map { $0 })
        let stored = outcomes.filter { $0 == "ok" }.count
        #expect(stored < 40 && outcomes.contains("storage_full"), "\(outcomes)")
        #expect(Set(outcomes).isSubset(of: ["ok", "storage_full"]), "\(outcomes)")
        let page = try #require(answers.last?["result"] as? [String: Any])
        #expect((page["items"] as? [Any])?.count == stored)

        // Still full: reads, verification and a backup (to another filesystem) work.
        #expect(try await verifiedEventCount(path) == 1 + stored)
        let (queried, read) = try await runTool(["exec", "--db", path], input: [query])
        #expect(queried == 0 && ((read.first?["result"] as? [String: Any])?["items"] as? [Any])?.count == stored)
        let copy = temporaryPath("backup")
        let backup = Process()
        backup.executableURL = try timelineExecutable()
        backup.arguments = ["backup", "--db", path, copy]
        backup.standardOutput = FileHandle.nullDevice
        backup.standardError = FileHandle.nullDevice
        try spawn(backup)
        await exited(backup)
        #expect(backup.terminationStatus == 0)
        #expect(try await verifiedEventCount(copy) == 1 + stored)

        // Space freed: writes resume.
        try FileManager.default.removeItem(atPath: filler)
        let (resumed, after) = try await runTool(["exec", "--db", path], input: try posts(by: bob, count: 3, from: 100))
        #expect(resumed == 0 && codes(after) == ["ok", "ok", "ok"], "\(after)")
        #expect(try await verifiedEventCount(path) == 4 + stored)
    }

    /// If the read models' commit fails after the log's commit, the command is not decided
    /// and appended again: it is acknowledged once, and the read models catch up.
    @Test func aFailedDerivedCommitAfterTheLogCommittedAppliesNothingTwice() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let before = try service.lastSequence()
        service.environment.failNextDerivedCommit.withLock { $0 = .mapFull }
        let post = try await service.addPost(by: alice.id, caption: "once")
        #expect(try service.lastSequence() == before + 1)
        _ = try await service.addPost(by: alice.id, caption: "twice", image: 1)  // catches the read models up
        #expect(try service.lastSequence() == before + 2)
        #expect(try service.posts(by: alice.id).items.map(\.id).contains(post.id))
        #expect(try service.user(alice.id).postCount == 2)
        service.close()
    }

    /// The database and its backups are the owner's alone: 0600 files in 0700 directories,
    /// also for a database created by an older version with laxer modes.
    @Test func databaseFilesAreTheOwnersAlone() async throws {
        let path = temporaryPath()
        var service = try openService(path: path)
        _ = try await service.createUser("alice")
        service.close()
        for file in ["", "/data.mdb", "/lock.mdb", "/derived", "/derived/data.mdb"] {
            chmod(path + file, file.hasSuffix(".mdb") ? 0o644 : 0o755)
        }
        service = try openService(path: path)
        _ = try await service.createUser("bob")
        let copy = temporaryPath("backup")
        try service.backup(to: copy)
        service.close()
        for root in [path, copy] {
            let enumerator = try #require(FileManager.default.enumerator(atPath: root))
            var checked = 0
            for case let name as String in enumerator {
                var status = stat()
                #expect(stat(root + "/" + name, &status) == 0)
                let isDirectory = status.st_mode & S_IFMT == S_IFDIR
                #expect(
                    status.st_mode & 0o777 == (isDirectory ? 0o700 : 0o600),
                    "\(root)/\(name) has mode \(String(status.st_mode & 0o777, radix: 8))")
                checked += 1
            }
            #expect(checked >= 4)
            var status = stat()
            #expect(stat(root, &status) == 0 && status.st_mode & 0o777 == 0o700)
        }
    }

    /// A directory that cannot be created names its real cause, not "permission denied".
    @Test func aFailedCreateReportsItsRealErrno() throws {
        let file = temporaryPath("plain-file")
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        #expect { try openService(path: file + "/db") } throws: { error in
            "\(error)".contains("Not a directory") && !"\(error)".contains("permission")
        }
    }
}

/// Waits for `process` to exit without holding a thread of the cooperative pool (the tests
/// share it, and a 2-core machine makes it two threads wide).
func exited(_ process: Process) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            process.waitUntilExit()
            continuation.resume()
        }
    }
}

/// Runs a system command; its exit status.
func shell(_ command: String, _ arguments: String...) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [command] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? spawn(process)) != nil else { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
}
