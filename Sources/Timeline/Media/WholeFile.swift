import Vips

/// Whether an upload is exactly one image file, with nothing after its end: libvips decodes a
/// PNG followed by a ZIP archive happily, and such polyglots must not be accepted. Walks the
/// container's structure (PNG chunks to `IEND`, ISO-BMFF boxes, the RIFF length) or checks the
/// end marker (JPEG `EOI`, GIF trailer).
enum WholeFile {
    static func isWhole(_ bytes: [UInt8], _ format: Vips.Format) -> Bool {
        switch format {
        case .jpeg: return bytes.count >= 4 && bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9
        case .gif: return bytes.last == 0x3B
        case .png: return pngEnd(bytes) == bytes.count
        case .webp: return bytes.count >= 12 && Int(le32(bytes, 4)) + 8 + Int(le32(bytes, 4) & 1) == bytes.count
        case .heif: return boxesEnd(bytes) == bytes.count
        }
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    /// The offset just past the `IEND` chunk, or nil.
    private static func pngEnd(_ b: [UInt8]) -> Int? {
        var i = 8
        while i + 12 <= b.count {
            let length = Int(be32(b, i))
            let end = i + 12 + length
            guard end <= b.count else { return nil }
            if b[i + 4] == 0x49, b[i + 5] == 0x45, b[i + 6] == 0x4E, b[i + 7] == 0x44 { return end }  // IEND
            i = end
        }
        return nil
    }

    /// The offset where a sequence of top-level ISO-BMFF boxes ends, or nil.
    private static func boxesEnd(_ b: [UInt8]) -> Int? {
        var i = 0
        while i + 8 <= b.count {
            var size = Int(be32(b, i))
            if size == 1 {
                guard i + 16 <= b.count else { return nil }
                let large = UInt64(be32(b, i + 8)) << 32 | UInt64(be32(b, i + 12))
                guard large <= UInt64(b.count) else { return nil }
                size = Int(large)
            } else if size == 0 {
                size = b.count - i  // to the end of the file
            }
            guard size >= 8, i + size <= b.count else { return nil }
            i += size
        }
        return i
    }
}
