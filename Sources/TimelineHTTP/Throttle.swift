import Synchronization
import Timeline

/// Per-client-address limit on sign-ups and sign-ins (a token bucket per address): guessing
/// passwords from one address is slow, and nobody can lock another person out by failing on
/// purpose from elsewhere.
final class Throttle: Sendable {
    private let perMinute: Double
    private let buckets = Mutex<[String: (tokens: Double, at: ContinuousClock.Instant)]>([:])

    init(perMinute: Int) { self.perMinute = Double(max(1, perMinute)) }

    /// Takes one attempt for `address`, or throws `rate_limited`.
    func admit(_ address: String) throws(TimelineError) {
        let now = ContinuousClock.now
        let admitted = buckets.withLock { buckets -> Bool in
            if buckets.count > 100_000 { buckets = buckets.filter { now - $0.value.at < .seconds(60) } }
            var bucket = buckets[address] ?? (perMinute, now)
            let refill = Double((now - bucket.at).components.seconds) * perMinute / 60
            bucket = (min(perMinute, bucket.tokens + refill), refill > 0 ? now : bucket.at)
            guard bucket.tokens >= 1 else {
                buckets[address] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[address] = bucket
            return true
        }
        guard admitted else { throw TimelineError(.rateLimited, "too many sign-ups or sign-ins from this address; try again in a minute") }
    }
}
