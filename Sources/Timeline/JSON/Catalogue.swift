import Foundation
import TimelineDomain

/// The one list of commands and queries by their public names, and the fields each takes:
/// `timeline exec` (fields from a JSON line) and the HTTP API (fields from the body, the path
/// and the query string) both decode requests here, and both answer with `JSONOutput`. A new
/// query is added here once (and to `Query`, whose exhaustive switches point at the rest); a
/// command's fields are read by its `CommandDefinition`, in its feature's file in the domain.
package enum Catalogue {
    /// Decodes the command `name` from `input` (reading, and so accepting, only its fields).
    package static func command(named name: String, _ input: JSONInput) throws(TimelineError) -> Command {
        try Command.decode(named: name, input)
    }

    /// Decodes the query `name` from `input` (reading, and so accepting, only its fields).
    package static func query(named name: String, _ input: JSONInput) throws(TimelineError) -> Query {
        guard let kind = QueryName(rawValue: name) else {
            throw TimelineError.invalid("query", "unknown query \(name.prefix(64))")
        }
        return try query(kind, input)
    }

    /// Decodes a query of kind `kind` from `input`.
    package static func query(_ kind: QueryName, _ input: JSONInput) throws(TimelineError) -> Query {
        switch kind {
        case .user: return .user(try input.identifier("user"))
        case .userByName: return .userByName(try input.string("username"))
        case .users: return .users(try input.page())
        case .searchUsers: return .searchUsers(prefix: try input.optionalString("prefix") ?? "", try input.page())
        case .followers: return .followers(try input.identifier("user"), try input.page())
        case .following: return .following(try input.identifier("user"), try input.page())
        case .follows: return .follows(try input.identifier("user"), target: try input.identifier("target"))
        case .posts: return .posts(try input.identifier("user"), try input.page())
        case .post: return .post(try input.identifier("post"), comments: try input.page())
        case .comments: return .comments(try input.identifier("post"), try input.page())
        case .likes: return .likes(try input.identifier("post"), try input.page())
        case .timeline: return .timeline(try input.identifier("user"), try input.page())
        case .hashtag: return .hashtag(try input.string("tag"), try input.page())
        case .activity: return .activity(try input.identifier("user"), try input.page())
        case .image:
            let image: ImageID = try input.identifier("image")
            guard let raw = try input.optionalString("variant") else { return .image(image) }
            guard let variant = ImageVariant(rawValue: raw) else {
                throw TimelineError.invalid("variant", "variant must be full, feed or thumb")
            }
            return .image(image, variant: variant)
        case .bookmarks: return .bookmarks(try input.page())
        case .blocked: return .blocked(try input.page())
        case .nearby:
            guard let latitude = try input.optionalNumber("latitude") else { throw .invalid("latitude", "latitude is required") }
            guard let longitude = try input.optionalNumber("longitude") else { throw .invalid("longitude", "longitude is required") }
            return .nearby(latitude: latitude, longitude: longitude, radiusKm: try input.optionalNumber("radiusKm") ?? Query.defaultRadiusKm,
                           try input.page())
        case .suggestions: return .suggestions(try input.page())
        case .findContacts: return .findContacts(emails: try input.strings("emails"))
        }
    }
}
