import Foundation
import Synchronization
import Timeline

/// Short-lived, single-use tickets that let a browser's `EventSource` (which cannot send an
/// `Authorization` header) open the bearer's event stream without putting the long-lived
/// session token in a URL. Kept in memory: a ticket is used within seconds of being issued.
final class StreamTickets: Sendable {
    static let lifetimeSeconds = 60
    private let issued = Mutex<[String: (user: UserID, expires: ContinuousClock.Instant)]>([:])

    /// A new ticket for `user`.
    func issue(for user: UserID) -> String {
        let ticket = Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let now = ContinuousClock.now
        issued.withLock { tickets in
            tickets = tickets.filter { $0.value.expires > now }
            tickets[ticket] = (user, now + .seconds(Self.lifetimeSeconds))
        }
        return ticket
    }

    /// The user of `ticket`, which is used up; `unauthenticated` if unknown, used or expired.
    func redeem(_ ticket: String) throws(TimelineError) -> UserID {
        let found = issued.withLock { $0.removeValue(forKey: ticket) }
        guard let found, found.expires > ContinuousClock.now else {
            throw TimelineError(.unauthenticated, "the stream ticket is unknown, used or expired")
        }
        return found.user
    }
}
