import Foundation
import JSONModel
import MicroHTTPD
import Sodium
import Timeline

/// A person's domain blocks (#43), as Mastodon has them: `GET /api/v1/domain_blocks` (the
/// servers the bearer blocks, by host, in order, at most `limit`), `POST` and `DELETE` with a
/// `domain` (`blockAccountDomain`, `unblockAccountDomain`; an empty object back). To the bearer,
/// every account of a blocked server is as if blocked both ways; the follows with them end.
/// And the operator's (`timeline federation block`), as Mastodon's `GET /api/v1/instance/domain_blocks`
/// lists them to signed-in users (Mastodon's `show_domain_blocks: users`).
extension MastodonAPI {
    static let domainBlockRoutes: [Route] = [
        now(
            "GET", "/api/v1/domain_blocks", scope: "read:blocks",
            doc: .init("The servers the bearer blocks.", returns: .domainBlocks, query: ["limit"])
        ) { api, request, _ in
            let limit = min(max(Int(try MastodonParams(request.http).string("limit") ?? "") ?? 100, 1), 200)
            return Responses.entity(
                200, Array(try api.service.serversBlocked(by: try request.requireViewer()).prefix(limit)))
        },
        now(
            "GET", "/api/v1/instance/domain_blocks", scope: "read",
            doc: .init(
                "The servers the operator blocked: nothing from them is taken, nothing is sent to them (suspend).",
                returns: .instanceDomainBlocks)
        ) { api, request, _ in
            _ = try request.requireViewer()
            return Responses.entity(200, try api.service.blockedDomains().map(Mastodon.DomainBlock.init(suspended:)))
        },
        changingDomainBlock("POST", { .blockAccountDomain(host: $0) }, doc: "Blocks every account of a server."),
        changingDomainBlock("DELETE", { .unblockAccountDomain(host: $0) }, doc: "Lifts a block of a server.")
    ]

    private static func changingDomainBlock(
        _ method: String, _ command: @escaping @Sendable (String) -> Command, doc: String
    ) -> Route {
        later(
            method, "/api/v1/domain_blocks", scope: "write:blocks",
            doc: .init(doc, returns: .empty, form: ["domain"])
        ) { api, request, _ in
            let domain = try MastodonParams(request.http).string("domain") ?? ""
            _ = try await api.execute(command(domain), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    }
}

extension Mastodon {
    /// A server the operator blocked (`GET /api/v1/instance/domain_blocks`).
    struct DomainBlock: Codable, Sendable {
        var domain: String
        /// The SHA-256 of `domain`, in hex (Mastodon's, for a domain shown obfuscated).
        var digest: String
        /// `suspend`: Timeline's operator block takes nothing from the server and sends it nothing.
        var severity: String
        /// The reason: none is recorded.
        var comment: Nullable<String>

        /// The operator's block of `domain`.
        init(suspended domain: String) {
            self.domain = domain
            digest = hex(Sodium.sha256(Array(domain.utf8)))
            severity = "suspend"
            comment = Nullable(nil)
        }
    }
}
