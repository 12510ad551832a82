import Foundation
import HTTPSignatures
import JSONModel
import MicroHTTPD
import OpenSSL
import Sodium
import Synchronization
import Timeline
import TimelineFederation

/// Signed fetches (#43): another server reading something here on behalf of one of its actors
/// (a followers-only post's photo, fetched for a follower) signs its GET with that actor's key,
/// as Mastodon's authorised fetch does. A GET without a bearer token whose signature verifies
/// with the key recorded for a remote account is read as that account: the one privacy policy
/// then shows it what that account may see, and nothing else. A signature that does not verify,
/// or an actor not known here, leaves the request anonymous (it is never fetched from here: a
/// read waits for no other server) — unless the server is in authorised-fetch mode, where an
/// ActivityPub document needs a signature that verifies (`requireSignedFetch`).
extension TimelineAPI {
    /// `request` as HTTP Signatures read it: its method, its whole URI under `origin` (the
    /// signed `@target-uri` / `(request-target)`), its headers and body.
    static func signedMessage(_ request: HTTPRequest, origin: String) -> SignedMessage {
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        return SignedMessage(
            method: request.method, uri: origin + request.path + (query.isEmpty ? "" : "?" + query),
            headers: request.headers.map { ($0.key, $0.value) }, body: request.body)
    }

    /// The grant of the remote account that signed `request` (read-only), if one did.
    func signedFetchGrant(_ request: HTTPRequest, origin: String) -> Grant? {
        guard request.method == "GET", request.header("Signature") != nil,
            let signature = try? ReceivedSignature.parse(Self.signedMessage(request, origin: origin), now: Date()),
            let account = try? service.remoteAccount(actor: String(signature.keyId.prefix { $0 != "#" })),
            account.keyId == signature.keyId, let key = try? RSAKey(publicPEM: account.publicKey),
            (try? signature.verify(with: key)) != nil, (try? service.isBlocked(serverOf: account.actor)) == false
        else { return nil }
        return Grant(user: account.userId, app: nil, scopes: ["read"])
    }

    /// In authorised-fetch mode, refuses a request for an ActivityPub document that no other
    /// server's actor signed: one of a remote account's (its grant is the request's viewer), or
    /// another's — a server's own actor, most often — whose key is fetched from its server
    /// (`signerKeys` keeps it a while). A blocked server's signature is refused too: the
    /// operator's block, or one by the local user whose document it is (`owner`), as Mastodon
    /// refuses a server its owner blocks.
    func requireSignedFetch(_ request: APIRequest, owner: UserID?) async throws(TimelineError) {
        let signer: String
        if let viewer = request.viewer {
            signer = try service.remoteAccount(viewer)?.actor ?? ""
        } else {
            guard request.http.header("Signature") != nil,
                let signature = try? ReceivedSignature.parse(
                    Self.signedMessage(request.http, origin: request.origin), now: Date())
            else {
                throw TimelineError(.unauthenticated, "this server answers signed requests alone (authorised fetch)")
            }
            signer = String(signature.keyId.prefix { $0 != "#" })
            try requireFederating(with: signer)
            guard let federation = options.federation,
                let pem = await signerKeys.key(signature.keyId, signer, federation),
                let key = try? RSAKey(publicPEM: pem), (try? signature.verify(with: key)) != nil
            else { throw TimelineError(.unauthenticated, "the request's signature does not verify") }
        }
        if let owner, let host = Validation.host(of: signer), try service.blocksServer(host, user: owner) {
            throw TimelineError(.forbidden, "the owner of this document blocks \(host)")
        }
    }
}

/// The signatures of the activities taken lately, each kept until its time leaves the accepted
/// window (`ReceivedSignature.maxSkew` after it): the same signed request sent again — a replay,
/// say of a `Follow` after its `Undo` — is refused, as it could otherwise be for 12 hours. A
/// signature is claimed before its activity is handled (two copies at once: one is refused) and
/// let go if the handling failed. Kept as SHA-256 digests, at most `capacity` (the oldest go
/// first when it is full), in memory and per process: after a restart, or on another node of a
/// cluster, a request signed before could be taken once more.
final class SeenSignatures: Sendable {
    static let capacity = 100_000

    private struct Seen {
        var expiries: [[UInt8]: Date] = [:]
        var order = ArrivalQueue<(digest: [UInt8], expiry: Date)>()
    }
    private let seen = Mutex(Seen())

    /// Claims `signature` for one request: false when it was taken already (its time still in
    /// the window), or another request with it is being handled now.
    func claim(_ signature: ReceivedSignature, now: Date = Date()) -> Bool {
        let digest = Sodium.sha256(signature.bytes), expiry = signature.time + ReceivedSignature.maxSkew
        return seen.withLock { seen in
            if let taken = seen.expiries[digest], taken > now { return false }
            // The expired first, then (when it is still full) the oldest noted.
            while let first = seen.order.first, first.expiry <= now || seen.expiries.count >= Self.capacity {
                seen.order.removeFirst()
                if seen.expiries[first.digest] == first.expiry { seen.expiries[first.digest] = nil }
            }
            seen.expiries[digest] = expiry
            seen.order.append((digest, expiry))
            return true
        }
    }

    /// Lets `signature` go: its request failed here, so its sender may send it again as it was.
    func release(_ signature: ReceivedSignature) {
        let digest = Sodium.sha256(signature.bytes)
        _ = seen.withLock { $0.expiries.removeValue(forKey: digest) }
    }
}

/// The public keys of the servers' actors that signed fetches here lately, by key id (at most
/// `capacity`; all forgotten when it is full, and each after `lifetime`, for key rotation).
final class SignerKeys: Sendable {
    static let capacity = 1000
    static let lifetime: TimeInterval = 3600
    private let keys = Mutex<[String: (pem: String, at: Date)]>([:])

    /// The key `keyId` of the actor `owner`: kept, or fetched now from its server.
    func key(_ keyId: String, _ owner: String, _ federation: FederationClient) async -> String? {
        if let kept = keys.withLock({ $0[keyId] }), Date().timeIntervalSince(kept.at) < Self.lifetime {
            return kept.pem
        }
        guard let actor = try? await federation.fetchActor(owner), actor.keyId == keyId else { return nil }
        keys.withLock {
            if $0.count >= Self.capacity { $0.removeAll() }
            $0[keyId] = (actor.publicKey, Date())
        }
        return actor.publicKey
    }
}
