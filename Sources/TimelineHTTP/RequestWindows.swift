import Foundation
import MicroHTTPD
import Synchronization
import Timeline

/// The request limits of both APIs (Mastodon's rule): at most `limit` requests per key (a valid
/// token, or a client address) in a window of five minutes that starts at the key's first
/// request, told on every answer as `X-RateLimit-Limit`, `-Remaining` and `-Reset` (when the
/// window ends, ISO 8601), and refused with 429 past it.
///
/// Memory and time are bounded whatever a flood sends: windows are kept in the order they
/// started, so the ended ones leave from the front as requests come (no scan of the table),
/// and at most `capacity` are kept: past it the oldest window is forgotten early (its key
/// starts a new one when it comes back).
final class RequestWindows: Sendable {
    let limit: Int
    private let window: TimeInterval
    private let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var windows: [String: (start: TimeInterval, count: Int)] = [:]
        /// Every window's key and start, oldest first (a window forgotten early stays queued until
        /// its turn, and is then skipped).
        var order = ArrivalQueue<(key: String, start: TimeInterval)>()

        /// Forgets the oldest window.
        mutating func dropOldest() {
            guard let (key, start) = order.removeFirst() else { return }
            if windows[key]?.start == start { windows[key] = nil }
        }
    }

    init(limit: Int, window: TimeInterval = 300, capacity: Int = 100_000) {
        self.limit = max(1, limit)
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// The key of a valid token's requests (a keyed hash: the token itself is not kept).
    static func key(token: String) -> String {
        var hasher = Hasher()
        hasher.combine(token)
        return "token:\(hasher.finalize())"
    }

    /// The key of the requests of a client address without a valid token (an IPv6 client's /64).
    static func key(address: String) -> String { "address:" + IPAddress.clientKey(address) }

    /// The number of windows kept (for tests).
    var count: Int { state.withLock { $0.windows.count } }

    /// Counts one request of `key`: whether it is within the limit, and the headers to send.
    func take(_ key: String, now: Date = Date()) -> (allowed: Bool, headers: [(name: String, value: String)]) {
        let time = now.timeIntervalSince1970
        let (start, count) = state.withLock { state -> (TimeInterval, Int) in
            while let oldest = state.order.first, oldest.start + window <= time { state.dropOldest() }
            if let current = state.windows[key] {
                state.windows[key] = (current.start, current.count + 1)
                return (current.start, current.count + 1)
            }
            while state.windows.count >= capacity, state.order.first != nil { state.dropOldest() }
            state.windows[key] = (time, 1)
            state.order.append((key, time))
            return (time, 1)
        }
        let reset = JSONOutput.timestamp(Int64((start + window) * 1000))
        let remaining = String(max(0, limit - count))
        return (
            count <= limit,
            [
                ("X-RateLimit-Limit", String(limit)), ("X-RateLimit-Remaining", remaining),
                ("X-RateLimit-Reset", reset)
            ]
        )
    }
}
