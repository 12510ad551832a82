/// Generates Firebase-style push identifiers: 8 characters of millisecond timestamp, then 12
/// of randomness, from an alphabet in ASCII order, so byte order is creation order. Within one
/// millisecond the random part is incremented, so identifiers are strictly increasing.
///
/// Not thread-safe by itself: callers serialise access (the service keeps one behind a lock).
package struct PushIDGenerator: Sendable {
    /// The 64 characters of an identifier, in ASCII order (so byte order is numeric order).
    public static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private var lastTime: Int64 = -1
    private var lastRandom = [UInt8](repeating: 0, count: 12)
    private let random: @Sendable () -> UInt64

    /// - Parameter random: a source of random 64-bit words (secure randomness in production,
    ///   a seeded generator in tests).
    public init(random: @escaping @Sendable () -> UInt64) {
        self.random = random
    }

    /// The next identifier for time `milliseconds` (a clock that goes backwards is ignored).
    public mutating func next(at milliseconds: Int64) -> String {
        let time = max(milliseconds, lastTime)
        if time == lastTime {
            // Same millisecond: increment the random part as a base-64 number.
            var index = 11
            while index >= 0 && lastRandom[index] == 63 {
                lastRandom[index] = 0
                index -= 1
            }
            if index >= 0 { lastRandom[index] += 1 }
        } else {
            var word = random()
            for index in 0..<12 {
                if index == 6 { word = random() }
                lastRandom[index] = UInt8(word & 63)
                word >>= 6
            }
            // Leave headroom so increments within one millisecond never wrap.
            lastRandom[0] &= 31
        }
        lastTime = time
        var out = [UInt8](repeating: 0, count: 20)
        var t = time
        for index in stride(from: 7, through: 0, by: -1) {
            out[index] = Self.alphabet[Int(t & 63)]
            t >>= 6
        }
        for index in 0..<12 { out[8 + index] = Self.alphabet[Int(lastRandom[index])] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The millisecond timestamp encoded in a 20-character push identifier, if it is one.
    public static func timestamp(of id: String) -> Int64? {
        id.utf8.count == 20 ? timestamp(ofPrefix: id) : nil
    }

    /// The millisecond timestamp that starts `id`: a push identifier, or a `timePrefix(of:)`.
    package static func timestamp(ofPrefix id: String) -> Int64? {
        let bytes = Array(id.utf8)
        guard bytes.count >= 8 else { return nil }
        var time: Int64 = 0
        for byte in bytes.prefix(8) {
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            time = time << 6 | Int64(value)
        }
        return time
    }

    /// The first 8 characters of every identifier generated in millisecond `milliseconds`:
    /// below all of them, and above every identifier of an earlier millisecond.
    package static func timePrefix(of milliseconds: Int64) -> String {
        var out = [UInt8](repeating: alphabet[0], count: 8)
        var t = max(0, milliseconds)
        for index in stride(from: 7, through: 0, by: -1) {
            out[index] = alphabet[Int(t & 63)]
            t >>= 6
        }
        return String(decoding: out, as: UTF8.self)
    }
}
