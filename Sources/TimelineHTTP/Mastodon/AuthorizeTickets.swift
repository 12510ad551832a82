import Foundation
import Sodium
import Synchronization
import Timeline

/// The authorize page's sign-in: a short-lived, single-use ticket, not a session. A correct
/// email and password on the page (`checkSignIn`, which records nothing on success) give the
/// page a random ticket, held here only as its hash, in memory: bound to the person, to the
/// exact authorization request the page shows (client, redirect URI, scopes, state, PKCE
/// challenge) and to the CSRF value of that page, and ended by the decision — Authorize or
/// Deny, or any decision that presents it. It is good for nothing else: no bearer token, no
/// other app, no other page; an abandoned sign-in leaves nothing but this entry, which
/// expires. A restart ends every ticket (the person signs in again).
///
/// Every ticket lives as long, so the order of issue is the order of expiry and the expired
/// ones leave from the front of the queue. A person holds at most `maxPerUser` (a new one
/// ends their oldest), the server `maxTotal`; each needs a correct password, under the
/// sign-in limits, to make.
final class AuthorizeTickets: Sendable {
    static let lifetimeSeconds = 15 * 60
    static let maxPerUser = 8
    static let maxTotal = 20_000

    /// What a ticket lets its holder decide.
    struct Ticket {
        /// The person who signed in.
        let user: UserID
        /// Where in the log their credentials had last changed when they signed in: a change
        /// since (a password change, signing out everywhere, a suspension) ends the ticket.
        let credentials: UInt64?
        /// The authorization request the page showed (`AuthorizeTickets.binding`).
        let request: String
        /// BLAKE2b of the CSRF value of the page the ticket was issued with.
        let csrfHash: [UInt8]
        let expires: ContinuousClock.Instant
    }

    private struct State {
        /// By the ticket's hash.
        var tickets: [[UInt8]: Ticket] = [:]
        /// Hashes in the order issued (entries of tickets already gone are skipped).
        var queue = ArrivalQueue<[UInt8]>()
        /// Each person's live tickets, oldest first.
        var byUser: [UserID: [[UInt8]]] = [:]

        mutating func remove(_ hash: [UInt8]) -> Ticket? {
            guard let found = tickets.removeValue(forKey: hash) else { return nil }
            let left = (byUser[found.user] ?? []).filter { $0 != hash }
            byUser[found.user] = left.isEmpty ? nil : left
            return found
        }

        /// Drops the expired tickets, and the oldest ones while more than `keep` are held.
        mutating func drop(at now: ContinuousClock.Instant, keep: Int) {
            while let hash = queue.first {
                if let found = tickets[hash], found.expires > now, tickets.count <= keep { break }
                _ = remove(hash)
                queue.removeFirst()
            }
        }
    }

    private let state = Mutex(State())

    /// A new ticket for `user`, bound to `request` and to the page's `csrf`.
    func issue(for user: UserID, credentials: UInt64?, request: String, csrf: String) -> String {
        let ticket = Sodium.randomToken(32)
        let hash = Sodium.hash(Array(ticket.utf8))
        let entry = Ticket(
            user: user, credentials: credentials, request: request,
            csrfHash: Sodium.hash(Array(csrf.utf8)),
            expires: .now + .seconds(Self.lifetimeSeconds))
        state.withLock { state in
            state.drop(at: .now, keep: Self.maxTotal - 1)
            if let mine = state.byUser[user], mine.count >= Self.maxPerUser { _ = state.remove(mine[0]) }
            state.tickets[hash] = entry
            state.queue.append(hash)
            state.byUser[user, default: []].append(hash)
        }
        return ticket
    }

    /// The ticket, which is used up whatever follows; nil unless it is live, was issued for
    /// exactly `request` and with the page whose CSRF value is `csrf`.
    func redeem(_ ticket: String, request: String, csrf: String) -> Ticket? {
        let found = state.withLock { $0.remove(Sodium.hash(Array(ticket.utf8))) }
        guard let found, found.expires > .now,
            Sodium.constantTimeEqual(found.csrfHash, Sodium.hash(Array(csrf.utf8))),
            Sodium.constantTimeEqual(Array(found.request.utf8), Array(request.utf8))
        else { return nil }
        return found
    }

    /// Ends the ticket, if it is one (the page was opened again: that sign-in was abandoned).
    func end(_ ticket: String) {
        _ = state.withLock { $0.remove(Sodium.hash(Array(ticket.utf8))) }
    }

    /// The request a ticket is bound to, from the page's fields: each value length-prefixed,
    /// so no two different requests read the same.
    static func binding(_ fields: [String?]) -> String {
        fields.map { $0.map { "\($0.utf8.count):\($0)" } ?? "-" }.joined(separator: ",")
    }
}
