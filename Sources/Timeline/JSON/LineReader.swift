import Foundation

/// Reads newline-separated lines from a file descriptor without ever holding more than `limit`
/// bytes of one line: the rest of an over-long line is read and dropped, and the line is
/// reported as `.tooLong`, so a huge line costs no more memory than the limit.
public struct LineReader {
    /// One line, without its `\n` (or `\r\n`).
    public enum Line: Equatable, Sendable {
        /// A line (without its newline).
        case line([UInt8])
        /// A line longer than the limit, whose bytes were not kept.
        case tooLong
    }

    private let fileDescriptor: Int32
    private let limit: Int
    private var buffer: [UInt8]
    private var position = 0
    private var filled = 0

    /// Reads lines from an open file descriptor (it stays open).
    ///
    /// - Parameters:
    ///   - fileDescriptor: where to read from, e.g. `STDIN_FILENO`.
    ///   - limit: the longest line kept, in bytes.
    ///   - chunkSize: how much is read from the descriptor at a time.
    public init(fileDescriptor: Int32, limit: Int = ExecSession.maxLineBytes, chunkSize: Int = 64 << 10) {
        self.fileDescriptor = fileDescriptor
        self.limit = limit
        buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    /// The next line, or `nil` at the end of the input (a last line without a newline still
    /// counts). A read error ends the input.
    public mutating func next() -> Line? {
        var line: [UInt8] = []
        var tooLong = false
        var sawAnything = false
        while true {
            if position == filled {
                guard refill() else {
                    guard sawAnything else { return nil }
                    return Self.finish(line, tooLong: tooLong)
                }
            }
            sawAnything = true
            let end = buffer[position..<filled].firstIndex(of: 0x0A)
            let piece = buffer[position..<(end ?? filled)]
            if !tooLong {
                if line.count + piece.count > limit {
                    tooLong = true
                    line = []  // let go of what was kept
                } else {
                    line += piece
                }
            }
            guard let end else {
                position = filled
                continue
            }
            position = end + 1
            return Self.finish(line, tooLong: tooLong)
        }
    }

    /// Reads the next chunk; `false` at the end of the input or on an error.
    private mutating func refill() -> Bool {
        let count = buffer.count
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            position = 0
            filled = got
            return true
        }
    }

    private static func finish(_ line: consuming [UInt8], tooLong: Bool) -> Line {
        guard !tooLong else { return .tooLong }
        if line.last == 0x0D { line.removeLast() }
        return .line(line)
    }
}
