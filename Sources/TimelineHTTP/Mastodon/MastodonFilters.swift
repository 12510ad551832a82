import Foundation
import JSONModel
import MicroHTTPD
import Timeline

// Filters as Mastodon answers them (docs.joinmastodon.org/methods/filters): v2's filters with
// their keywords and statuses, and v1's, where a filter is one keyword (Mastodon's own
// mapping: a v1 filter's id is its keyword's, `irreversible` is the hide action). Statuses a
// filter matches carry `filtered` (`FilterResult`s) where they surface; hide leaves them out.

extension Mastodon {
    /// A filter (`Filter`); its keywords and statuses are left out inside a `FilterResult`.
    struct Filter: Codable, Sendable {
        var id: String
        var title: String
        var context: [String]
        var expires_at: Nullable<String>
        var filter_action: String
        var keywords: [FilterKeyword]?
        var statuses: [FilterStatus]?
    }

    /// A filter's keyword (`FilterKeyword`).
    struct FilterKeyword: Codable, Sendable {
        var id: String
        var keyword: String
        var whole_word: Bool
    }

    /// A filter's status (`FilterStatus`).
    struct FilterStatus: Codable, Sendable {
        var id: String
        var status_id: String
    }

    /// A filter that matched a status (`FilterResult`).
    struct FilterResult: Codable, Sendable {
        var filter: Filter
        var keyword_matches: Nullable<[String]>
        var status_matches: Nullable<[String]>
    }

    /// A v1 filter: one keyword of a filter (`V1_Filter`).
    struct V1Filter: Codable, Sendable {
        var id: String
        var phrase: String
        var context: [String]
        var whole_word: Bool
        var expires_at: Nullable<String>
        var irreversible: Bool
    }
}

extension MastodonEntities {
    /// A filter as Mastodon's entity; with its keywords and statuses unless `rules` is false.
    func filter(_ f: FilterSaved, rules: Bool = true) throws(TimelineError) -> Mastodon.Filter {
        var keywords: [Mastodon.FilterKeyword]?, statuses: [Mastodon.FilterStatus]?
        if rules {
            keywords = try f.keywords.map { k throws(TimelineError) in try filterKeyword(k) }
            statuses = try f.statuses.map { s throws(TimelineError) in try filterStatus(s) }
        }
        return Mastodon.Filter(
            id: try ids.id(.filter(f.filterId)), title: f.title, context: f.context.map(\.rawValue),
            expires_at: Nullable(f.expiresAt.map(JSONOutput.timestamp)), filter_action: f.action.rawValue,
            keywords: keywords, statuses: statuses)
    }

    /// A keyword as Mastodon's entity.
    func filterKeyword(_ k: FilterKeyword) throws(TimelineError) -> Mastodon.FilterKeyword {
        Mastodon.FilterKeyword(id: try ids.id(.filterKeyword(k.id)), keyword: k.keyword, whole_word: k.wholeWord)
    }

    /// A filter status as Mastodon's entity.
    func filterStatus(_ s: FilterStatus) throws(TimelineError) -> Mastodon.FilterStatus {
        Mastodon.FilterStatus(id: try ids.id(.filterStatus(s.id)), status_id: try ids.id(.post(s.postId)))
    }

    /// A keyword of `f` as a v1 filter.
    func v1Filter(_ k: FilterKeyword, of f: FilterSaved) throws(TimelineError) -> Mastodon.V1Filter {
        Mastodon.V1Filter(
            id: try ids.id(.filterKeyword(k.id)), phrase: k.keyword, context: f.context.map(\.rawValue),
            whole_word: k.wholeWord, expires_at: Nullable(f.expiresAt.map(JSONOutput.timestamp)),
            irreversible: f.action == .hide)
    }

    /// The matches of a status as Mastodon's `filtered`: an array for a bearer (empty when none
    /// matched), left out for a reader without a token, as Mastodon answers.
    func filterResults(_ matches: [FilterMatch]) throws(TimelineError) -> [Mastodon.FilterResult]? {
        guard viewer != nil else { return nil }
        return try matches.map { m throws(TimelineError) in
            Mastodon.FilterResult(
                filter: try filter(m.filter, rules: false), keyword_matches: Nullable(m.keywordMatches),
                status_matches: Nullable(
                    try m.statusMatches.map { list throws(TimelineError) in
                        try list.map { id throws(TimelineError) in try ids.id(.post(PostID(id))) }
                    }))
        }
    }
}

extension MastodonAPI {
    /// The keyword inputs of `keywords_attributes[]` (`keyword`, `whole_word`, `id`, `_destroy`).
    static func keywordInputs(_ params: MastodonParams, ids: MastodonIDs) throws(TimelineError)
        -> [FilterKeywordInput]
    {
        var inputs: [FilterKeywordInput] = []
        for object in params.objects("keywords_attributes") {
            var input = FilterKeywordInput(keyword: object["keyword"], wholeWord: object["whole_word"].map(truthy))
            if let raw = object["id"] {
                guard case .filterKeyword(let id) = try ids.object(.filterKeyword, raw) else {
                    throw TimelineError(.notFound, "Record not found")
                }
                input.id = id
                input.destroy = object["_destroy"].map(truthy) ?? false
            }
            inputs.append(input)
        }
        return inputs
    }

    /// A form's boolean as Rails reads one: `true`, `1`, `on` and `t` are true.
    static func truthy(_ raw: String) -> Bool { ["true", "1", "on", "t"].contains(raw.lowercased()) }

    /// `expires_in` as the commands take it: seconds, or 0 for never (absent or empty: nil,
    /// "unchanged" to an update).
    static func expiresIn(_ params: MastodonParams, clearing: Bool) throws(TimelineError) -> Int? {
        guard let raw = params.string("expires_in") else { return nil }
        if raw.isEmpty { return clearing ? 0 : nil }
        guard let seconds = Int(raw), seconds > 0 else {
            throw TimelineError.invalid("expires_in", "expires_in must be a positive number of seconds")
        }
        return seconds
    }

    /// The bearer's filter a route's `{id}` names (the native id, mapped by the route).
    static func ownFilter(_ api: TimelineAPI, _ request: APIRequest) throws(TimelineError) -> FilterSaved {
        try api.service.filter(holding: request.parameters["id"] ?? "", viewer: try request.requireViewer())
    }

    static let filterRoutes: [Route] = [
        now(
            "GET", "/api/v2/filters", .bearer, scope: "read:filters",
            doc: .init("The bearer's filters, with their keywords and statuses.", returns: .filters)
        ) { api, request, entities in
            let filters = try api.service.filters(of: try request.requireViewer())
            return Responses.entity(200, try filters.map { f throws(TimelineError) in try entities.filter(f) })
        },
        later(
            "POST", "/api/v2/filters", .bearer, scope: "write:filters",
            doc: .init(
                "Makes a filter, with its first keywords.", returns: .filter,
                form: ["title", "context[]", "filter_action", "expires_in", "keywords_attributes[]"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let command = Command.createFilter(
                title: params.string("title") ?? "", context: params.list("context"),
                action: params.string("filter_action"), expiresIn: try expiresIn(params, clearing: false),
                keywords: try keywordInputs(params, ids: entities.ids))
            guard case .created(let id) = try await api.execute(command, request) else {
                throw TimelineError(.internal, "createFilter answered no id")
            }
            let me = try request.requireViewer()
            return Responses.entity(200, try entities.filter(try api.service.filter(holding: id, viewer: me)))
        },
        now(
            "GET", "/api/v2/filters/{id}", .bearer, scope: "read:filters",
            doc: .init("One of the bearer's filters.", returns: .filter)
        ) { api, request, entities in
            Responses.entity(200, try entities.filter(try ownFilter(api, request)))
        },
        later(
            "PUT", "/api/v2/filters/{id}", .bearer, scope: "write:filters",
            doc: .init(
                "Changes one of the bearer's filters: what is given, its keywords added, changed or destroyed.",
                returns: .filter, form: ["title", "context[]", "filter_action", "expires_in", "keywords_attributes[]"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let id = request.parameters["id"] ?? ""
            let context = params.list("context")
            _ = try await api.execute(
                .updateFilter(
                    filter: id, title: params.string("title"), context: context.isEmpty ? nil : context,
                    action: params.string("filter_action"), expiresIn: try expiresIn(params, clearing: true),
                    keywords: try keywordInputs(params, ids: entities.ids)), request)
            return Responses.entity(200, try entities.filter(try ownFilter(api, request)))
        },
        later(
            "DELETE", "/api/v2/filters/{id}", .bearer, scope: "write:filters",
            doc: .init("Deletes one of the bearer's filters.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.deleteFilter(filter: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        now(
            "GET", "/api/v2/filters/{id}/keywords", .bearer, scope: "read:filters",
            doc: .init("A filter's keywords.", returns: .filterKeywords)
        ) { api, request, entities in
            let filter = try ownFilter(api, request)
            return Responses.entity(
                200, try filter.keywords.map { k throws(TimelineError) in try entities.filterKeyword(k) })
        },
        later(
            "POST", "/api/v2/filters/{id}/keywords", .bearer, scope: "write:filters",
            doc: .init("Adds a keyword to a filter.", returns: .filterKeyword, form: ["keyword", "whole_word"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let filter = request.parameters["id"] ?? ""
            guard
                case .created(let id) = try await api.execute(
                    .addFilterKeyword(
                        filter: filter, keyword: params.string("keyword") ?? "",
                        wholeWord: params.string("whole_word").map(truthy)), request)
            else { throw TimelineError(.internal, "addFilterKeyword answered no id") }
            let saved = try api.service.filter(holding: id, viewer: try request.requireViewer())
            let keyword = try saved.keyword(id)
            return Responses.entity(200, try entities.filterKeyword(keyword))
        },
        now(
            "GET", "/api/v2/filters/keywords/{id}", .bearer, scope: "read:filters",
            doc: .init("One keyword of the bearer's filters.", returns: .filterKeyword)
        ) { api, request, entities in
            let id = request.parameters["id"] ?? ""
            let keyword = try ownFilter(api, request).keyword(id)
            return Responses.entity(200, try entities.filterKeyword(keyword))
        },
        later(
            "PUT", "/api/v2/filters/keywords/{id}", .bearer, scope: "write:filters",
            doc: .init(
                "Changes a keyword of the bearer's filters.", returns: .filterKeyword, form: ["keyword", "whole_word"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let id = request.parameters["id"] ?? ""
            _ = try await api.execute(
                .updateFilterKeyword(
                    keyword: id, text: params.string("keyword"), wholeWord: params.string("whole_word").map(truthy)),
                request)
            let keyword = try ownFilter(api, request).keyword(id)
            return Responses.entity(200, try entities.filterKeyword(keyword))
        },
        later(
            "DELETE", "/api/v2/filters/keywords/{id}", .bearer, scope: "write:filters",
            doc: .init("Removes a keyword of the bearer's filters.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.removeFilterKeyword(keyword: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        now(
            "GET", "/api/v2/filters/{id}/statuses", .bearer, scope: "read:filters",
            doc: .init("A filter's statuses.", returns: .filterStatuses)
        ) { api, request, entities in
            let filter = try ownFilter(api, request)
            return Responses.entity(
                200, try filter.statuses.map { s throws(TimelineError) in try entities.filterStatus(s) })
        },
        later(
            "POST", "/api/v2/filters/{id}/statuses", .bearer, scope: "write:filters",
            doc: .init(
                "Adds a status the bearer may see to a filter (any other is 404).", returns: .filterStatus,
                form: ["status_id"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let post = try entities.ids.post(params.string("status_id"))
            guard
                case .created(let id) = try await api.execute(
                    .addFilterStatus(filter: request.parameters["id"] ?? "", post: post.rawValue), request)
            else { throw TimelineError(.internal, "addFilterStatus answered no id") }
            let saved = try api.service.filter(holding: id, viewer: try request.requireViewer())
            let status = try saved.status(id)
            return Responses.entity(200, try entities.filterStatus(status))
        },
        now(
            "GET", "/api/v2/filters/statuses/{id}", .bearer, scope: "read:filters",
            doc: .init("One status of the bearer's filters.", returns: .filterStatus)
        ) { api, request, entities in
            let id = request.parameters["id"] ?? ""
            let status = try ownFilter(api, request).status(id)
            return Responses.entity(200, try entities.filterStatus(status))
        },
        later(
            "DELETE", "/api/v2/filters/statuses/{id}", .bearer, scope: "write:filters",
            doc: .init(
                "Removes a status from the bearer's filters; answers the filter status removed.", returns: .filterStatus
            )
        ) { api, request, entities in
            // Mastodon's document answers the `FilterStatus` (its controller an empty object, which
            // clients ignore): the one removed, read before.
            let id = request.parameters["id"] ?? ""
            let status = try ownFilter(api, request).status(id)
            let answer = try entities.filterStatus(status)
            _ = try await api.execute(.removeFilterStatus(filterStatus: id), request)
            return Responses.entity(200, answer)
        },
        // v1: a filter is one keyword (its id the keyword's), as Mastodon maps them.
        now(
            "GET", "/api/v1/filters", .bearer, scope: "read:filters",
            doc: .init("The bearer's filters as v1 filters: one per keyword.", returns: .v1Filters)
        ) { api, request, entities in
            let filters = try api.service.filters(of: try request.requireViewer())
            var out: [Mastodon.V1Filter] = []
            for f in filters { for k in f.keywords { out.append(try entities.v1Filter(k, of: f)) } }
            return Responses.entity(200, out)
        },
        later(
            "POST", "/api/v1/filters", .bearer, scope: "write:filters",
            doc: .init(
                "Makes a filter of one keyword (v1).", returns: .v1Filter,
                form: ["phrase", "context[]", "irreversible", "whole_word", "expires_in"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let phrase = params.string("phrase") ?? ""
            let command = Command.createFilter(
                title: phrase, context: params.list("context"),
                action: params.string("irreversible").map(truthy) == true ? "hide" : "warn",
                expiresIn: try expiresIn(params, clearing: false),
                keywords: [
                    FilterKeywordInput(keyword: phrase, wholeWord: params.string("whole_word").map(truthy) ?? true)
                ])
            guard case .created(let id) = try await api.execute(command, request) else {
                throw TimelineError(.internal, "createFilter answered no id")
            }
            let filter = try api.service.filter(holding: id, viewer: try request.requireViewer())
            guard let keyword = filter.keywords.first else { throw TimelineError(.notFound, "Record not found") }
            return Responses.entity(200, try entities.v1Filter(keyword, of: filter))
        },
        now(
            "GET", "/api/v1/filters/{id}", .bearer, scope: "read:filters",
            doc: .init("One v1 filter (a keyword of the bearer's filters).", returns: .v1Filter)
        ) { api, request, entities in
            let id = request.parameters["id"] ?? ""
            let filter = try ownFilter(api, request)
            let keyword = try filter.keyword(id)
            return Responses.entity(200, try entities.v1Filter(keyword, of: filter))
        },
        later(
            "PUT", "/api/v1/filters/{id}", .bearer, scope: "write:filters",
            doc: .init(
                "Changes a v1 filter: its keyword, and its filter's context, action and expiry.", returns: .v1Filter,
                form: ["phrase", "context[]", "irreversible", "whole_word", "expires_in"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            let id = request.parameters["id"] ?? ""
            let before = try ownFilter(api, request)
            _ = try await api.execute(
                .updateFilterKeyword(
                    keyword: id, text: params.string("phrase"), wholeWord: params.string("whole_word").map(truthy)),
                request)
            let context = params.list("context")
            _ = try await api.execute(
                .updateFilter(
                    filter: before.filterId.rawValue, context: context.isEmpty ? nil : context,
                    action: params.string("irreversible").map { truthy($0) ? "hide" : "warn" },
                    expiresIn: try expiresIn(params, clearing: true)), request)
            let filter = try ownFilter(api, request)
            let keyword = try filter.keyword(id)
            return Responses.entity(200, try entities.v1Filter(keyword, of: filter))
        },
        later(
            "DELETE", "/api/v1/filters/{id}", .bearer, scope: "write:filters",
            doc: .init("Deletes a v1 filter (the keyword).", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.removeFilterKeyword(keyword: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]
}

extension MastodonOpenAPI {
    /// The schemas of filters.
    static func filterSchemas() throws -> [(String, JSONSchema)] {
        [
            ("Filter", try .of(Mastodon.Filter.self)),
            ("FilterKeyword", try .of(Mastodon.FilterKeyword.self)),
            ("FilterStatus", try .of(Mastodon.FilterStatus.self)),
            ("FilterResult", try .of(Mastodon.FilterResult.self)),
            ("V1Filter", try .of(Mastodon.V1Filter.self))
        ]
    }
}

extension FilterSaved {
    /// Its keyword `id` ("Record not found", 404, when it holds none).
    fileprivate func keyword(_ id: String) throws(TimelineError) -> FilterKeyword {
        guard let keyword = keywords.first(where: { $0.id == id }) else {
            throw TimelineError(.notFound, "Record not found")
        }
        return keyword
    }

    /// Its status `id` ("Record not found", 404, when it holds none).
    fileprivate func status(_ id: String) throws(TimelineError) -> FilterStatus {
        guard let status = statuses.first(where: { $0.id == id }) else {
            throw TimelineError(.notFound, "Record not found")
        }
        return status
    }
}
