import Foundation
import MicroHTTPD
import Timeline

extension Discovery {
    /// WebFinger, host-meta and NodeInfo.
    static let routes: [Route] = [
        ActivityPubAPI.get("/.well-known/webfinger", open: true) { api, request, urls in
            guard let resource = request.http.query.first(where: { $0.name == "resource" })?.value, !resource.isEmpty
            else { throw TimelineError.invalid("resource", "WebFinger needs a resource (acct:user@host)") }
            let profile = try api.webFingerProfile(resource, urls)
            let jrd = JRD(
                subject: "acct:\(profile.username)@\(urls.domain)",
                aliases: [urls.actor(profile.id), urls.profilePage(profile.username)],
                links: [
                    Link(rel: "self", type: ActivityStreams.mediaType, href: urls.actor(profile.id)),
                    Link(
                        rel: "http://webfinger.net/rel/profile-page", type: "text/html",
                        href: urls.profilePage(profile.username))
                ])
            return ActivityPubAPI.document(jrd, type: "application/jrd+json; charset=utf-8")
        },
        ActivityPubAPI.get("/.well-known/host-meta", open: true) { _, _, urls in
            let xrd = """
                <?xml version="1.0" encoding="UTF-8"?>
                <XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">
                  <Link rel="lrdd" template="\(urls.origin)/.well-known/webfinger?resource={uri}"/>
                </XRD>

                """
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/xrd+xml; charset=utf-8")],
                body: .bytes(Array(xrd.utf8)))
        },
        ActivityPubAPI.get("/.well-known/nodeinfo", open: true) { _, _, urls in
            ActivityPubAPI.document(
                NodeInfoLinks(links: [Link(rel: nodeInfoSchema, href: "\(urls.origin)/nodeinfo/2.1")]),
                type: "application/json; charset=utf-8")
        },
        ActivityPubAPI.get("/nodeinfo/2.1", open: true) { api, _, urls in
            let texts = try api.mastodonInstanceTexts()
            let usage = try api.service.instanceUsage()
            let info = NodeInfo(
                software: .init(version: "1.0", repository: api.options.sourceURL, homepage: urls.origin),
                openRegistrations: true,
                usage: .init(users: .init(total: usage.users), localPosts: usage.posts),
                metadata: .init(
                    nodeName: texts.title ?? "Timeline",
                    nodeDescription: texts.description ?? "Timeline: a photo-sharing social network."))
            return ActivityPubAPI.document(info, type: nodeInfoType)
        }
    ]
}

extension TimelineAPI {
    /// The local user a WebFinger `resource` names: `acct:user@host` (or `user@host`, as some
    /// servers send it) of this server's domain, or the address of their actor or profile page.
    func webFingerProfile(_ resource: String, _ urls: FederationURLs) throws(TimelineError) -> Profile {
        let notFound = TimelineError.notFound("account", String(resource.prefix(200)))
        if resource.hasPrefix(urls.origin + "/") {
            let path = resource.dropFirst(urls.origin.count + 1)
            if path.hasPrefix("@") { return try service.user(named: String(path.dropFirst())) }
            if path.hasPrefix("users/") { return try federatedProfile(id: String(path.dropFirst("users/".count))) }
            throw notFound
        }
        let handle = resource.hasPrefix("acct:") ? resource.dropFirst(5) : Substring(resource)
        let parts = handle.drop { $0 == "@" }.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].lowercased() == urls.domain.lowercased() else { throw notFound }
        return try service.user(named: String(parts[0]))
    }
}
