import Synchronization
import Timeline

/// A token bucket per key (a client address, a session): at most `capacity` units at once,
/// refilled evenly over `period`. Guessing passwords or looking up emails from one address or
/// session is slow, and nobody can lock another person out by failing on purpose from
/// elsewhere.
final class Throttle: Sendable {
    private let capacity: Double
    private let perSecond: Double
    private let what: String
    private let buckets = Mutex<
        (levels: [String: (tokens: Double, at: ContinuousClock.Instant)], swept: ContinuousClock.Instant)
    >(([:], .now))

    /// `what` names what is limited in the `rate_limited` message ("sign-ups or sign-ins").
    init(capacity: Int, per period: Duration, what: String) {
        self.capacity = Double(max(1, capacity))
        perSecond = self.capacity / max(Self.seconds(period), 1e-3)
        self.what = what
    }

    /// Takes `cost` units for every key of `keys`, or none of them and throws `rate_limited`
    /// (with when to try again) when one of the keys has not that many left.
    func admit(_ keys: String..., cost: Int = 1) throws(TimelineError) {
        let now = ContinuousClock.now, cost = Double(cost)
        let wait = buckets.withLock { state -> Double in
            // Full buckets are forgotten, at most once a minute (not on every request of a flood).
            if state.levels.count > 100_000, now - state.swept > .seconds(60) {
                state.levels = state.levels.filter { level($0.value, now) < capacity }
                state.swept = now
            }
            let short = keys.map { max(0, cost - level(state.levels[$0], now)) }.max() ?? 0
            guard short == 0 else { return short / perSecond }
            for key in keys { state.levels[key] = (level(state.levels[key], now) - cost, now) }
            return 0
        }
        guard wait == 0 else {
            let seconds = wait.isFinite ? Int(wait.rounded(.up)) : 3600
            throw TimelineError(.rateLimited, "too many \(what) from here; try again in \(seconds) s")
        }
    }

    /// The units `bucket` holds at `now` (a key never seen is full).
    private func level(_ bucket: (tokens: Double, at: ContinuousClock.Instant)?, _ now: ContinuousClock.Instant)
        -> Double
    {
        guard let bucket else { return capacity }
        return min(capacity, bucket.tokens + Self.seconds(now - bucket.at) * perSecond)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
