import Foundation
import HTTPSignatures
import JSONModel
import MicroHTTPD
import OpenSSL
import Timeline

/// Signed fetches (#43): another server reading something here on behalf of one of its actors
/// (a followers-only post's photo, fetched for a follower) signs its GET with that actor's key,
/// as Mastodon's authorised fetch does. A GET without a bearer token whose signature verifies
/// with the key recorded for a remote account is read as that account: the one privacy policy
/// then shows it what that account may see, and nothing else. A signature that does not verify,
/// or an actor not known here, leaves the request anonymous (it is never fetched from here: a
/// read waits for no other server).
extension TimelineAPI {
    /// The grant of the remote account that signed `request` (read-only), if one did.
    func signedFetchGrant(_ request: HTTPRequest, origin: String) -> Grant? {
        guard request.method == "GET", request.header("Signature") != nil else { return nil }
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let message = SignedMessage(
            method: "GET", uri: origin + request.path + (query.isEmpty ? "" : "?" + query),
            headers: request.headers.map { ($0.key, $0.value) }, body: [])
        guard let signature = try? ReceivedSignature.parse(message, now: Date()),
            let account = try? service.remoteAccount(actor: String(signature.keyId.prefix { $0 != "#" })),
            account.keyId == signature.keyId, let key = try? RSAKey(publicPEM: account.publicKey),
            (try? signature.verify(with: key)) != nil, (try? service.isBlocked(serverOf: account.actor)) == false
        else { return nil }
        return Grant(user: account.userId, app: nil, scopes: ["read"])
    }
}
