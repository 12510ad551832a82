import Foundation
import TimelineDomain

/// The system clock, moved by `offset` (0 but for test servers: `TIMELINE_CLOCK_OFFSET_MS`).
public struct SystemClock: WallClock {
    /// How far ahead of the system's time this clock runs (ms).
    public var offset: Int64
    /// The system clock, `offset` ms ahead.
    public init(offset: Int64 = 0) { self.offset = offset }
    /// Now, in milliseconds since 1970.
    public func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) + offset }
}
