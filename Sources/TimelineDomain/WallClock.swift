/// A source of the current wall-clock time in milliseconds since 1970 (injectable for tests):
/// event timestamps, push ids and session expiry are dates, not the durations `Swift.Clock`
/// measures, hence its own name.
public protocol WallClock: Sendable {
    /// Now, in milliseconds since 1970.
    func nowMilliseconds() -> Int64
}
