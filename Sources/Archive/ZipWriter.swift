import CArchive
import Foundation

/// A zip archive written as a stream (libarchive): each file is handed over whole, its bytes
/// go to `output` as they are made, and nothing of the archive is kept, so an archive of any
/// size costs the memory of its largest file.
public final class ZipWriter {
    /// Where the archive's bytes go; a thrown error ends the archive (`ZipError.output`).
    public typealias Output = ([UInt8]) throws -> Void

    private let archive: OpaquePointer
    private let sink: Sink
    private var finished = false

    /// A zip archive whose bytes go to `output`.
    public init(output: @escaping Output) throws(ZipError) {
        sink = Sink(output)
        guard
            let archive = timeline_zip_new(
                Unmanaged.passUnretained(sink).toOpaque(),
                { _, context, buffer, length in
                    guard let context, let buffer else { return -1 }
                    let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                    do {
                        try sink.output(Array(UnsafeRawBufferPointer(start: buffer, count: length)))
                        return length
                    } catch {
                        sink.failure = error
                        return -1
                    }
                })
        else { throw ZipError.failed("the zip writer could not start") }
        self.archive = archive
    }

    deinit { archive_write_free(archive) }

    /// Adds the file `path` (relative, `/`-separated) holding `bytes`, modified at `date`.
    public func add(_ path: String, _ bytes: [UInt8], modified date: Date = Date()) throws(ZipError) {
        guard !finished else { throw ZipError.failed("the archive is finished") }
        guard timeline_zip_begin(archive, path, Int64(bytes.count), Int64(date.timeIntervalSince1970)) == ARCHIVE_OK
        else { throw failure() }
        try write(bytes)
        guard archive_write_finish_entry(archive) == ARCHIVE_OK else { throw failure() }
    }

    /// Adds the file `path` holding the bytes of the file at `source` (`size` of them), read a
    /// chunk at a time: a video of a hundred megabytes costs a chunk of memory.
    public func add(_ path: String, contentsOf source: String, size: Int, modified date: Date = Date()) throws(ZipError)
    {
        guard !finished else { throw ZipError.failed("the archive is finished") }
        guard let input = FileHandle(forReadingAtPath: source) else { throw ZipError.failed("\(path) cannot be read") }
        defer { try? input.close() }
        guard timeline_zip_begin(archive, path, Int64(size), Int64(date.timeIntervalSince1970)) == ARCHIVE_OK
        else { throw failure() }
        var left = size
        while left > 0 {
            guard let chunk = try? input.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty else {
                throw ZipError.failed("\(path) ended before its size")
            }
            try write([UInt8](chunk))
            left -= chunk.count
        }
        guard archive_write_finish_entry(archive) == ARCHIVE_OK else { throw failure() }
    }

    /// Writes `bytes` into the current entry.
    private func write(_ bytes: [UInt8]) throws(ZipError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
            guard written > 0 else { throw failure() }
            offset += written
        }
    }

    /// Writes the archive's central directory: the archive is complete.
    public func finish() throws(ZipError) {
        guard !finished else { return }
        finished = true
        guard archive_write_close(archive) == ARCHIVE_OK else { throw failure() }
    }

    private func failure() -> ZipError {
        if let error = sink.failure { return .output(error) }
        return .failed(archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed")
    }

    /// What the C callback reaches: the output, and its error.
    private final class Sink {
        let output: Output
        var failure: (any Error)?
        init(_ output: @escaping Output) { self.output = output }
    }
}

/// Why a zip archive could not be written.
public enum ZipError: Error, CustomStringConvertible {
    /// libarchive refused (the message is its own).
    case failed(String)
    /// The output threw: the archive ends there.
    case output(any Error)

    /// What failed, prefixed `zip:` (or `zip output:` when the output threw).
    public var description: String {
        switch self {
        case .failed(let message): "zip: \(message)"
        case .output(let error): "zip output: \(error)"
        }
    }
}
