import Foundation
import Synchronization
import Timeline

/// Mastodon's rate limits: at most `limit` requests per key (a token, or a client address
/// without one) in each window of five minutes, told on every answer as `X-RateLimit-Limit`,
/// `-Remaining` and `-Reset` (when the window ends, ISO 8601), and refused with 429 past it.
final class RequestWindows: Sendable {
    let limit: Int
    private let window: TimeInterval
    private let windows = Mutex<[String: (start: TimeInterval, count: Int)]>([:])

    init(limit: Int, window: TimeInterval = 300) {
        self.limit = max(1, limit)
        self.window = window
    }

    /// Counts one request of `key`: whether it is within the limit, and the headers to send.
    func take(_ key: String, now: Date = Date()) -> (allowed: Bool, headers: [(name: String, value: String)]) {
        let time = now.timeIntervalSince1970
        // A key's window starts at its first request and lasts `window`: a client sees its
        // whole allowance from then, and when it is whole again (`-Reset`).
        let (start, count) = windows.withLock { state -> (TimeInterval, Int) in
            if state.count > 100_000 { state = state.filter { time < $0.value.start + window } }
            let current = state[key].flatMap { time < $0.start + window ? $0 : nil } ?? (start: time, count: 0)
            state[key] = (current.start, current.count + 1)
            return (current.start, current.count + 1)
        }
        let reset = JSONOutput.timestamp(Int64((start + window) * 1000))
        return (count <= limit, [("X-RateLimit-Limit", String(limit)), ("X-RateLimit-Remaining", String(max(0, limit - count))),
                                 ("X-RateLimit-Reset", reset)])
    }
}
