import Foundation
import Synchronization

/// Keys noted with when they were, each remembered for `lifetime`: at most `capacity` (when it
/// is full, the expired go, and all of them if none had). For the in-memory "lately" of the
/// federation layer: actors fetched again for a key that failed, `Note`s deleted while their media
/// were fetched.
final class RecentKeys: Sendable {
    private let lifetime: TimeInterval
    private let capacity: Int
    private let noted = Mutex<[String: Date]>([:])

    /// Keys kept `lifetime` seconds each, at most `capacity` of them.
    init(lifetime: TimeInterval, capacity: Int) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Whether `key` was noted less than `lifetime` ago.
    func contains(_ key: String, now: Date = Date()) -> Bool {
        noted.withLock { $0[key].map { now.timeIntervalSince($0) < lifetime } ?? false }
    }

    /// Notes `key` now.
    func note(_ key: String, now: Date = Date()) { noted.withLock { note(key, now, in: &$0) } }

    /// Notes `key` now unless it was noted less than `lifetime` ago: whether it was noted.
    func noteUnlessRecent(_ key: String, now: Date = Date()) -> Bool {
        noted.withLock { noted in
            if let last = noted[key], now.timeIntervalSince(last) < lifetime { return false }
            note(key, now, in: &noted)
            return true
        }
    }

    private func note(_ key: String, _ now: Date, in noted: inout [String: Date]) {
        if noted.count >= capacity {
            noted = noted.filter { now.timeIntervalSince($0.value) < lifetime }
            if noted.count >= capacity { noted.removeAll() }
        }
        noted[key] = now
    }
}
