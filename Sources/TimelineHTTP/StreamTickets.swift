import Foundation
import Sodium
import Synchronization
import Timeline

/// Short-lived, single-use tickets that let a browser's `EventSource` (which cannot send an
/// `Authorization` header) open the bearer's event stream without putting the long-lived
/// session token in a URL. Kept in memory: a ticket is used within seconds of being issued.
///
/// Issuing and redeeming cost O(1): every ticket lives as long, so the order of issue is the
/// order of expiry, and the expired ones are dropped from the front of that queue. A session
/// holds at most `maxPerSession` unused tickets; a ticket is worth only as much as its session,
/// so redeeming one whose session has ended fails (`TimelineAPI.stream` checks).
final class StreamTickets: Sendable {
    static let lifetimeSeconds = 60
    static let maxPerSession = 8

    struct Ticket {
        let user: UserID
        /// The session token it was issued to (in memory only).
        let session: String
        let expires: ContinuousClock.Instant
    }

    private struct State {
        var tickets: [String: Ticket] = [:]
        /// Tickets in the order issued, so in the order they expire.
        var queue = ArrivalQueue<String>()
        var perSession: [String: Int] = [:]

        mutating func remove(_ ticket: String) -> Ticket? {
            guard let found = tickets.removeValue(forKey: ticket) else { return nil }
            let left = (perSession[found.session] ?? 1) - 1
            perSession[found.session] = left > 0 ? left : nil
            return found
        }

        mutating func dropExpired(at now: ContinuousClock.Instant) {
            while let ticket = queue.first {
                if let found = tickets[ticket], found.expires > now { break }
                _ = remove(ticket)
                queue.removeFirst()
            }
        }
    }

    private let state = Mutex(State())

    /// A new ticket for `user` of `session`; `rate_limited` when the session already holds
    /// `maxPerSession` unused ones.
    func issue(for user: UserID, session: String) throws(TimelineError) -> String {
        let ticket = Sodium.randomToken(24)
        let now = ContinuousClock.now
        let issued = state.withLock { state -> Bool in
            state.dropExpired(at: now)
            guard state.perSession[session, default: 0] < Self.maxPerSession else { return false }
            state.tickets[ticket] = Ticket(user: user, session: session, expires: now + .seconds(Self.lifetimeSeconds))
            state.queue.append(ticket)
            state.perSession[session, default: 0] += 1
            return true
        }
        guard issued else {
            throw TimelineError(
                .rateLimited,
                "this session holds \(Self.maxPerSession) unused stream tickets; use one or wait a minute")
        }
        return ticket
    }

    /// The ticket, which is used up; `unauthenticated` if unknown, used or expired.
    func redeem(_ ticket: String) throws(TimelineError) -> Ticket {
        let found = state.withLock { $0.remove(ticket) }
        guard let found, found.expires > ContinuousClock.now else {
            throw TimelineError(.unauthenticated, "the stream ticket is unknown, used or expired")
        }
        return found
    }
}
