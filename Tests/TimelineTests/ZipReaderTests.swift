import Archive
import Foundation
import Testing

/// The zip reader against archives Python's `zipfile` writes (another implementation): entries
/// in order with their bytes, an unsafe path told, a zip bomb stopped at the limit, a truncated
/// archive and one that is not a zip refused as damaged.
@Suite struct ZipReaderTests {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "timeline-zip-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Runs `script` with Python 3 in `directory` (the test's by default); whether it succeeded
    /// (expected to).
    @discardableResult
    static func python(_ script: String, in directory: String = directory) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return process.terminationStatus == 0
    }

    static func entries(_ name: String, limit: Int = 1 << 20) throws -> [(ZipReader.Entry, [UInt8])] {
        let reader = try ZipReader(path: directory + "/" + name)
        var found: [(ZipReader.Entry, [UInt8])] = []
        while let entry = try reader.next() { found.append((entry, entry.isFile ? try reader.read(limit: limit) : [])) }
        return found
    }

    @Test func entriesComeInOrderWithTheirBytes() throws {
        try Self.python(
            """
            import zipfile
            with zipfile.ZipFile('good.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('content/posts_1.json', '[{"title": "caf\\\\u00c3\\\\u00a9"}]')
                z.writestr('media/posts/202301/a.jpg', bytes(range(256)) * 100)
                z.writestr('media/', '')
            """)
        let found = try Self.entries("good.zip")
        #expect(found.map(\.0.path) == ["content/posts_1.json", "media/posts/202301/a.jpg", "media/"])
        #expect(found.allSatisfy { $0.0.isSafe })
        #expect(String(decoding: found[0].1, as: UTF8.self).hasPrefix("[{\"title\""))
        #expect(found[1].1 == Array((0..<100).flatMap { _ in (0...255).map(UInt8.init) }))
        #expect(found[1].0.declaredSize == 25_600 && !found[2].0.isFile)
    }

    @Test func hostileArchivesAreToldOrRefused() throws {
        try Self.python(
            """
            import zipfile
            with zipfile.ZipFile('hostile.zip', 'w') as z:
                z.writestr('../../etc/passwd', 'x')
                z.writestr('/absolute', 'x')
                z.writestr('media/../../up', 'x')
            with zipfile.ZipFile('bomb.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('media/bomb.jpg', b'\\0' * (64 << 20))
            data = open('bomb.zip', 'rb').read()
            open('truncated.zip', 'wb').write(data[:len(data) // 2])
            open('notzip.zip', 'wb').write(b'this is not a zip archive at all' * 10)
            """)
        #expect(try Self.entries("hostile.zip").map(\.0.isSafe) == [false, false, false])
        // 64 MiB of zeros in well under 1 MiB: stopped at the limit, not read to the end.
        #expect(throws: ZipReadError.tooLarge(1 << 20)) { try Self.entries("bomb.zip") }
        #expect(throws: ZipReadError.self) { try Self.entries("truncated.zip", limit: 128 << 20) }
        #expect(throws: ZipReadError.self) { try Self.entries("notzip.zip") }
        #expect(throws: ZipReadError.self) { try Self.entries("missing.zip") }
    }
}
