/// The byte loops of the read path, over contiguous memory with no per-byte bounds check: the
/// JSON writer runs them over every string it writes. The only unchecked byte access
/// outside the thin layers; each is confined to its call.
enum ByteScans {
    /// Whether some byte of `bytes` satisfies `predicate`.
    static func contains(_ bytes: ArraySlice<UInt8>, where predicate: (UInt8) -> Bool) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in buffer.contains(where: predicate) }
    }
}
