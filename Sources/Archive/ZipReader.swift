import CArchive

/// A zip archive read as a stream (libarchive): entry after entry, each one's bytes read only
/// when asked for and never past a limit, so an archive of several gigabytes costs the memory
/// of the largest entry read, and a zip bomb stops at the limit, not at the end of its bytes.
public final class ZipReader {
    /// One entry of the archive.
    public struct Entry: Sendable, Equatable {
        /// Its path in the archive, as written there (not checked: see `isSafe`).
        public let path: String
        /// Whether it is a regular file (not a directory or a link).
        public let isFile: Bool
        /// The size its header declares, if any (the bytes read may differ: a lie is caught
        /// while reading).
        public let declaredSize: Int64?

        /// Whether the path stays inside the archive: relative, no `..` component, no
        /// backslash, no NUL, not empty.
        public var isSafe: Bool {
            guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\\"), !path.utf8.contains(0) else {
                return false
            }
            return !path.split(separator: "/", omittingEmptySubsequences: false).contains("..")
        }
    }

    private let archive: OpaquePointer

    /// A reader of the zip archive at `path` (`damaged` when it cannot be opened as one).
    public init(path: String) throws(ZipReadError) {
        guard let archive = timeline_zip_open(path) else { throw .damaged("not a zip archive that can be read") }
        self.archive = archive
    }

    deinit { archive_read_free(archive) }

    /// The next entry (`nil` after the last); its bytes are then `read(limit:)`'s, or skipped
    /// by asking for the next one. A damaged or truncated archive is `damaged`.
    public func next() throws(ZipReadError) -> Entry? {
        var path: UnsafePointer<CChar>?
        var regular: Int32 = 0
        var size: Int64 = -1
        switch timeline_zip_next(archive, &path, &regular, &size) {
        case 0: return nil
        case 1:
            let name = path.map { String(cString: $0) }
            return Entry(path: name ?? "", isFile: regular != 0, declaredSize: size >= 0 ? size : nil)
        default: throw .damaged(lastError())
        }
    }

    /// The current entry's bytes, at most `limit` of them: past it, `tooLarge` (whatever its
    /// header declared). A damaged or truncated entry is `damaged`.
    public func read(limit: Int) throws(ZipReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            guard count > 0 else { throw .damaged(lastError()) }
            guard bytes.count + count <= limit else { throw .tooLarge(limit) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes the current entry's bytes to a new file at `path` as they are read (never all in
    /// memory: a video of an export), at most `limit` of them: past it, `tooLarge` (and the
    /// file is removed). Answers how many were written. A file that cannot be written is
    /// `damaged` too, saying so.
    public func copy(to path: String, limit: Int) throws(ZipReadError) -> Int {
        guard let out = fopen(path, "wbx") else { throw .damaged("the entry cannot be written out") }
        var written = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        var failure: ZipReadError?
        while failure == nil {
            let count = chunk.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                failure = .damaged(lastError())
            } else if written + count > limit {
                failure = .tooLarge(limit)
            } else if chunk.withUnsafeBytes({ fwrite($0.baseAddress, 1, count, out) }) != count {
                failure = .damaged("the entry cannot be written out (the disk may be full)")
            }
            written += max(0, count)
        }
        if fclose(out) != 0, failure == nil { failure = .damaged("the entry cannot be written out") }
        if let failure {
            remove(path)
            throw failure
        }
        return written
    }

    private func lastError() -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "the archive is damaged"
    }
}

/// A zip archive that could not be read.
public enum ZipReadError: Error, Equatable, CustomStringConvertible {
    /// Not a zip archive, or damaged, or truncated (libarchive's words).
    case damaged(String)
    /// An entry holds more than the limit asked for (a zip bomb, or simply too large).
    case tooLarge(Int)

    /// What went wrong.
    public var description: String {
        switch self {
        case .damaged(let message): "zip: \(message)"
        case .tooLarge(let limit): "zip: an entry is larger than \(limit) bytes"
        }
    }
}
