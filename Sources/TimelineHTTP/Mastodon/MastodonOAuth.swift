import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// OAuth 2 as Mastodon's apps use it: `POST /api/v1/apps` registers an app (its secret answered
/// once, kept only as a hash), `POST /oauth/token` issues a token — for a code from the
/// authorize page (`MastodonAuthorize.swift`), to the app itself (client credentials), or with
/// the `password` grant (first-party tools, as Mastodon allowed until 4.4) — and `POST
/// /oauth/revoke` ends one, for the client it was issued to (RFC 7009). A token is a session
/// naming its app and scopes, so signing out everywhere, a password change, a suspension or an
/// erasure ends it too; each route of the Mastodon API names the scope it needs
/// (`MastodonAPI.requireScope`).
extension MastodonAPI {
    static let oauthRoutes: [Route] = [
        later(
            "POST", "/api/v1/apps", .anyone,
            doc: .init(
                "Registers an app (its client secret shown once).", returns: .application,
                form: ["client_name", "redirect_uris", "scopes", "website"])
        ) { api, request, entities in
            // Each registration is an event: limited per address as sign-ups are.
            try api.throttle.admit(request.http.clientAddress)
            let params = try MastodonParams(request.http)
            guard let name = params.string("client_name") else {
                throw TimelineError.invalid("client_name", "Validation failed: Name can't be blank")
            }
            let uris = params.list("redirect_uris").flatMap {
                $0.split(whereSeparator: \.isWhitespace).map(String.init)
            }
            let result = try await api.service.execute(
                .registerApp(
                    name: name, redirectURIs: uris, scopes: params.string("scopes"),
                    website: params.string("website")))
            guard case .app(let app) = result else { throw TimelineError(.internal, "not an app") }
            return Responses.entity(200, try application(app, ids: entities.ids))
        },
        now(
            "GET", "/api/v1/apps/verify_credentials", .viewerOptional,
            doc: .init("The app a token was issued to.", returns: .application)
        ) { _, request, entities in
            guard let app = request.grant?.app else {
                throw TimelineError(.unauthenticated, "This method requires an authenticated application")
            }
            return Responses.entity(200, try application(app, ids: entities.ids))
        },
        later(
            "POST", "/oauth/token", .anyone,
            doc: .init(
                "Issues a token: authorization_code (PKCE), client_credentials or password.", returns: .token,
                form: [
                    "grant_type", "client_id", "client_secret", "code", "redirect_uri", "code_verifier", "scope",
                    "username", "password", "otp_attempt"
                ])
        ) { api, request, _ in try await api.oauthToken(request) },
        later(
            "POST", "/oauth/revoke", .anyone,
            doc: .init(
                "Ends a token of the client's (RFC 7009).", returns: .empty,
                form: ["client_id", "client_secret", "token"])
        ) { api, request, _ in
            try await api.oauthRevoke(request)
        }
    ]

    /// Mastodon's `Application`, with its `client_secret` when it was just registered.
    static func application(_ app: OAuthApp, ids: MastodonIDs) throws(TimelineError) -> Mastodon.Application {
        Mastodon.Application(
            id: try ids.id(.app(app.id)), name: app.name, website: Nullable(app.website), scopes: app.scopes,
            redirect_uri: app.redirectURIs.joined(separator: "\n"), redirect_uris: app.redirectURIs,
            client_id: app.id, client_secret: app.clientSecret, vapid_key: "")
    }

    /// Refuses a token that does not hold `scope` (a first-party session holds every scope).
    static func requireScope(_ request: APIRequest, _ scope: String) throws(TimelineError) {
        guard let scopes = request.grant?.scopes else { return }
        guard OAuthScope.allows(Set(scopes), scope) else {
            throw TimelineError(.forbidden, "This action is outside the authorized scopes")
        }
    }
}

extension TimelineAPI {
    /// `POST /oauth/revoke` (RFC 7009): the client authenticates (`client_id` and
    /// `client_secret`; a public client, its `client_id` alone) and ends a token issued to it.
    /// An unknown, ended or another client's token is answered the same 200 and left as it
    /// is; an unauthenticated client is 401 `invalid_client`, as Doorkeeper answers.
    func oauthRevoke(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        let params = try MastodonParams(request.http)
        func refusal(_ status: Int, _ error: String, _ description: String) -> HTTPResponse {
            Responses.entity(
                status, Mastodon.Error(error: error, error_description: description),
                headers: [("Cache-Control", "no-store")])
        }
        guard let client = params.string("client_id") else {
            return refusal(
                401, "invalid_client",
                "Client authentication failed due to unknown client, no client "
                    + "authentication included, or unsupported authentication method.")
        }
        guard let token = params.string("token") else {
            return refusal(400, "invalid_request", "The request is missing a required parameter: token.")
        }
        do {
            let command = Command.revokeToken(token: token, app: client, clientSecret: params.string("client_secret"))
            _ = try await service.execute(command, origin: request.http.clientAddress)
        } catch let error where error.isClientAuthentication {
            return refusal(401, "invalid_client", error.message)
        }
        return Responses.entity(200, Mastodon.Empty(), headers: [("Cache-Control", "no-store")])
    }

    /// `POST /oauth/token` (RFC 6749): the `authorization_code` grant (with PKCE's
    /// `code_verifier`; a public client sends no secret and must have used PKCE),
    /// `client_credentials` (an app's own token) and `password`; errors as OAuth's `{"error",
    /// "error_description"}`.
    func oauthToken(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        let params = try MastodonParams(request.http)
        func refusal(_ status: Int, _ error: String, _ description: String) -> HTTPResponse {
            Responses.entity(
                status, Mastodon.Error(error: error, error_description: description),
                headers: [("Cache-Control", "no-store")])
        }
        let unknownClient =
            "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method."
        guard let client = params.string("client_id") else { return refusal(401, "invalid_client", unknownClient) }
        let secret = params.string("client_secret")
        let command: Command
        switch params.string("grant_type") {
        case "authorization_code":
            guard let code = params.string("code"), let redirect = params.string("redirect_uri") else {
                return refusal(
                    400, "invalid_request", "The request is missing a required parameter: code and redirect_uri.")
            }
            command = .redeemAuthorization(
                code: code, app: client, clientSecret: secret, redirectURI: redirect,
                codeVerifier: params.string("code_verifier"))
        case "client_credentials":
            guard let secret else { return refusal(401, "invalid_client", unknownClient) }
            command = .issueAppToken(
                app: client, clientSecret: secret, scopes: params.string("scope") ?? params.string("scopes"))
        case "password":
            guard let secret else { return refusal(401, "invalid_client", unknownClient) }
            guard let username = params.string("username"), let password = params.string("password") else {
                return refusal(
                    400, "invalid_request", "The request is missing a required parameter: username and password.")
            }
            // A one-time code, for an account with two-factor sign-in, under the name Mastodon's
            // own sign-in form gives it (OAuth's password grant has none).
            command = .signIn(
                email: username, password: password, app: client, clientSecret: secret,
                scopes: params.string("scope") ?? params.string("scopes"), code: params.string("otp_attempt"))
        default:
            return refusal(
                400, "unsupported_grant_type",
                "The authorization grant type is not supported by the authorization server.")
        }
        let result: CommandResult
        do {
            try throttle.admit(request.http.clientAddress)
            result = try await service.execute(command, origin: request.http.clientAddress)
        } catch let error where error.isClientAuthentication {
            return refusal(401, "invalid_client", error.message)
        } catch let error where error.code == .invalidCredentials {
            return refusal(
                400, "invalid_grant",
                "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
            )
        } catch let error where error.code == .twoFactorRequired {
            return refusal(
                400, "invalid_grant",
                "This account signs in with a one-time code too: give it as otp_attempt, or sign in on the "
                    + "authorization page.")
        } catch let error where error.code == .forbidden && error.field == "scope" {
            return refusal(400, "invalid_scope", error.message)
        }
        let token: String
        switch result {
        case .session(let session, _): token = session
        case .token(let issued): token = issued
        default: throw TimelineError(.internal, "no token")
        }
        let scopes = try service.grant(session: token).scopes ?? []
        let answer = Mastodon.Token(
            access_token: token, token_type: "Bearer", scope: scopes.joined(separator: " "),
            created_at: Int(Date().timeIntervalSince1970))
        return Responses.entity(200, answer, headers: [("Cache-Control", "no-store")])
    }
}
