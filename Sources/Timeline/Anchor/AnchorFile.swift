import Foundation

/// An anchor file: signed checkpoints, one line each, appended (never rewritten) by every
/// process that commits with the anchor key. Appends take an exclusive `flock`, so lines of
/// concurrent processes never interleave, and are fsynced. A crash may leave a torn last line;
/// the next append starts on a new line, and readers skip lines that do not parse.
public struct AnchorFile: Sendable {
    /// Where the checkpoints are appended.
    public let path: String

    /// The anchor file at `path` (created by the first append).
    public init(path: String) { self.path = path }

    /// One parsed line.
    public struct Entry: Sendable, Equatable {
        /// 1-based line number in the file.
        public var line: Int
        /// The signed checkpoint.
        public var checkpoint: AnchorCheckpoint
    }

    /// Appends `checkpoint` durably.
    func append(_ checkpoint: AnchorCheckpoint) throws(TimelineError) {
        let created = !FileManager.default.fileExists(atPath: path)
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("open") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw failure("lock") }
        defer { flock(fd, LOCK_UN) }
        var text = checkpoint.line + "\n"
        let size = lseek(fd, 0, SEEK_END)
        var last: UInt8 = 0
        if size > 0, pread(fd, &last, 1, size - 1) == 1, last != UInt8(ascii: "\n") { text = "\n" + text }  // after a torn line
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw failure("write") }
        guard fsync(fd) == 0 else { throw failure("fsync") }
        if created {
            let directory = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
        }
    }

    /// Every checkpoint line of the file in file order, and the numbers of the lines that do
    /// not parse (a torn write, or damage). Signatures are not checked here.
    public func entries() throws(TimelineError) -> (entries: [Entry], unreadable: [Int]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TimelineError(.notFound, "cannot read the anchor file \(path)")
        }
        return Self.parse(String(decoding: data, as: UTF8.self))
    }

    /// The last checkpoint in the file, read from its tail only (the file grows without bound).
    func lastEntry() throws(TimelineError) -> AnchorCheckpoint? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("open")
        }
        defer { close(fd) }
        let size = lseek(fd, 0, SEEK_END)
        let length = Int(min(size, 64 << 10))
        var tail = [UInt8](repeating: 0, count: length)
        guard pread(fd, &tail, length, size - off_t(length)) == length else { throw failure("read") }
        return Self.parse(String(decoding: tail, as: UTF8.self)).entries.last?.checkpoint
    }

    private static func parse(_ text: String) -> (entries: [Entry], unreadable: [Int]) {
        var entries: [Entry] = [], unreadable: [Int] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            if let checkpoint = AnchorCheckpoint(line: line) {
                entries.append(Entry(line: index + 1, checkpoint: checkpoint))
            } else {
                unreadable.append(index + 1)
            }
        }
        return (entries, unreadable)
    }

    private func failure(_ what: String) -> TimelineError {
        TimelineError(.internal, "anchor file \(path): \(what) failed: \(String(cString: strerror(errno)))")
    }
}
