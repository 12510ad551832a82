internal import CZlib

/// gzip (RFC 1952) through zlib: the one place that touches its C stream.
public enum Gzip {
    /// `bytes` compressed whole as one gzip member at `level` (1 fastest … 9 smallest), or nil
    /// if zlib fails (out of memory): the caller then sends the bytes as they are.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        guard timeline_gzip_init(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound is exact enough that one call with Z_FINISH ends the stream.
        let bound = Int(deflateBound(&stream, uLong(bytes.count))) + 32
        var output = [UInt8](repeating: 0, count: bound)
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}
