import Foundation
import JSONModel
import MicroHTTPD
import Timeline

// The instance's texts and figures, as Mastodon answers them: its rules, extended description,
// privacy policy and terms of service (the operator's, `timeline instance set`), translation
// languages (none: nothing is translated here), peers (the hosts of the remote accounts seen
// here) and its weekly activity (from the log's events, kept by the
// instance projection).

extension Mastodon {
    /// The about page (`GET /api/v1/instance/extended_description`).
    struct ExtendedDescription: Codable, Sendable {
        var updated_at: String
        var content: String
    }

    /// The privacy policy (`GET /api/v1/instance/privacy_policy`).
    struct PrivacyPolicy: Codable, Sendable {
        var updated_at: String
        var content: String
    }

    /// The terms of service (`GET /api/v1/instance/terms_of_service`).
    struct TermsOfService: Codable, Sendable {
        var effective_date: String
        var effective: Bool
        var content: String
        var succeeded_by: Nullable<String>
    }

    /// One week of `GET /api/v1/instance/activity`: every figure a string, as Mastodon's.
    struct InstanceActivity: Codable, Sendable {
        var week: String
        var statuses: String
        var logins: String
        var registrations: String
    }
}

extension MastodonAPI {
    static let instanceRoutes: [Route] = [
        now(
            "GET", "/api/v1/instance/rules", .anyone,
            doc: .init("The server's rules, in the operator's order.", returns: .rules)
        ) { api, _, _ in Responses.entity(200, try api.mastodonRules()) },
        now(
            "GET", "/api/v1/instance/extended_description", .anyone,
            doc: .init("The server's about page (\"\" until the operator writes one).", returns: .extendedDescription)
        ) { api, _, _ in
            let text = try api.service.instanceText(.extendedDescription)
            return Responses.entity(
                200,
                Mastodon.ExtendedDescription(
                    updated_at: JSONOutput.timestamp(text?.updatedAt ?? 0),
                    content: MastodonAPI.paragraphs(text?.text ?? "")))
        },
        now(
            "GET", "/api/v1/instance/privacy_policy", .anyone,
            doc: .init("The server's privacy policy (not found until the operator sets one).", returns: .privacyPolicy)
        ) { api, _, _ in
            guard let text = try api.service.instanceText(.privacyPolicy) else {
                throw TimelineError(.notFound, "Record not found")
            }
            return Responses.entity(
                200,
                Mastodon.PrivacyPolicy(
                    updated_at: JSONOutput.timestamp(text.updatedAt), content: MastodonAPI.paragraphs(text.text)))
        },
        now(
            "GET", "/api/v1/instance/terms_of_service", .anyone,
            doc: .init(
                "The server's terms of service, in effect since the day the operator set them (not found until then).",
                returns: .termsOfService)
        ) { api, _, _ in Responses.entity(200, try api.mastodonTermsOfService(on: nil)) },
        now(
            "GET", "/api/v1/instance/terms_of_service/{date}", .anyone,
            doc: .init(
                "The terms of service that took effect on a day (`YYYY-MM-DD`): each day the operator changed them "
                    + "keeps its version (not found for any other day).", returns: .termsOfService)
        ) { api, request, _ in
            Responses.entity(200, try api.mastodonTermsOfService(on: request.parameters["date"] ?? ""))
        },
        now(
            "GET", "/api/v1/instance/translation_languages", .anyone,
            doc: .init(
                "The languages statuses translate between: none (nothing is translated here).",
                returns: .translationLanguages)
        ) { _, _, _ in Responses.entity(200, [String: [String]]()) },
        now(
            "GET", "/api/v1/instance/peers", .anyone,
            doc: .init(
                "The other servers this one knows: the hosts of the remote accounts seen here.", returns: .peers)
        ) { api, _, _ in Responses.entity(200, try api.service.peers()) },
        now(
            "GET", "/api/v1/instance/activity", .anyone,
            doc: .init(
                "The last twelve weeks, this week first: posts, distinct users signed in, sign-ups.",
                returns: .instanceActivity)
        ) { api, _, _ in
            Responses.entity(
                200,
                try api.service.instanceActivity().map {
                    Mastodon.InstanceActivity(
                        week: String($0.week), statuses: String($0.statuses), logins: String($0.logins),
                        registrations: String($0.registrations))
                })
        }
    ]

    /// Plain text as HTML: escaped, a paragraph per blank-line-separated block, line breaks kept.
    static func paragraphs(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
            .map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
            .map { "<p>" + HTMLText.escape($0).replacingOccurrences(of: "\n", with: "<br>") + "</p>" }
            .joined(separator: "\n")
    }
}

extension TimelineAPI {
    /// The terms of service that took effect on `day` (`nil`: those in effect now) as Mastodon's
    /// `TermsOfService`, with the day of the version that followed; 404 when there is none.
    func mastodonTermsOfService(on day: String?) throws(TimelineError) -> Mastodon.TermsOfService {
        guard let terms = try service.termsOfService(on: day) else {
            throw TimelineError(.notFound, "Record not found")
        }
        return Mastodon.TermsOfService(
            effective_date: terms.effectiveDate, effective: true, content: MastodonAPI.paragraphs(terms.text),
            succeeded_by: Nullable(terms.succeededBy))
    }

    /// The server's rules as Mastodon's `Rule`s.
    func mastodonRules() throws(TimelineError) -> [Mastodon.Rule] {
        let ids = MastodonIDs(service)
        return try service.instanceRules().map { rule throws(TimelineError) in
            Mastodon.Rule(id: try ids.id(.rule(rule.id)), text: rule.text, hint: rule.hint)
        }
    }

    /// What the operator set that the instance entities show: the title, the description, the
    /// contact email (each `nil` until set) and the rules.
    func mastodonInstanceTexts() throws(TimelineError) -> (
        title: String?, description: String?, email: String?, rules: [Mastodon.Rule]
    ) {
        (
            try service.instanceText(.title)?.text, try service.instanceText(.description)?.text,
            try service.instanceText(.contactEmail)?.text, try mastodonRules()
        )
    }
}

extension MastodonOpenAPI {
    /// The schemas of the instance's texts, its figures and the announcements.
    static func instanceSchemas() throws -> [(String, JSONSchema)] {
        [
            ("ExtendedDescription", try .of(Mastodon.ExtendedDescription.self)),
            ("PrivacyPolicy", try .of(Mastodon.PrivacyPolicy.self)),
            ("TermsOfService", try .of(Mastodon.TermsOfService.self)),
            ("InstanceActivity", try .of(Mastodon.InstanceActivity.self)),
            ("DomainBlock", try .of(Mastodon.DomainBlock.self)),
            (
                "TranslationLanguages",
                JSONSchema([
                    "type": "object", "additionalProperties": ["type": "array", "items": ["type": "string"]],
                    "description": "Source languages to the languages they translate to: none here."
                ])
            ),
            (
                "Peers",
                JSONSchema([
                    "type": "array", "items": ["type": "string"],
                    "description": "The servers this server knows: the hosts of the remote accounts seen here."
                ])
            ),
            (
                "DomainBlocks",
                JSONSchema([
                    "type": "array", "items": ["type": "string"],
                    "description": "The servers the bearer blocks, by host, in order."
                ])
            ),
            ("Reaction", try .of(Mastodon.Reaction.self)),
            ("AnnouncementAccount", try .of(Mastodon.AnnouncementAccount.self)),
            ("AnnouncementStatus", try .of(Mastodon.AnnouncementStatus.self)),
            ("Announcement", try .of(Mastodon.Announcement.self))
        ]
    }
}
