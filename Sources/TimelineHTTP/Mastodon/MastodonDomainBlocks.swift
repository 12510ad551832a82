import Foundation
import MicroHTTPD
import Timeline

/// A person's domain blocks (#43), as Mastodon has them: `GET /api/v1/domain_blocks` (the
/// servers the bearer blocks, by host, in order, at most `limit`), `POST` and `DELETE` with a
/// `domain` (`blockAccountDomain`, `unblockAccountDomain`; an empty object back). To the bearer,
/// every account of a blocked server is as if blocked both ways; the follows with them end.
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
