import TimelineDomain

/// A Mastodon id: a 64-bit number, answered as its decimal text, whose high 48 bits are the
/// milliseconds since 1970 at which its object was made and whose low 16 a sequence within
/// that millisecond, so ids sort by creation time and compare as numbers (`max_id`, `since_id`,
/// `min_id`). The Mastodon API answers and accepts only these; `/v1` keeps the native ids, and
/// `TimelineService.numericID(of:)` / `object(numbered:)` map one to the other.
public struct NumericID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number.
    public let value: UInt64

    /// The id `value`.
    public init(_ value: UInt64) { self.value = value }

    /// The first id of millisecond `milliseconds` (clamped to 0 … 2⁴⁸ − 1) with `sequence`.
    public init(milliseconds: Int64, sequence: UInt16) {
        let clamped = UInt64(max(0, min(milliseconds, Int64(1) << 48 - 1)))
        value = clamped << 16 | UInt64(sequence)
    }

    /// The id written as `text`: decimal digits only (no sign, no spaces), at most 2⁶⁴ − 1;
    /// nil for anything else.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt64(text) else {
            return nil
        }
        self.value = value
    }

    /// The decimal text.
    public var description: String { String(value) }

    /// The millisecond the id was made in.
    public var milliseconds: Int64 { Int64(value >> 16) }

    /// Numeric order: creation order.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}
