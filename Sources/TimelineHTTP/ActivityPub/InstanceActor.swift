import Foundation
import OpenSSL
import Timeline

/// The server's own actor (#43), `https://HOST/actor`, an `Application` as Mastodon's instance
/// actor is: its key signs every request this server makes to others that no user makes
/// (fetching an actor, a `Note`, a photo), so that servers requiring signed fetches — GoToSocial
/// by default, Mastodon in authorised-fetch mode — answer them. Its document is served to
/// anyone, unsigned requests too: a server checking one of its signatures fetches it. It takes
/// activities at its inbox as the shared inbox does.
public enum InstanceActor {
    /// The key pair in `directory/instance-actor.pem` (0600), made on first use: the server's
    /// own, as Web Push's VAPID key is (`DB/push/vapid.key`), not a person's.
    public static func key(in directory: String) throws -> RSAKey {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/instance-actor.pem"
        if let data = FileManager.default.contents(atPath: path) {
            return try RSAKey(privatePEM: String(decoding: data, as: UTF8.self))
        }
        let key = try RSAKey.generate()
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(try key.privatePEM().utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        return key
    }

    /// The id of its key on the server whose public origin is `origin`.
    public static func keyID(origin: String) -> String { FederationURLs(origin: origin).instanceActorKey }

    static let routes: [Route] = [
        ActivityPubAPI.get("/actor", open: true) { api, request, urls in
            guard let key = api.options.instanceActorKey else {
                throw TimelineError(.notFound, "this server has no actor of its own")
            }
            guard ActivityPubAPI.wantsActivity(request.http) else { return ActivityPubAPI.redirect(urls.origin + "/") }
            let publicKey: String
            do { publicKey = try key.publicPEM() } catch {
                throw TimelineError(.internal, "the server's key cannot be read: \(error)")
            }
            return ActivityPubAPI.document(
                ActivityStreams.Application(
                    id: urls.instanceActor, preferredUsername: urls.domain, url: urls.origin + "/",
                    inbox: urls.instanceActor + "/inbox", outbox: urls.instanceActor + "/outbox",
                    endpoints: .init(sharedInbox: urls.sharedInbox),
                    publicKey: .init(
                        id: urls.instanceActorKey, owner: urls.instanceActor, publicKeyPem: publicKey)))
        },
        Route(
            "POST", "/actor/inbox", .anyone, scope: .none,
            .later { api, request in try await api.receiveActivity(request) }, nil)
    ]
}
