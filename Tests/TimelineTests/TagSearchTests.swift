import Foundation
import Testing
@testable import Timeline
import TimelineDomain

/// Hashtags by prefix (`tags`): distinct tags in tag order, each only when the viewer may see one
/// of its posts; and the HTML page a browser gets for a path nothing serves.
@Suite struct TagSearchTests {
    @Test func tagsByPrefixAreDistinctVisibleAndPaged() async throws {
        let service = try openService()
        let ann = try await service.createUser("ann"), ben = try await service.createUser("ben"),
            shy = try await service.createUser("shy")
        _ = try await service.addPost(by: ann.id, caption: "#sunrise over the bay #Sun")
        _ = try await service.addPost(by: ben.id, caption: "#sunrise again, and #sunset #summer", image: 1)
        let gone = try await service.addPost(by: ben.id, caption: "#sundial", image: 2)
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, locked: true), as: shy.id)
        _ = try await service.addPost(by: shy.id, caption: "#sunsecret for followers", image: 3)

        #expect(try service.tags(prefix: "sun", viewer: ann.id).items == ["sun", "sundial", "sunrise", "sunset"])
        #expect(try service.tags(prefix: "#SUN").items == ["sun", "sundial", "sunrise", "sunset"])
        #expect(
            try service.tags(prefix: "su", viewer: ben.id).items == ["summer", "sun", "sundial", "sunrise", "sunset"])
        #expect(try service.tags(prefix: "sunr").items == ["sunrise"])
        #expect(try service.tags(prefix: "moon").items.isEmpty)
        // A followers-only post's tag is for its author and followers only.
        #expect(try service.tags(prefix: "sunse", viewer: shy.id).items == ["sunsecret", "sunset"])
        #expect(try service.tags(prefix: "sunse", viewer: ann.id).items == ["sunset"])

        // Pages by tag, without an empty last page.
        let first = try service.tags(prefix: "sun", PageRequest(limit: 2))
        #expect(first.items == ["sun", "sundial"] && first.next == "sundial")
        let second = try service.tags(prefix: "sun", PageRequest(limit: 2, before: first.next))
        #expect(second.items == ["sunrise", "sunset"] && second.next == nil)
        #expect(throws: TimelineError.self) { try service.tags(prefix: "sun", PageRequest(limit: 2, after: "sun")) }

        // A deleted post's tag goes with it.
        try await service.run(.deletePost(post: gone.id.rawValue), as: ben.id)
        #expect(try service.tags(prefix: "sund").items.isEmpty)
    }

    @Test func theTagsRouteAndExecAnswerTagsByPrefix() async throws {
        try await withServer { server in
            let api = server.api
            let ann = try await api.signUp("ann")
            _ = try await api.addPost(ann.token, caption: "#sunrise and #sunset, not #moon")
            let found = try await api.get("/v1/hashtags?prefix=%23sun")
            #expect(found.status == 200, "\(found)")
            #expect(found.items.compactMap { $0["name"] as? String } == ["sunrise", "sunset"], "\(found)")
            let paged = try await api.get("/v1/hashtags?prefix=sun&limit=1", bearer: ann.token)
            #expect(paged.items.compactMap { $0["name"] as? String } == ["sunrise"], "\(paged)")
            #expect(paged.json["next"] as? String == "sunrise" && paged.header("Link") != nil, "\(paged)")
            let rest = try await api.get("/v1/hashtags?prefix=sun&limit=1&before=sunrise")
            #expect(rest.items.compactMap { $0["name"] as? String } == ["sunset"], "\(rest)")

            let answers = try await execLines(
                database: server.database, [["query": "tags", "prefix": "su"]])
            let items = (answers.first?["result"] as? [String: Any])?["items"] as? [[String: Any]]
            #expect(items?.compactMap { $0["name"] as? String } == ["sunrise", "sunset"], "\(answers)")
        }
    }

    @Test func anUnknownPageIsAnHTMLPageAndAPIPathsKeepJSON() async throws {
        try await withServer { server in
            let api = server.api
            let browser = ["Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]
            let page = try await api.get("/nothing-here", headers: browser)
            #expect(page.status == 404, "\(page)")
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true, "\(page)")
            #expect(page.text.contains("Page not found") && page.text.contains("<a href=\"/\">"), "\(page)")

            // Not a browser, or an API's path: the JSON error as before.
            let plain = try await api.get("/nothing-here")
            #expect(plain.status == 404 && plain.errorCode == "not_found", "\(plain)")
            for path in ["/v1/nothing-here", "/api/v1/nothing-here", "/oauth/nothing-here", "/app/nothing/here"] {
                let reply = try await api.get(path, headers: browser)
                #expect(reply.status == 404, "\(path): \(reply)")
                #expect(reply.header("Content-Type")?.hasPrefix("text/html") != true, "\(path): \(reply)")
            }
            // Pages that exist are unchanged.
            let home = try await api.get("/", headers: browser)
            #expect(home.status == 200 && home.text.contains("/app/js/app.js"), "\(home)")
        }
    }
}
