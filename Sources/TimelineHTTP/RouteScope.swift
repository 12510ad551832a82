import Timeline

/// What a token must hold to call a route: part of the route table, for `/v1` and the Mastodon
/// API alike, checked in one place (`TimelineAPI.answer`) and written into both OpenAPI
/// documents. Scopes are Mastodon's (`OAuthScope`); a first-party session holds every scope, so
/// only the narrower tokens apps are given through OAuth are ever refused by it.
enum RouteScope: Sendable, Equatable, ExpressibleByStringLiteral {
    /// Any token, or none (discovery, signing up or in, health, the web app's files, images).
    case none
    /// A token holding every one of these scopes (each may be covered by a wider one: `read`
    /// covers `read:statuses`).
    case oauth([String])
    /// A first-party session only: what no app is ever given (the account's password, email,
    /// sessions everywhere, erasure, the data export, looking people up by email).
    case firstParty

    /// A route that needs the one scope `value` (`"read:statuses"`).
    init(stringLiteral value: String) { self = .oauth([value]) }

    /// The role names the OpenAPI documents list for a route's bearer (`session` for
    /// `firstParty`, since no OAuth scope reaches it).
    var names: [String] {
        switch self {
        case .none: []
        case .oauth(let scopes): scopes
        case .firstParty: ["session"]
        }
    }

    /// Whether `grant` may call the route (nil: no token; whether one is needed is the route's
    /// `Access`). A token that lacks the scope is `forbidden`.
    func check(_ grant: Grant?) throws(TimelineError) {
        // No token, or a first-party session: every scope.
        guard let scopes = grant?.scopes else { return }
        let granted = Set(scopes)
        switch self {
        case .none: return
        case .oauth(let needed) where needed.allSatisfy({ OAuthScope.allows(granted, $0) }): return
        case .oauth: throw TimelineError(.forbidden, "This action is outside the authorized scopes")
        case .firstParty: throw TimelineError(.forbidden, "Only a first-party session may do this, not an app's token")
        }
    }
}
