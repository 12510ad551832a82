/// The byte loops of the read path, over contiguous memory with no per-byte bounds check: a
/// page runs them over every field of every post it shows. The only unchecked byte access
/// outside the thin layers; each is confined to its call.
enum ByteScans {
    /// Whether every byte of `span[range]` is ASCII.
    static func isASCII(_ span: Span<UInt8>, _ range: Range<Int>) -> Bool {
        precondition(range.lowerBound >= 0 && range.upperBound <= span.count)
        return span.withUnsafeBufferPointer { buffer in
            var bits: UInt8 = 0
            for index in range { bits |= buffer[index] }
            return bits < 0x80
        }
    }

    /// Whether some byte of `bytes` satisfies `predicate`.
    static func contains(_ bytes: ArraySlice<UInt8>, where predicate: (UInt8) -> Bool) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in buffer.contains(where: predicate) }
    }
}
