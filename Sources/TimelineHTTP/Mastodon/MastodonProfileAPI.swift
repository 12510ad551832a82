import Foundation
import JSONModel
import Timeline

// Mastodon 4.6's profile API: `GET /api/v1/profile` is the bearer's profile with the raw values
// of every editable field, and `PATCH /api/v1/profile` changes it as `update_credentials` does
// (one place reads the form: `mastodonUpdateProfile`). Timeline keeps a username (shown as the
// display name), a bio, an avatar, a header, `locked` and `discoverable`; what it keeps none of
// (a bot flag, profile fields, alt text on the avatar, hidden follows, the profile's tabs)
// answers as Mastodon's defaults, and asking to change one is refused (422), never dropped.

extension Mastodon {
    /// The bearer's profile with source values (`Profile`, Mastodon 4.6).
    struct Profile: Codable, Sendable {
        var id: String
        var display_name: String
        var note: String
        var fields: [Field]
        var avatar: Nullable<String>
        var avatar_static: Nullable<String>
        var avatar_description: String
        var header: Nullable<String>
        var header_static: Nullable<String>
        var header_description: String
        var locked: Bool
        var bot: Bool
        var hide_collections: Nullable<Bool>
        var discoverable: Nullable<Bool>
        var indexable: Bool
        var show_media: Bool
        var show_media_replies: Bool
        var show_featured: Bool
        var attribution_domains: [String]
    }
}

extension MastodonAPI {
    static let profileRoutes: [Route] = [
        now(
            "GET", "/api/v1/profile", scope: "read:accounts",
            doc: .init("The bearer's profile, with the raw value of every field they can edit.", returns: .profile)
        ) { api, request, entities in
            Responses.entity(
                200, try entities.profile(try api.service.user(try request.requireViewer(), viewer: request.viewer)))
        },
        later(
            "PATCH", "/api/v1/profile", scope: "write:accounts",
            doc: .init(
                "Changes the bearer's profile, as `update_credentials`; a field Timeline keeps none of may only be "
                    + "sent with Mastodon's default (422 otherwise).", returns: .profile,
                form: ["note", "locked", "discoverable", "display_name"] + MastodonAPI.unkeptProfileFields.map(\.name),
                files: ["avatar", "header"])
        ) { api, request, entities in
            let me = try await api.mastodonUpdateProfile(request)
            return Responses.entity(200, try entities.profile(try api.service.user(me, viewer: me)))
        }
    ]

    /// The profile fields Timeline keeps none of, each with the only value it accepts (Mastodon's
    /// default, which `GET /api/v1/profile` shows).
    static let unkeptProfileFields: [(name: String, accepts: String)] = [
        ("bot", "false"), ("hide_collections", "false"), ("indexable", "false"), ("show_media", "true"),
        ("show_media_replies", "true"), ("show_featured", "true"), ("avatar_description", ""),
        ("header_description", "")
    ]
}

extension TimelineAPI {
    /// Changes the bearer's profile from `request`'s form (`update_credentials` and `PATCH
    /// /api/v1/profile`): `note` (the bio), `avatar` and `header` (files), `locked`,
    /// `discoverable`; `display_name` is the username here and is left as it is. A field
    /// Timeline keeps none of is refused unless it asks for Mastodon's default. Returns the bearer.
    func mastodonUpdateProfile(_ request: APIRequest) async throws(TimelineError) -> UserID {
        let params = try MastodonParams(request.http)
        for (name, accepted) in MastodonAPI.unkeptProfileFields {
            guard let value = params.string(name) else { continue }
            let same = accepted.isEmpty ? value.isEmpty : try params.bool(name) == (accepted == "true")
            guard same else {
                throw TimelineError.invalid(name, "Timeline keeps no \(name) (only \(accepted) is accepted)")
            }
        }
        guard params.list("attribution_domains").isEmpty, params.objects("fields_attributes").isEmpty else {
            throw TimelineError.invalid("fields_attributes", "Timeline keeps no profile fields or attribution domains")
        }
        let image = { (part: String) in
            params.files[part].flatMap { $0.data.isEmpty ? nil : AvatarUpdate.set(Data($0.data).base64EncodedString()) }
        }
        _ = try await execute(
            .updateProfile(
                username: nil, bio: params.string("note"), url: nil, avatar: image("avatar"),
                discoverable: try params.bool("discoverable"), locked: try params.bool("locked"),
                header: image("header")),
            request)
        return try request.requireViewer()
    }
}

extension MastodonEntities {
    /// `p` as Mastodon's `Profile`: raw values, and Mastodon's defaults for what Timeline keeps
    /// none of (`MastodonAPI.unkeptProfileFields`).
    func profile(_ p: Profile) throws(TimelineError) -> Mastodon.Profile {
        let avatar = p.avatar.map { "\(base)/v1/images/\($0.large.rawValue)" }
        let header = p.header.map { "\(base)/v1/images/\($0.large.rawValue)" }
        return Mastodon.Profile(
            id: try ids.id(.account(p.id)), display_name: p.username, note: p.bio ?? "", fields: [],
            avatar: Nullable(avatar), avatar_static: Nullable(avatar), avatar_description: "",
            header: Nullable(header), header_static: Nullable(header), header_description: "", locked: p.locked,
            bot: false, hide_collections: Nullable(false), discoverable: Nullable(p.discoverable), indexable: false,
            show_media: true, show_media_replies: true, show_featured: true, attribution_domains: [])
    }
}
