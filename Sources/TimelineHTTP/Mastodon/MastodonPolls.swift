import Foundation
import JSONModel
import MicroHTTPD
import Timeline

// Polls (docs.joinmastodon.org, methods/polls and entities/Poll): `GET /api/v1/polls/:id`,
// `POST /api/v1/polls/:id/votes`, a status's `poll`, and the `poll[…]` parameters of posting
// and editing a status. A poll whose post the bearer may not see is 404, as the post is.

extension Mastodon {
    /// One option of a poll: its votes are null while the totals are hidden.
    struct PollOption: Codable, Sendable {
        var title: String
        var votes_count: Nullable<Int>
    }

    /// A poll on a status (`voted` and `own_votes` only with a user token, as Mastodon).
    struct Poll: Codable, Sendable {
        var id: String
        var expires_at: Nullable<String>
        var expired: Bool
        var multiple: Bool
        var votes_count: Int
        var voters_count: Nullable<Int>
        var voted: Bool?
        var own_votes: [Int]?
        var options: [PollOption]
        var emojis: [CustomEmoji]
    }
}

extension Mastodon.Poll: SchemaDocumented {
    static let schemaDescription: String? = "A poll on a post (Mastodon's Poll)."
    static let memberSchemas = ["expires_at": JSONSchema.string(format: "date-time").nullable]
}

extension Mastodon.PollOption: SchemaDocumented {
    static let schemaDescription: String? = "One option of a poll (Mastodon's Poll::Option)."
}

extension MastodonEntities {
    /// A poll as Mastodon's `Poll`.
    func poll(_ p: Poll) throws(TimelineError) -> Mastodon.Poll {
        Mastodon.Poll(
            id: try ids.id(.poll(p.id)), expires_at: Nullable(JSONOutput.timestamp(p.expiresAt)), expired: p.expired,
            multiple: p.multiple, votes_count: p.votesCount, voters_count: Nullable(p.votersCount), voted: p.voted,
            own_votes: p.ownVotes,
            options: p.options.enumerated().map { index, title in
                Mastodon.PollOption(title: title, votes_count: Nullable(p.counts?[index]))
            }, emojis: [])
    }
}

extension MastodonAPI {
    static let pollRoutes: [Route] = [
        now(
            "GET", "/api/v1/polls/{id}", .viewerOptional, scope: "read:statuses",
            doc: .init("A poll (404 when its post is out of the bearer's sight).", returns: .poll)
        ) { api, request, entities in
            let poll = try api.service.poll(try mastodonID(request.parameters["id"]), viewer: request.viewer)
            return Responses.entity(200, try entities.poll(poll))
        },
        later(
            "POST", "/api/v1/polls/{id}/votes", scope: "write:statuses",
            doc: .init(
                "Votes in a poll: choices[] are option indexes; once, before it ends (422 otherwise).",
                returns: .poll, form: ["choices[]"])
        ) { api, request, entities in
            let id: PollID = try mastodonID(request.parameters["id"])
            let choices = try MastodonParams(request.http).list("choices").map { raw throws(TimelineError) in
                guard let choice = Int(raw) else {
                    throw TimelineError.invalid("choices", "Validation failed: The chosen vote option does not exist")
                }
                return choice
            }
            _ = try await api.execute(.vote(poll: id.rawValue, choices: choices), request)
            return Responses.entity(200, try entities.poll(try api.service.poll(id, viewer: request.viewer)))
        }
    ]
}

extension MastodonParams {
    /// The poll of a status being posted or edited (`poll[options][]`, `poll[expires_in]`,
    /// `poll[multiple]`, `poll[hide_totals]`); nil without options.
    func poll() throws(TimelineError) -> PollDraft? {
        let options = list("poll[options]")
        guard !options.isEmpty else { return nil }
        guard let raw = string("poll[expires_in]"), let expiresIn = Int(raw) else {
            throw TimelineError.invalid("poll", "Validation failed: poll[expires_in] is required")
        }
        return PollDraft(
            options: options, expiresIn: expiresIn, multiple: try bool("poll[multiple]") ?? false,
            hideTotals: try bool("poll[hide_totals]") ?? false)
    }
}
