import Foundation
import TimelineDomain

/// The system clock.
public struct SystemClock: WallClock {
    /// The system clock.
    public init() {}
    /// Now, in milliseconds since 1970.
    public func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
