import Curl
import Dispatch
import Foundation
import HTTPSignatures
import JSONModel
import OpenSSL
import Synchronization

/// Why a fetch or a delivery to another server failed.
public struct FederationError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public let message: String
    /// A failure described by `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// This server's requests to others (#43): fetching actors (to check their signatures and
/// record their accounts) and delivering signed activities. Through libcurl, as Web Push is:
/// https only, no redirects, addresses off the public Internet refused unless `allowPrivate`,
/// a CA file and `--connect-to` lines for tests. Each request runs on a thread of its own (a
/// slow host holds up no other request) with a new handle.
public final class FederationClient: Sendable {
    /// How the client reaches other servers.
    public struct Options: Sendable {
        /// An authority to trust besides the system's (a test CA).
        public var caFile: String?
        /// Whether loopback and private addresses may be reached (tests on one machine).
        public var allowPrivate = false
        /// curl's `--connect-to` lines, `HOST:PORT:ADDR:PORT`.
        public var connectTo: [String] = []
        /// The most bytes of a fetched document.
        public var maxDocumentBytes = 1 << 20
        /// How long one request may take.
        public var timeout: Duration = .seconds(10)
        /// How long fetching a video may take.
        public var mediaTimeout: Duration = .seconds(120)
        /// Default options.
        public init() {}
    }

    /// The options it was made with.
    public let options: Options
    /// The key that signs a fetch no user signs (the server's own actor's), once it is given.
    private let fetchSigner = Mutex<(keyId: String, key: RSAKey)?>(nil)

    /// A client with `options`.
    public init(options: Options = Options()) { self.options = options }

    /// Signs every fetch from now on (draft-cavage) with `key`, whose id is `keyId`, unless a
    /// user's key signs it: servers that require signed fetches (GoToSocial by default, Mastodon
    /// in authorised-fetch mode) then answer.
    public func signFetches(keyId: String, key: RSAKey) { fetchSigner.withLock { $0 = (keyId, key) } }

    /// The actor whose id is `url` (its key's id without the fragment), fetched as an
    /// ActivityPub document.
    public func fetchActor(_ url: String) async throws(FederationError) -> RemoteActor {
        guard let actor = RemoteActor(try await fetchDocument(url), fetchedFrom: url) else {
            throw FederationError("\(url) is not an actor document with an inbox and its own key")
        }
        return actor
    }

    /// The ActivityPub document at `url` (an actor, a `Note`), as JSON.
    public func fetchDocument(_ url: String) async throws(FederationError) -> JSONValue {
        try await fetchJSON(url, accept: "application/activity+json, application/ld+json")
    }

    /// The actor id WebFinger gives for the handle `name@host` (its `self` link).
    public func webFinger(_ handle: String) async throws(FederationError) -> String {
        let parts = handle.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            let resource = "acct:\(handle)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        else { throw FederationError("\(handle) is not a handle, name@host") }
        let document = try await fetchJSON(
            "https://\(parts[1])/.well-known/webfinger?resource=\(resource)", accept: "application/jrd+json")
        guard case .array(let links)? = document["links"],
            let actor = links.first(where: {
                $0["rel"]?.string == "self"
                    && [
                        "application/activity+json",
                        "application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\""
                    ]
                    .contains($0["type"]?.string ?? "")
            })?["href"]?.string
        else { throw FederationError("\(handle) has no ActivityPub actor") }
        return actor
    }

    /// The bytes of the media file at `url` (a remote post's photo), at most `limit`; signed
    /// by `signer` (a local follower's actor key: a followers-only post's photo is theirs to see).
    public func fetchMedia(_ url: String, limit: Int, signer: (keyId: String, key: RSAKey)? = nil)
        async throws(FederationError) -> [UInt8]
    {
        let answer = try await get(url, accept: "image/*", limit: limit, signer: signer)
        guard answer.status == 200 else { throw FederationError("fetching \(url) answered \(answer.status)") }
        return answer.body
    }

    private func fetchJSON(_ url: String, accept: String) async throws(FederationError) -> JSONValue {
        let answer = try await get(url, accept: accept, limit: options.maxDocumentBytes)
        guard answer.status == 200 else { throw FederationError("fetching \(url) answered \(answer.status)") }
        guard let document = try? JSONDecoder().decode(JSONValue.self, from: Data(answer.body)) else {
            throw FederationError("\(url) did not answer JSON")
        }
        return document
    }

    /// Fetches the video (or any large file) at `url` into a new file at `path`, at most `limit`
    /// bytes, signed as `fetchMedia` is; within `Options.mediaTimeout`. The file is the caller's
    /// to remove, whatever happened.
    public func fetchMediaFile(
        _ url: String, to path: String, limit: Int, signer: (keyId: String, key: RSAKey)? = nil
    ) async throws(FederationError) {
        let headers = try signedGetHeaders(url, accept: "video/*", signer: signer)
        let status = try await run { client throws(FederationError) in
            do {
                return try client.download(
                    url, headers: headers, to: path, limit: limit, timeout: self.options.mediaTimeout)
            } catch { throw FederationError("fetching \(url) failed: \(error)") }
        }
        guard status == 200 else { throw FederationError("fetching \(url) answered \(status)") }
    }

    private func get(_ url: String, accept: String, limit: Int, signer: (keyId: String, key: RSAKey)? = nil)
        async throws(FederationError) -> HTTPSAnswer
    {
        let headers = try signedGetHeaders(url, accept: accept, signer: signer)
        return try await run { client throws(FederationError) in
            do {
                return try client.get(url, headers: headers, limit: limit, timeout: self.options.timeout)
            } catch { throw FederationError("fetching \(url) failed: \(error)") }
        }
    }

    /// A GET's header lines, signed (draft-cavage) by `signer`, or else by the server's own actor.
    private func signedGetHeaders(_ url: String, accept: String, signer: (keyId: String, key: RSAKey)?)
        throws(FederationError) -> [String]
    {
        var message = SignedMessage(method: "GET", uri: url, headers: [("Accept", accept)], body: [])
        if let signer = signer ?? fetchSigner.withLock({ $0 }) {
            do { try HTTPSigner.signCavage(&message, keyId: signer.keyId, key: signer.key, at: Date()) } catch {
                throw FederationError("signing for \(url) failed: \(error)")
            }
        }
        return message.headers.filter { $0.name != "Host" }.map { "\($0.name): \($0.value)" }
    }

    /// POSTs `activity` to `inbox`, signed (draft-cavage, as every server takes it) with
    /// `key`, whose id is `keyId`; answers the status.
    public func deliver(_ activity: [UInt8], to inbox: String, keyId: String, key: RSAKey)
        async throws(FederationError) -> Int
    {
        try await deliver(
            activity, to: inbox, headers: try Self.signedHeaders(activity, to: inbox, keyId: keyId, key: key))
    }

    /// The headers of `activity`'s delivery to `inbox`, signed now (draft-cavage) with `key`, as
    /// `Name: value` lines: for a delivery signed before it is sent (an erased actor's `Delete`,
    /// signed before the key is shredded).
    public static func signedHeaders(_ activity: [UInt8], to inbox: String, keyId: String, key: RSAKey)
        throws(FederationError) -> [String]
    {
        var message = SignedMessage(
            method: "POST", uri: inbox, headers: [("Content-Type", "application/activity+json")], body: activity)
        do {
            try HTTPSigner.signCavage(&message, keyId: keyId, key: key, at: Date())
        } catch { throw FederationError("signing for \(inbox) failed: \(error)") }
        return message.headers.filter { $0.name != "Host" }.map { "\($0.name): \($0.value)" }
    }

    /// POSTs `activity` to `inbox` with `headers` (signed already); answers the status.
    public func deliver(_ activity: [UInt8], to inbox: String, headers: [String]) async throws(FederationError) -> Int {
        try await run { client throws(FederationError) in
            do {
                return try client.post(inbox, headers: headers, body: activity, timeout: self.options.timeout)
            } catch { throw FederationError("delivering to \(inbox) failed: \(error)") }
        }
    }

    /// Runs `body` with a new libcurl handle on a thread of its own.
    private func run<T: Sendable>(_ body: @escaping @Sendable (HTTPSClient) throws(FederationError) -> T)
        async throws(FederationError) -> T
    {
        let options = self.options
        let result: Result<T, FederationError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                guard
                    let client = HTTPSClient(
                        caFile: options.caFile, allowPrivate: options.allowPrivate, connectTo: options.connectTo)
                else { return continuation.resume(returning: .failure(FederationError("libcurl could not start"))) }
                continuation.resume(returning: Result { () throws(FederationError) in try body(client) })
            }
        }
        return try result.get()
    }
}
