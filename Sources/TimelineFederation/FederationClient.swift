import Curl
import Dispatch
import Foundation
import HTTPSignatures
import JSONModel
import OpenSSL

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
        /// Default options.
        public init() {}
    }

    /// The options it was made with.
    public let options: Options

    /// A client with `options`.
    public init(options: Options = Options()) { self.options = options }

    /// The actor whose id is `url` (its key's id without the fragment), fetched as an
    /// ActivityPub document.
    public func fetchActor(_ url: String) async throws(FederationError) -> RemoteActor {
        let answer = try await run { client throws(FederationError) in
            do {
                return try client.get(
                    url, headers: ["Accept: application/activity+json, application/ld+json"],
                    limit: self.options.maxDocumentBytes, timeout: self.options.timeout)
            } catch { throw FederationError("fetching \(url) failed: \(error)") }
        }
        guard answer.status == 200 else { throw FederationError("fetching \(url) answered \(answer.status)") }
        guard let document = try? JSONDecoder().decode(JSONValue.self, from: Data(answer.body)),
            let actor = RemoteActor(document, fetchedFrom: url)
        else { throw FederationError("\(url) is not an actor document with an inbox and its own key") }
        return actor
    }

    /// POSTs `activity` to `inbox`, signed (draft-cavage, as every server takes it) with
    /// `key`, whose id is `keyId`; answers the status.
    public func deliver(_ activity: [UInt8], to inbox: String, keyId: String, key: RSAKey)
        async throws(FederationError) -> Int
    {
        var message = SignedMessage(
            method: "POST", uri: inbox, headers: [("Content-Type", "application/activity+json")], body: activity)
        do {
            try HTTPSigner.signCavage(&message, keyId: keyId, key: key, at: Date())
        } catch { throw FederationError("signing for \(inbox) failed: \(error)") }
        let headers = message.headers.filter { $0.name != "Host" }.map { "\($0.name): \($0.value)" }
        return try await run { client throws(FederationError) in
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
