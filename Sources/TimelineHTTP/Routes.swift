import MicroHTTPD
import Timeline

extension TimelineAPI {
    /// Every route of the API (docs/spec.md's table), then the web app's static files: the one
    /// source of what is served, and of the OpenAPI document (`OpenAPI.document`).
    static let routes: [Route] =
        accountRoutes + userRoutes + profileExtrasRoutes + postRoutes + feedRoutes + listRoutes + collectionRoutes
        + conversationRoutes + scheduledPostRoutes + storyRoutes + annualReportRoutes
        + health + [
            Route(
                "GET", "/v1/openapi.json", .anyone, scope: .none, .now { api, request in try api.openAPI(request) },
                Operation(
                    id: "openapi", summary: "This document.", tag: .operations,
                    answer: Answer(
                        status: 200,
                        description:
                            "The OpenAPI 3.1 document, generated from the server's route table (with an ETag and "
                            + "`Cache-Control: no-cache`: revalidate with If-None-Match).",
                        content: [("application/json", .object)]),
                    parameters: [.ifNoneMatch],
                    otherAnswers: [
                        (304, Answer(status: 304, description: "Not modified: the If-None-Match ETag is current."))
                    ])),
            Route(
                "GET", "/", .anyone, scope: .none, .now { try WebApp.file("index.html", in: nil, request: $1.http) },
                nil),
            // The service worker, at the root so that its scope is the whole app.
            Route(
                "GET", "/sw.js", .anyone, scope: .none, .now { try WebApp.file("sw.js", in: nil, request: $1.http) },
                nil),
            Route(
                "GET", "/app/{asset}", .anyone, scope: .none,
                .now { try WebApp.file($1.parameters["asset"] ?? "", in: nil, request: $1.http) }, nil),
            // Generated, not a file: each operation's method and path, for web/js/api.js.
            Route(
                "GET", "/app/js/operations.js", .anyone, scope: .none,
                .now { WebApp.answer(WebApp.operations, contentType: WebApp.mediaTypes["js"] ?? "", request: $1.http) },
                nil),
            Route(
                "GET", "/app/js/{module}", .anyone, scope: .none,
                .now { try WebApp.file($1.parameters["module"] ?? "", in: "js", request: $1.http) }, nil)
        ]

    /// The routes of the operator's listener: the metrics, and the health checks again.
    static let operationsRoutes: [Route] =
        health + [
            Route("GET", "/metrics", .anyone, scope: .none, .now { api, request in try api.metricsText(request) }, nil)
        ]

    private static func changed(_ what: String) -> Answer {
        .json("Whether anything changed (false if \(what)).", "changed")
    }
    private static let profile = Answer.json("The updated profile.", "user")
    private static let postPage = Answer.json("A page of posts.", "postPage", headers: [.link])
    private static let userPage = Answer.json("A page of users.", "userPage", headers: [.link])

    private static let accountRoutes: [Route] = [
        Route(
            "POST", "/v1/users", .anyone, scope: .none, .later { api, request in try await api.signUp(request) },
            Operation(
                id: "createUser", summary: "Sign up: create a user and sign in.", tag: .account,
                answer: .json("The new user and a session for them.", "session", status: 201),
                errors: [.usernameTaken, .emailTaken, .rateLimited] + Operation.writeErrors,
                body: .command("createUser", description: "Sign up: createUser, then sign in."))),
        Route(
            "POST", "/v1/sessions", .anyone, scope: .none, .later { api, request in try await api.signIn(request) },
            Operation(
                id: "signIn", summary: "Sign in with email and password.", tag: .account,
                description:
                    "Wrong credentials give 401 invalid_credentials; repeated failures are slowed down (429 with Retry-After). "
                    + "An account with two-factor sign-in needs `code` too: without it, 401 two_factor_required.",
                answer: .json("A new session.", "session", status: 201),
                errors: [.invalidCredentials, .twoFactorRequired, .rateLimited] + Operation.writeErrors,
                body: .command("signIn"))),
        Route(
            "POST", "/v1/password-resets", .anyone, scope: .none,
            .later { api, request in try await api.forgotPassword(request) },
            Operation(
                id: "requestPasswordResetByEmail", summary: "Forgot password: mail a reset link to an email.",
                tag: .account,
                description:
                    "Always 202, whether or not an account has the email (the answer never says). A known account is "
                    + "mailed a link to set a new password, valid for one hour, at most once per 10 minutes (and only "
                    + "when the server has `--smtp-url`). Limited per client address (429 with Retry-After).",
                answer: .empty(202), errors: [.rateLimited] + Operation.writeErrors,
                body: .command("requestPasswordResetByEmail"))),
        Route(
            "POST", "/v1/password", .anyone, scope: .none,
            .later { api, request in try await api.setForgottenPassword(request) },
            Operation(
                id: "resetPassword", summary: "Set a new password with a reset token (from the mailed link).",
                tag: .account,
                description:
                    "Ends every session and reset token the user had; sign in afterwards with the new password.",
                answer: .empty(), errors: [.rateLimited] + Operation.writeErrors, body: .command("resetPassword"))),
        command(
            "DELETE", "/v1/sessions/current", scope: .none, fixed: { ["session": $0.bearer ?? ""] },
            Operation(
                id: "signOut", summary: "Sign out: end the bearer's session.", tag: .account, answer: .empty(),
                errors: [.storageFull])),
        command(
            "DELETE", "/v1/sessions", scope: .firstParty,
            Operation(
                id: "signOutEverywhere", summary: "Sign out everywhere: end every session of the bearer, this one too.",
                tag: .account,
                description:
                    "Every session token of the bearer (and any password-reset token) stops working, and their open event "
                    + "streams end: after a lost phone, or to start afresh.",
                answer: .empty(), errors: [.storageFull])),
        query(
            "GET", "/v1/me", scope: "profile", access: .bearer, runs: "user", fixed: viewer("user"),
            Operation(
                id: "me", summary: "The bearer's own profile.", tag: .account,
                answer: .json("The bearer's profile.", "user"))),
        command(
            "PATCH", "/v1/me", scope: "write:accounts",
            Operation(
                id: "updateProfile",
                summary: "Change the bearer's username, bio, url, profile photo or discoverability.", tag: .account,
                answer: profile, errors: [.usernameTaken] + Operation.writeErrors,
                body: .command("updateProfile", description: "The fields to change; the others stay as they are."))),
        Route(
            "PUT", "/v1/me/avatar", .bearer, scope: "write:accounts",
            .later { api, request in try await api.setAvatar(request) },
            Operation(
                id: "setAvatar", summary: "Set the bearer's profile photo (stored as 320 px and 96 px squares).",
                tag: .account,
                description:
                    "The body is the image itself (Content-Type image/*), or multipart/form-data with one part, `image`.",
                answer: profile, errors: Operation.writeErrors, body: .avatar)),
        Route(
            "DELETE", "/v1/me/avatar", .bearer, scope: "write:accounts",
            .later { api, request in try await api.removeAvatar(request) },
            Operation(
                id: "removeAvatar", summary: "Remove the bearer's profile photo.", tag: .account, answer: profile,
                errors: [.storageFull])),
        Route(
            "PUT", "/v1/me/header", .bearer, scope: "write:accounts",
            .later { api, request in try await api.setHeader(request) },
            Operation(
                id: "setHeader",
                summary: "Set the bearer's profile header (stored as 1500×500 and 600×200 bands, cropped around the "
                    + "centre).", tag: .account,
                description:
                    "The body is the image itself (Content-Type image/*), or multipart/form-data with one part, `image`.",
                answer: profile, errors: Operation.writeErrors, body: .avatar)),
        Route(
            "DELETE", "/v1/me/header", .bearer, scope: "write:accounts",
            .later { api, request in try await api.removeHeader(request) },
            Operation(
                id: "removeHeader", summary: "Remove the bearer's profile header.", tag: .account, answer: profile,
                errors: [.storageFull])),
        command(
            "DELETE", "/v1/me", scope: .firstParty, fixed: viewer("user"),
            admit: { api, request in try api.admitPasswordCheck(request) },
            Operation(
                id: "eraseUser",
                summary: "Erase the bearer's account (crypto-shredding their personal data; needs the password).",
                tag: .account,
                description:
                    "The JSON body gives the current password: a stolen session is not the account. A wrong one gives 401 invalid_credentials.",
                answer: .empty(), errors: [.invalidCredentials, .rateLimited, .storageFull],
                body: .command("eraseUser", path: ["user"]))),
        command(
            "POST", "/v1/me/password", scope: .firstParty,
            admit: { api, request in try api.admitPasswordCheck(request) },
            Operation(
                id: "changePassword", summary: "Change the bearer's password (ends every session, this one too).",
                tag: .account,
                description: "A wrong currentPassword gives 401 invalid_credentials.",
                answer: .empty(), errors: [.invalidCredentials, .rateLimited] + Operation.writeErrors,
                body: .command("changePassword"))),
        command(
            "POST", "/v1/me/email", scope: .firstParty, admit: { api, request in try api.admitPasswordCheck(request) },
            Operation(
                id: "changeEmail", summary: "Change the bearer's email address (needs the password).", tag: .account,
                description: "A wrong password gives 401 invalid_credentials; an address in use gives 409 email_taken.",
                answer: .empty(), errors: [.invalidCredentials, .emailTaken, .rateLimited] + Operation.writeErrors,
                body: .command("changeEmail"))),
        Route(
            "GET", "/v1/me/two-factor", .bearer, scope: .firstParty,
            .now { api, request in try api.twoFactorStatus(request) },
            Operation(
                id: "twoFactorStatus", summary: "Whether the bearer's two-factor sign-in is on.", tag: .account,
                answer: .json("Whether it is on, and the recovery codes left.", "twoFactorStatus"))),
        command(
            "POST", "/v1/me/two-factor", scope: .firstParty,
            Operation(
                id: "enrollTwoFactor", summary: "Start enrolling an authenticator app for two-factor sign-in.",
                tag: .account,
                description:
                    "Answers the secret, its otpauth:// URI and a QR code of it (PNG, base64), once. Nothing changes at "
                    + "sign-in until POST /v1/me/two-factor/confirm proves the app with a first code; enrolling again "
                    + "before that replaces the secret. 409 conflict when two-factor sign-in is on already.",
                answer: .json("The enrolment, shown once.", "twoFactorEnrollment", status: 201),
                errors: [.conflict] + Operation.writeErrors)),
        command(
            "POST", "/v1/me/two-factor/confirm", scope: .firstParty,
            Operation(
                id: "confirmTwoFactor", summary: "Turn two-factor sign-in on with the authenticator's first code.",
                tag: .account,
                description:
                    "From now on a sign-in needs a code too. Answers ten single-use recovery codes, once (only their "
                    + "hashes are kept). A wrong code gives 401 invalid_credentials; no pending enrolment, 409 conflict.",
                answer: .json("The recovery codes, shown once.", "recoveryCodes"),
                errors: [.invalidCredentials, .conflict] + Operation.writeErrors, body: .command("confirmTwoFactor"))),
        command(
            "DELETE", "/v1/me/two-factor", scope: .firstParty,
            admit: { api, request in try api.admitPasswordCheck(request) },
            Operation(
                id: "disableTwoFactor", summary: "Turn two-factor sign-in off (needs the password and a code).",
                tag: .account,
                description:
                    "The code is the authenticator's or a recovery code. A wrong password or code gives 401 "
                    + "invalid_credentials (counted with failed sign-ins); two-factor sign-in off already, 409 conflict.",
                answer: .empty(), errors: [.invalidCredentials, .conflict, .rateLimited] + Operation.writeErrors,
                body: .command("disableTwoFactor")))
    ]

    private static let userRoutes: [Route] = [
        command(
            "PUT", "/v1/me/following/{user}", scope: "write:follows",
            Operation(
                id: "follow", summary: "Follow a user, or ask to when their account is locked (idempotent).",
                tag: .users,
                description:
                    "Following a locked account makes a request (the profile's `requestedByViewer`) that its owner approves "
                    + "or rejects. `notify` true asks to be told of each of the user's posts (an activity item of kind `post`; the "
                    + "profile's `notifiesViewer`), false stops it; absent leaves it as it is. Following yourself gives 400 "
                    + "invalid_argument; a user who blocks you, or whom you block, 403 forbidden.",
                answer: changed("already following (or already asked) with the same notify"),
                errors: [.forbidden, .notFound, .storageFull],
                parameters: [.user],
                body: .command(
                    "follow", path: ["user"],
                    description: "Optional: `notify`, whether to be told of each of the user's posts."))),
        command(
            "DELETE", "/v1/me/following/{user}", scope: "write:follows",
            Operation(
                id: "unfollow", summary: "Unfollow a user, or withdraw a request to follow (idempotent).", tag: .users,
                answer: changed("not following"), errors: [.notFound, .storageFull], parameters: [.user])),
        query(
            "GET", "/v1/me/follow-requests", scope: "read:follows", access: .bearer,
            Operation(
                id: "followRequests",
                summary: "Who asked to follow the bearer's locked account, the latest first (private).", tag: .users,
                answer: userPage, paged: true)),
        command(
            "PUT", "/v1/me/follow-requests/{user}", scope: "write:follows",
            Operation(
                id: "approveFollowRequest",
                summary: "Approve a request to follow the bearer: the user follows from now on.", tag: .users,
                description: "No pending request from the user gives 404 not_found.",
                answer: .json("`changed` true: the request is answered.", "changed"), errors: [.notFound, .storageFull],
                parameters: [.user])),
        command(
            "DELETE", "/v1/me/follow-requests/{user}", scope: "write:follows",
            Operation(
                id: "rejectFollowRequest", summary: "Reject a request to follow the bearer.", tag: .users,
                description: "No pending request from the user gives 404 not_found.",
                answer: .json("`changed` true: the request is answered.", "changed"), errors: [.notFound, .storageFull],
                parameters: [.user])),
        Route(
            "GET", "/v1/users", .viewerOptional, scope: "read:accounts",
            .later { api, request in
                // Another server's handle (`name@host`), asked by a signed-in user, is looked up
                // there first (WebFinger), so that the search finds its account: the web app's
                // way to follow someone elsewhere.
                if request.viewer != nil,
                    let prefix = request.http.query.last(where: { $0.name == "prefix" })?.value, prefix.contains("@")
                {
                    _ = try? await api.resolveRemote(prefix, FederationURLs(origin: request.origin))
                }
                return try api.answer(query: "searchUsers", request, fixed: [:], admit: nil)
            },
            Operation(
                id: "searchUsers",
                summary:
                    "Users whose username starts with `prefix` (all users without it); a signed-in user's `name@host` "
                    + "of another server is looked up there first.",
                tag: .users,
                answer: userPage, parameters: [.prefix], paged: true)),
        query(
            "GET", "/v1/users/{user}", scope: "read:accounts",
            Operation(
                id: "user", summary: "One user's profile.", tag: .users,
                answer: .json("The profile (with followedByViewer when there is a bearer).", "user"),
                errors: [.notFound], parameters: [.user])),
        query(
            "GET", "/v1/users/{user}/posts", scope: "read:statuses",
            Operation(
                id: "posts", summary: "A user's posts, newest first.", tag: .users,
                answer: postPage, errors: [.notFound], parameters: [.user], paged: true)),
        query(
            "GET", "/v1/users/{user}/followers", scope: "read:accounts",
            Operation(
                id: "followers", summary: "Who follows a user.", tag: .users,
                answer: userPage, errors: [.notFound], parameters: [.user], paged: true)),
        query(
            "GET", "/v1/users/{user}/following", scope: "read:accounts",
            Operation(
                id: "following", summary: "Whom a user follows.", tag: .users,
                answer: userPage, errors: [.notFound], parameters: [.user], paged: true)),
        command(
            "PUT", "/v1/me/blocks/{user}", scope: "write:blocks",
            Operation(
                id: "block", summary: "Block a user (idempotent); ends the follows between you both ways.",
                tag: .blocks,
                description:
                    "Blocking yourself gives 400 invalid_argument. While a block stands neither user can follow the other or "
                    + "like or comment on the other's posts (403 forbidden), and neither appears in the other's search, lists or activity.",
                answer: changed("already blocked"), errors: [.notFound, .storageFull], parameters: [.user])),
        command(
            "DELETE", "/v1/me/blocks/{user}", scope: "write:blocks",
            Operation(
                id: "unblock", summary: "Lift a block (idempotent).", tag: .blocks,
                answer: changed("not blocked"), errors: [.notFound, .storageFull], parameters: [.user])),
        command(
            "PUT", "/v1/me/domain-blocks/{host}", scope: "write:blocks",
            Operation(
                id: "blockAccountDomain", summary: "Block every account of another server (idempotent).", tag: .blocks,
                description:
                    "To the bearer its accounts are as if blocked, both ways; the follows and follow requests with them "
                    + "end. A host that is not one gives 400 invalid_argument.",
                answer: changed("already blocked"), errors: [.storageFull], parameters: [.host])),
        command(
            "DELETE", "/v1/me/domain-blocks/{host}", scope: "write:blocks",
            Operation(
                id: "unblockAccountDomain", summary: "Lift a block of a server (idempotent).", tag: .blocks,
                answer: changed("not blocked"), errors: [.storageFull], parameters: [.host])),
        query(
            "GET", "/v1/me/domain-blocks", scope: "read:blocks", access: .bearer,
            Operation(
                id: "blockedServers", summary: "The servers the bearer blocks, by host, in order (private; not paged).",
                tag: .blocks, answer: .json("The servers.", "servers"))),
        query(
            "GET", "/v1/me/blocks", scope: "read:blocks", access: .bearer,
            Operation(
                id: "blocked", summary: "The users the bearer blocks, the latest block first (private).", tag: .blocks,
                answer: userPage, paged: true)),
        command(
            "PUT", "/v1/me/mutes/{user}", scope: "write:mutes",
            Operation(
                id: "mute", summary: "Mute a user, for good or for `duration` seconds.", tag: .mutes,
                description:
                    "The muted user's posts leave the bearer's timeline and their doings leave the bearer's activity "
                    + "and live stream; they are not told, and nothing else changes (follows stay). Muting again sets the new "
                    + "end. A timed mute ends by itself. Muting yourself gives 400 invalid_argument.",
                answer: changed("already muted until the same time"), errors: [.notFound] + Operation.writeErrors,
                parameters: [.user],
                body: .command(
                    "mute", path: ["user"], description: "How long: `duration` seconds (0 or absent: until unmuted)."))),
        command(
            "DELETE", "/v1/me/mutes/{user}", scope: "write:mutes",
            Operation(
                id: "unmute", summary: "Lift a mute (idempotent).", tag: .mutes,
                answer: changed("not muted"), errors: [.notFound, .storageFull], parameters: [.user])),
        query(
            "GET", "/v1/me/mutes", scope: "read:mutes", access: .bearer,
            Operation(
                id: "muted", summary: "The users the bearer mutes, the latest mute first (private).", tag: .mutes,
                description:
                    "Each with `mutedUntil` (ms since 1970) when the mute ends by itself; ended mutes are not listed.",
                answer: userPage, paged: true)),
        // Filters (muted words and posts): see Features/Filters.swift.
        query(
            "GET", "/v1/me/filters", scope: "read:filters", access: .bearer,
            Operation(
                id: "filters", summary: "The bearer's filters, expired ones too (private).", tag: .filters,
                description:
                    "Each applies where its `context` says: the home timeline (home), notifications, hashtags and "
                    + "places (public), a post's comments (thread), an account's posts (account); `hide` leaves a "
                    + "matching post out, `warn` and `blur` mark it (`filtered`). The bearer's own posts are never filtered.",
                answer: .json("The filters.", "filters"))),
        command(
            "POST", "/v1/me/filters", scope: "write:filters",
            Operation(
                id: "createFilter", summary: "Make a filter, with its first keywords.", tag: .filters,
                answer: .json("The new filter's id.", "created", status: 201), errors: Operation.writeErrors,
                body: .command("createFilter"))),
        command(
            "PATCH", "/v1/me/filters/{filter}", scope: "write:filters",
            Operation(
                id: "updateFilter", summary: "Change a filter (what is given), its keywords added, changed or removed.",
                tag: .filters, answer: changed("the filter is already so"), errors: [.notFound] + Operation.writeErrors,
                parameters: [.filter], body: .command("updateFilter", path: ["filter"]))),
        command(
            "DELETE", "/v1/me/filters/{filter}", scope: "write:filters",
            Operation(
                id: "deleteFilter", summary: "Delete a filter, its keywords and posts.", tag: .filters,
                answer: .empty(), errors: [.notFound, .storageFull], parameters: [.filter])),
        command(
            "POST", "/v1/me/filters/{filter}/keywords", scope: "write:filters",
            Operation(
                id: "addFilterKeyword", summary: "Add a keyword to a filter.", tag: .filters,
                answer: .json("The new keyword's id.", "created", status: 201),
                errors: [.notFound] + Operation.writeErrors, parameters: [.filter],
                body: .command("addFilterKeyword", path: ["filter"]))),
        command(
            "PATCH", "/v1/me/filter-keywords/{keyword}", scope: "write:filters",
            Operation(
                id: "updateFilterKeyword", summary: "Change a keyword of a filter.", tag: .filters,
                answer: changed("the keyword is already so"), errors: [.notFound] + Operation.writeErrors,
                parameters: [.keyword], body: .command("updateFilterKeyword", path: ["keyword"]))),
        command(
            "DELETE", "/v1/me/filter-keywords/{keyword}", scope: "write:filters",
            Operation(
                id: "removeFilterKeyword", summary: "Remove a keyword of a filter.", tag: .filters,
                answer: .empty(), errors: [.notFound, .storageFull], parameters: [.keyword])),
        command(
            "POST", "/v1/me/filters/{filter}/posts", scope: "write:filters",
            Operation(
                id: "addFilterStatus", summary: "Add a post to a filter (one the bearer may see).", tag: .filters,
                description: "A post the bearer may not see is 404 not_found, as an unknown one.",
                answer: .json("The filter post's id.", "created", status: 201),
                errors: [.notFound] + Operation.writeErrors, parameters: [.filter],
                body: .command("addFilterStatus", path: ["filter"]))),
        command(
            "DELETE", "/v1/me/filter-posts/{filterStatus}", scope: "write:filters",
            Operation(
                id: "removeFilterStatus", summary: "Remove a post from a filter.", tag: .filters,
                answer: .empty(), errors: [.notFound, .storageFull], parameters: [.filterStatus])),
        query(
            "GET", "/v1/directory", scope: "read:accounts",
            Operation(
                id: "directory",
                summary: "The profile directory: the accounts that let themselves be found (`discoverable`).",
                tag: .users,
                description:
                    "Most recently posting first (`order=active`; accounts without posts last) or newest first "
                    + "(`order=new`), without suspended accounts and anyone blocked either way. The cursor is an offset.",
                answer: userPage, parameters: [.order], paged: true)),
        query(
            "GET", "/v1/me/suggestions", scope: "read:accounts", access: .bearer,
            Operation(
                id: "suggestions",
                summary: "People the bearer might follow, followed by people the bearer follows (private).",
                tag: .users,
                description:
                    "Ranked by how many of the people the bearer follows follow each (most first, then by user id), without the "
                    + "bearer, those the bearer follows, those dismissed and anyone blocked either way. The work is bounded: the bearer's 200 most recent "
                    + "follows are sampled, and the 500 most recent follows of each. The cursor is `<count>:<user id>`.",
                answer: .json("A page of suggestions.", "suggestionPage", headers: [.link]), paged: true)),
        command(
            "DELETE", "/v1/me/suggestions/{user}", scope: "write:accounts",
            Operation(
                id: "dismissSuggestion", summary: "Never suggest a user to the bearer again (idempotent).",
                tag: .users, description: "Kept until either account is erased; following is still possible.",
                answer: changed("already dismissed"), errors: [.notFound, .storageFull], parameters: [.user])),
        // A query over POST (the emails go in the body, never in a URL): it appends nothing.
        query(
            "POST", "/v1/me/contacts", scope: .firstParty, access: .bearer,
            admit: { api, request, input in try api.admitContactLookups(request, input) },
            Operation(
                id: "findContacts",
                summary:
                    "The users among up to \(TimelineService.maxContactEmails) emails who let others find them by email (private).",
                tag: .users,
                description:
                    "A query sent by POST so that the emails travel in the body (never in a URL or a log): it records nothing. "
                    + "Users who turned `discoverable` off, the bearer and anyone blocked either way are absent, exactly as an unknown "
                    + "email is.",
                answer: .json("The users found, in the emails' order, each once.", "contacts"), body: .contacts))
    ]

    private static let postRoutes: [Route] = [
        command(
            "POST", "/v1/posts", scope: .oauth(["write:statuses", "write:media"]),
            location: { result in
                if case .post(let post) = result { "/v1/posts/\(post.id.rawValue)" } else { nil }
            },
            Operation(
                id: "addPost", summary: "Post a photo with an optional caption.", tag: .posts,
                answer: .json("The new post.", "post", status: 201, headers: [.location]),
                errors: Operation.writeErrors, body: .photoPost)),
        command(
            "POST", "/v1/media", scope: "write:media",
            Operation(
                id: "uploadMedia", summary: "Upload a photo (with its alt text) to attach to a post within a day.",
                tag: .posts,
                description:
                    "The answer's `id` is what `POST /v1/posts` takes in `media` (1–10 of them, an album); only the uploader "
                    + "can attach it (403 forbidden), once. A photo nobody attached within 24 hours is deleted.",
                answer: .json("The photo, with its sizes, variants and blurhash.", "media", status: 201),
                errors: Operation.writeErrors,
                body: .mediaUpload)),
        command(
            "PATCH", "/v1/media/{media}", scope: "write:media",
            Operation(
                id: "updateMedia", summary: "Set the alt text of one of the bearer's photos, in a post or not.",
                tag: .posts,
                description: "`alt` null or empty clears it. Someone else's photo is 403 forbidden.",
                answer: .json("The photo.", "media"), errors: [.forbidden, .notFound] + Operation.writeErrors,
                parameters: [.media],
                body: .command("updateMedia", path: ["media"]))),
        query(
            "GET", "/v1/media/{media}", scope: "write:media", access: .bearer,
            Operation(
                id: "media", summary: "One of the bearer's photos or videos, with a video's state.", tag: .posts,
                description:
                    "A video is `processing` until it is transcoded (poll this, as apps do), then `ready` (it can be "
                    + "attached to a post, and plays at GET /v1/videos/{media}) or `failed` with the reason. Someone "
                    + "else's media is 404 not_found.",
                answer: .json("The media.", "media"), errors: [.notFound], parameters: [.media])),
        Route(
            "POST", "/v1/videos", .bearer, scope: "write:media",
            .later { api, request in try await api.uploadVideo(request) },
            Operation(
                id: "uploadVideo", summary: "Upload a video (with its alt text) to attach to a post once transcoded.",
                tag: .posts,
                description:
                    "Answered at once, while the video is transcoded off the request (to H.264 + AAC MP4, at most "
                    + "1080p, every metadata atom dropped — a phone's place among them —, rotation applied, a poster "
                    + "frame and its blurhash made): poll GET /v1/media/{media} until its `video.state` is `ready` (or "
                    + "`failed`, with the reason), then attach it as a photo (`POST /v1/posts` `media`). Not an MP4, "
                    + "MOV or WebM file: 415; over the size limit: 413. An upload survives a restart of the server.",
                answer: .json("The video, `processing`.", "media", status: 202), errors: Operation.writeErrors,
                body: .videoUpload)),
        Route(
            "GET", "/v1/videos/{media}", .anyone, scope: .none, .now { api, request in try api.video(request) },
            Operation(
                id: "video", summary: "A transcoded video's MP4, whole or a range of it.", tag: .images,
                description:
                    "To whom its post shows (a followers-only post's: its viewers, with the bearer); a video not yet "
                    + "in a post: to its uploader alone. One byte range (`Range: bytes=…`) is answered with 206, so "
                    + "players can seek; a range past the end with 416. Sent with `Cache-Control: private, no-cache` "
                    + "and its ETag (revalidate with If-None-Match).",
                answer: Answer(
                    status: 200, description: "The MP4 (H.264 + AAC, faststart).",
                    content: [("video/mp4", .binary)], headers: [.acceptRanges, .eTag, .cacheControl]),
                errors: [.notFound], parameters: [.media, .range, .ifNoneMatch],
                otherAnswers: [
                    (
                        206,
                        Answer(
                            status: 206, description: "The range asked for.", content: [("video/mp4", .binary)],
                            headers: [.contentRange, .acceptRanges, .eTag])
                    ),
                    (
                        304,
                        Answer(
                            status: 304, description: "Not modified: the If-None-Match ETag is current.",
                            headers: [.eTag])
                    ),
                    (416, Answer(status: 416, description: "The range is past the end.", headers: [.contentRange]))
                ])),
        command(
            "POST", "/v1/users/{user}/report", scope: "write:reports",
            Operation(
                id: "reportUser",
                summary: "Report an account to the moderators, with a reason and perhaps some of its posts.",
                tag: .users,
                description:
                    "`posts` (at most \(UserReportPolicy.maxPosts)) must be the account's and visible to the bearer. One standing "
                    + "report per reporter and account: a repeat changes nothing. Yourself is 400; an account that blocks you, 403.",
                answer: changed("already reported"), errors: [.forbidden, .notFound] + Operation.writeErrors,
                parameters: [.user],
                body: .command("reportUser", path: ["user"]))),
        query(
            "GET", "/v1/admin/reports", scope: "admin:read:reports", access: .bearer,
            Operation(
                id: "moderationQueue", summary: "The report queue: reported posts and accounts (moderators only).",
                tag: .moderation,
                description:
                    "Posts with standing reports (those the reports hide first, then the newest reported), each with a "
                    + "`preview` of the post; accounts with standing reports, the newest reported first. A bearer without the role is 403.",
                answer: .json("The queue.", "moderationQueue"), errors: [.forbidden])),
        command(
            "DELETE", "/v1/admin/posts/{post}", scope: "admin:write:reports",
            Operation(
                id: "removePost", summary: "Remove a post for breaking the rules, saying why (moderators only).",
                tag: .moderation,
                description: "It leaves every list like a deleted post, and its author's activity shows the reason.",
                answer: .empty(), errors: [.forbidden, .notFound] + Operation.writeErrors, parameters: [.post],
                body: .command("removePost", path: ["post"]))),
        command(
            "POST", "/v1/admin/posts/{post}/dismiss", scope: "admin:write:reports",
            Operation(
                id: "dismissReports", summary: "Dismiss the reports standing against a post (moderators only).",
                tag: .moderation,
                answer: changed("nothing stood"), errors: [.forbidden, .notFound, .storageFull], parameters: [.post])),
        command(
            "POST", "/v1/admin/users/{user}/dismiss", scope: "admin:write:reports",
            Operation(
                id: "dismissUserReports", summary: "Dismiss the reports standing against an account (moderators only).",
                tag: .moderation,
                answer: changed("nothing stood"), errors: [.forbidden, .notFound, .storageFull], parameters: [.user])),
        command(
            "PUT", "/v1/admin/suspensions/{user}", scope: "admin:write:accounts",
            Operation(
                id: "suspendUser", summary: "Suspend an account (moderators only).", tag: .moderation,
                description:
                    "It cannot sign in, its sessions and streams end, and its profile and posts are gone for everyone else "
                    + "until unsuspended. A moderator's account only the operator suspends (403).",
                answer: changed("already suspended"), errors: [.forbidden, .notFound, .storageFull], parameters: [.user]
            )),
        command(
            "DELETE", "/v1/admin/suspensions/{user}", scope: "admin:write:accounts",
            Operation(
                id: "unsuspendUser", summary: "Lift a suspension (moderators only).", tag: .moderation,
                answer: changed("not suspended"), errors: [.forbidden, .notFound, .storageFull], parameters: [.user])),
        command(
            "POST", "/v1/admin/trends/hide", scope: "admin:write",
            Operation(
                id: "hideTrend", summary: "Keep a hashtag or a post out of the trends (moderators only).",
                tag: .moderation,
                description: "The body names either `tag` (with or without #) or `post`; however much it is used, it "
                    + "no longer trends.",
                answer: changed("already hidden"), errors: [.forbidden, .notFound] + Operation.writeErrors,
                body: .command("hideTrend"))),
        command(
            "POST", "/v1/admin/trends/show", scope: "admin:write",
            Operation(
                id: "showTrend", summary: "Let a hidden hashtag or post trend again (moderators only).",
                tag: .moderation, answer: changed("not hidden"),
                errors: [.forbidden, .notFound] + Operation.writeErrors,
                body: .command("showTrend"))),
        // Before /v1/posts/{post}, which would take "nearby" for an id.
        query(
            "GET", "/v1/posts/nearby", scope: "read:statuses",
            Operation(
                id: "nearby", summary: "Posts placed near a point, newest first.", tag: .posts,
                description:
                    "Every post whose place is within `radiusKm` (great-circle distance) of `latitude`, `longitude`, and no "
                    + "other; posts of users the bearer blocks, or who block the bearer, are left out. An out-of-range "
                    + "coordinate or radius is 400 invalid_argument naming it.",
                answer: postPage, parameters: [.latitude, .longitude, .radiusKm], paged: true)),
        query(
            "GET", "/v1/posts/{post}", scope: "read:statuses",
            Operation(
                id: "post", summary: "A post with its first page of comments.", tag: .posts,
                description: "`limit` and `before` page through the post's comments (oldest first).",
                answer: .json("The post detail; likedByViewer only with a bearer.", "postDetail"), errors: [.notFound],
                parameters: [.post], paged: true)),
        command(
            "PATCH", "/v1/posts/{post}", scope: "write:statuses",
            Operation(
                id: "editPost", summary: "Edit a post's caption (its author only).", tag: .posts,
                description:
                    "`caption` null or empty clears it; absent keeps it. Its hashtags are indexed anew, it shows `editedAt`, "
                    + "and its place in timelines does not move; every version stays in its history.",
                answer: .json("The post as edited.", "post"), errors: [.forbidden, .notFound] + Operation.writeErrors,
                parameters: [.post], body: .command("editPost", path: ["post"]))),
        query(
            "GET", "/v1/posts/{post}/history", scope: "read:statuses",
            Operation(
                id: "postHistory", summary: "Every version of a post's caption, the first first.", tag: .posts,
                answer: .json("The versions.", "postHistory"), errors: [.notFound], parameters: [.post])),
        command(
            "DELETE", "/v1/posts/{post}", scope: "write:statuses",
            Operation(
                id: "deletePost", summary: "Delete a post (its author only).", tag: .posts,
                answer: .empty(), errors: [.forbidden, .notFound, .storageFull], parameters: [.post])),
        query(
            "GET", "/v1/posts/{post}/comments", scope: "read:statuses",
            Operation(
                id: "comments", summary: "A post's comments, oldest first.", tag: .comments,
                answer: .json("A page of comments.", "commentPage", headers: [.link]), errors: [.notFound],
                parameters: [.post], paged: true)),
        command(
            "POST", "/v1/posts/{post}/comments", scope: "write:statuses",
            Operation(
                id: "addComment", summary: "Comment on a post.", tag: .comments,
                description:
                    "403 forbidden while you block the post's author; 404 not_found while its author blocks you (the post is out of your sight, as an unknown id).",
                answer: .json("The new comment.", "comment", status: 201),
                errors: [.forbidden, .notFound] + Operation.writeErrors,
                parameters: [.post], body: .command("addComment", path: ["post"]))),
        command(
            "DELETE", "/v1/comments/{comment}", scope: "write:statuses",
            Operation(
                id: "deleteComment", summary: "Delete a comment (its author or the post's author).", tag: .comments,
                answer: .empty(), errors: [.forbidden, .notFound, .storageFull], parameters: [.comment])),
        command(
            "PUT", "/v1/posts/{post}/like", scope: "write:favourites",
            Operation(
                id: "like", summary: "Like a post (idempotent).", tag: .likes,
                description:
                    "403 forbidden while you block the post's author; 404 not_found while its author blocks you (the post is out of your sight, as an unknown id).",
                answer: changed("already liked"), errors: [.forbidden, .notFound, .storageFull], parameters: [.post])),
        command(
            "DELETE", "/v1/posts/{post}/like", scope: "write:favourites",
            Operation(
                id: "unlike", summary: "Take back a like (idempotent).", tag: .likes,
                answer: changed("not liked"), errors: [.notFound, .storageFull], parameters: [.post])),
        query(
            "GET", "/v1/posts/{post}/likes", scope: "read:accounts",
            Operation(
                id: "likes", summary: "Who liked a post, newest first.", tag: .likes,
                answer: userPage, errors: [.notFound], parameters: [.post], paged: true)),
        query(
            "GET", "/v1/posts/{post}/poll", scope: "read:statuses",
            Operation(
                id: "postPoll", summary: "A post's poll (404 when it has none).", tag: .posts,
                answer: .json("The poll.", "poll"), errors: [.notFound], parameters: [.post])),
        query(
            "GET", "/v1/polls/{poll}", scope: "read:statuses",
            Operation(
                id: "poll", summary: "A post's poll: its options and counts, and the bearer's vote.", tag: .posts,
                description:
                    "The counts are null while the poll hides its totals and has not ended; `expired` is judged at the "
                    + "time of the read. 404 not_found when the post is out of the reader's sight.",
                answer: .json("The poll.", "poll"), errors: [.notFound], parameters: [.poll])),
        command(
            "POST", "/v1/polls/{poll}/votes", scope: "write:statuses",
            Operation(
                id: "vote", summary: "Vote in a poll: once, before it ends (the author may vote too).", tag: .posts,
                description:
                    "`choices` are option indexes as text (one unless the poll is multiple). 400 invalid_argument "
                    + "for a second vote, a vote after the end or a choice that is not an option; 403 forbidden "
                    + "while either blocks the other; 404 not_found when the post is out of the voter's sight.",
                answer: .empty(), errors: [.forbidden, .notFound] + Operation.writeErrors, parameters: [.poll],
                body: .command("vote", path: ["poll"]))),
        // Boosts (Mastodon's reblogs).
        command(
            "PUT", "/v1/posts/{post}/boost", scope: "write:statuses",
            Operation(
                id: "reblog", summary: "Boost a post: show it to your followers (again: the same boost).", tag: .likes,
                description:
                    "Answers the boost's own id (a boost is a status of its own); boosting again answers the same "
                    + "id and records nothing. The body may give `visibility`: public (the default), unlisted or "
                    + "private. 403 forbidden for a post for followers only, a private account's post, or while one "
                    + "of you blocks the other; 404 not_found for a post out of your sight.",
                answer: .json("The boost's id.", "created"), errors: [.forbidden, .notFound] + Operation.writeErrors,
                parameters: [.post], body: .command("reblog", path: ["post"]))),
        command(
            "DELETE", "/v1/posts/{post}/boost", scope: "write:statuses",
            Operation(
                id: "unreblog", summary: "Take back your boost of a post (idempotent).", tag: .likes,
                answer: changed("not boosted"), errors: [.notFound, .storageFull], parameters: [.post])),
        query(
            "GET", "/v1/posts/{post}/boosts", scope: "read:accounts",
            Operation(
                id: "boosts", summary: "Who boosted a post, the latest boost first.", tag: .likes,
                answer: userPage, errors: [.notFound], parameters: [.post], paged: true)),
        command(
            "PUT", "/v1/posts/{post}/bookmark", scope: "write:bookmarks",
            Operation(
                id: "bookmark", summary: "Save a post to the bearer's bookmarks (idempotent).", tag: .bookmarks,
                answer: changed("already bookmarked"), errors: [.notFound, .storageFull], parameters: [.post])),
        command(
            "DELETE", "/v1/posts/{post}/bookmark", scope: "write:bookmarks",
            Operation(
                id: "unbookmark", summary: "Take a post out of the bearer's bookmarks (idempotent).", tag: .bookmarks,
                answer: changed("not bookmarked"), errors: [.notFound, .storageFull], parameters: [.post])),
        query(
            "GET", "/v1/me/bookmarks", scope: "read:bookmarks", access: .bearer,
            Operation(
                id: "bookmarks", summary: "The bearer's bookmarks, the latest saved first (private).", tag: .bookmarks,
                answer: postPage, paged: true)),
        command(
            "POST", "/v1/posts/{post}/reports", scope: "write:reports",
            Operation(
                id: "reportPost", summary: "Report a post to the moderators.", tag: .posts,
                description:
                    "One report per reporter and post: a repeat is accepted and changes nothing (the library and "
                    + "`timeline exec` answer `{changed: false}` for it).",
                answer: .empty(), errors: [.notFound] + Operation.writeErrors, parameters: [.post],
                body: .command("reportPost", path: ["post"])))
    ]

    /// Pinned posts, muted conversations, private notes, endorsements, removing a follower and
    /// familiar followers (#41).
    private static let profileExtrasRoutes: [Route] = [
        command(
            "PUT", "/v1/posts/{post}/pin", scope: "write:accounts",
            Operation(
                id: "pin", summary: "Pin one of the bearer's own posts to their profile (idempotent).", tag: .posts,
                description:
                    "At most 5 posts are pinned at once: a sixth, or someone else's post, gives 400 invalid_argument. "
                    + "Pinned posts show first on the profile (GET /v1/users/{user}/pins); deleting a post unpins it.",
                answer: changed("already pinned"), errors: [.notFound, .storageFull], parameters: [.post])),
        command(
            "DELETE", "/v1/posts/{post}/pin", scope: "write:accounts",
            Operation(
                id: "unpin", summary: "Unpin a post (idempotent).", tag: .posts,
                answer: changed("not pinned"), errors: [.notFound, .storageFull], parameters: [.post])),
        query(
            "GET", "/v1/users/{user}/pins", scope: "read:statuses",
            Operation(
                id: "pinnedPosts", summary: "A user's pinned posts, the latest pinned first (at most 5).", tag: .users,
                description: "Only those the caller may see: none across a block either way.",
                answer: postPage, errors: [.notFound], parameters: [.user])),
        command(
            "PUT", "/v1/posts/{post}/mute", scope: "write:mutes",
            Operation(
                id: "muteConversation",
                summary: "Mute a post's thread: no activity item (nor push) about it reaches the bearer (idempotent).",
                tag: .mutes,
                answer: changed("already muted"), errors: [.notFound, .storageFull], parameters: [.post])),
        command(
            "DELETE", "/v1/posts/{post}/mute", scope: "write:mutes",
            Operation(
                id: "unmuteConversation", summary: "Unmute a post's thread (idempotent).", tag: .mutes,
                answer: changed("not muted"), errors: [.notFound, .storageFull], parameters: [.post])),
        command(
            "PUT", "/v1/me/notes/{user}", scope: "write:accounts",
            Operation(
                id: "setAccountNote",
                summary: "Set the bearer's private note on a user (\"\" clears it); only its writer reads it.",
                tag: .users,
                description: "The note shows as the profile's `noteByViewer`, to its writer alone.",
                answer: changed("the note was already so"), errors: [.notFound] + Operation.writeErrors,
                parameters: [.user], body: .command("setAccountNote", path: ["user"]))),
        command(
            "DELETE", "/v1/me/followers/{user}", scope: "write:follows",
            Operation(
                id: "removeFromFollowers", summary: "Remove a follower: ends their follow of the bearer (idempotent).",
                tag: .users,
                description: "Recorded as their Unfollowed: timelines change exactly as for an unfollow.",
                answer: changed("not a follower"), errors: [.notFound, .storageFull], parameters: [.user])),
        command(
            "PUT", "/v1/me/endorsements/{user}", scope: "write:accounts",
            Operation(
                id: "endorse", summary: "Feature a user the bearer follows on their profile (idempotent).",
                tag: .users,
                description:
                    "A user the bearer does not follow gives 400 invalid_argument; unfollowing ends the endorsement.",
                answer: changed("already endorsed"), errors: [.notFound, .storageFull], parameters: [.user])),
        command(
            "DELETE", "/v1/me/endorsements/{user}", scope: "write:accounts",
            Operation(
                id: "unendorse", summary: "Stop featuring a user (idempotent).", tag: .users,
                answer: changed("not endorsed"), errors: [.notFound, .storageFull], parameters: [.user])),
        query(
            "GET", "/v1/users/{user}/endorsements", scope: "read:accounts",
            Operation(
                id: "endorsements", summary: "The users a user features, the latest endorsed first.", tag: .users,
                description: "Only those the caller may see; none across a block either way.",
                answer: userPage, errors: [.notFound], parameters: [.user])),
        command(
            "PUT", "/v1/me/featured-tags/{tag}", scope: "write:accounts",
            Operation(
                id: "featureTag", summary: "Feature a hashtag on the bearer's profile (idempotent; at most 10).",
                tag: .users, description: "An eleventh, or a tag that is not one hashtag, gives 400 invalid_argument.",
                answer: changed("already featured"), errors: [.storageFull], parameters: [.tag])),
        command(
            "DELETE", "/v1/me/featured-tags/{tag}", scope: "write:accounts",
            Operation(
                id: "unfeatureTag", summary: "Stop featuring a hashtag (idempotent).", tag: .users,
                answer: changed("not featured"), errors: [.storageFull], parameters: [.tag])),
        query(
            "GET", "/v1/users/{user}/featured-tags", scope: "read:accounts",
            Operation(
                id: "featuredTags", summary: "The hashtags a user features, in the order featured.", tag: .users,
                description: "None across a block either way.",
                answer: .json("The tags.", "tagPage"), errors: [.notFound], parameters: [.user])),
        command(
            "PUT", "/v1/me/followed-tags/{tag}", scope: "write:follows",
            Operation(
                id: "followTag",
                summary: "Follow a hashtag: its public posts come into the home timeline (idempotent).",
                tag: .users,
                description:
                    "Only posts anyone may see come in (never a followers-only post or a locked account's), each once. "
                    + "A 101st tag, or a tag that is not one hashtag, gives 400 invalid_argument.",
                answer: changed("already followed"), errors: [.storageFull], parameters: [.tag])),
        command(
            "DELETE", "/v1/me/followed-tags/{tag}", scope: "write:follows",
            Operation(
                id: "unfollowTag", summary: "Stop following a hashtag (idempotent).", tag: .users,
                answer: changed("not followed"), errors: [.storageFull], parameters: [.tag])),
        query(
            "GET", "/v1/me/followed-tags", scope: "read:follows", access: .bearer,
            Operation(
                id: "followedTags", summary: "The hashtags the bearer follows, the latest followed first (private).",
                tag: .users, answer: .json("A page of tags.", "tagPage", headers: [.link]), paged: true)),
        query(
            "GET", "/v1/me/followed-tags/{tag}", scope: "read:follows", access: .bearer,
            Operation(
                id: "followsTag", summary: "Whether the bearer follows a hashtag.", tag: .users,
                answer: .json("Whether the bearer follows it.", "follows"), parameters: [.tag])),
        query(
            "GET", "/v1/users/{user}/familiar-followers", scope: "read:follows", access: .bearer,
            Operation(
                id: "familiarFollowers", summary: "The users the bearer follows who follow this user.", tag: .users,
                description: "Only those the bearer may see; none when the user is out of the bearer's sight.",
                answer: userPage, errors: [.notFound], parameters: [.user]))
    ]

    private static let feedRoutes: [Route] = [
        query(
            "GET", "/v1/timeline", scope: "read:statuses", access: .bearer, fixed: viewer("user"),
            Operation(
                id: "timeline", summary: "The bearer's home timeline, newest first.", tag: .feeds, answer: postPage,
                paged: true)),
        query(
            "GET", "/v1/hashtags", scope: "read:statuses",
            Operation(
                id: "tags", summary: "Hashtags starting with `prefix` (with or without `#`), in tag order.",
                tag: .feeds,
                description:
                    "Only tags with a post the caller may see. A page looks at no more than 500 distinct tags, so "
                    + "it may be short and still have a next.",
                answer: .json("A page of tags.", "tagPage", headers: [.link]), parameters: [.prefix],
                paged: true)),
        query(
            "GET", "/v1/trends/tags", scope: "read:statuses",
            Operation(
                id: "trendingTags",
                summary: "The hashtags trending now: used by the most accounts in public posts over the last two days.",
                tag: .feeds,
                description:
                    "At least two accounts must have used a tag; each comes with its last seven days. Hashtags a "
                    + "moderator hid are left out. The cursor is an offset.",
                answer: .json("A page of trending hashtags.", "trendingTagPage", headers: [.link]), paged: true)),
        query(
            "GET", "/v1/trends/posts", scope: "read:statuses",
            Operation(
                id: "trendingPosts",
                summary: "The public posts of the last week trending now: the most liked and commented for their age.",
                tag: .feeds,
                description:
                    "Only posts for everyone, at least two likes and comments, those the caller may see; posts a "
                    + "moderator hid are left out. The cursor is an offset.",
                answer: postPage, paged: true)),
        query(
            "GET", "/v1/hashtags/{tag}/posts", scope: "read:statuses",
            Operation(
                id: "hashtag", summary: "Posts with a hashtag, newest first.", tag: .feeds,
                answer: .json("A page of posts (empty for an unknown tag).", "postPage", headers: [.link]),
                parameters: [.tag], paged: true)),
        query(
            "GET", "/v1/activity", scope: "read:notifications", access: .bearer, fixed: viewer("user"),
            Operation(
                id: "activity",
                summary:
                    "What happened to the bearer: comments and likes on their posts, new followers, mentions, replies, removals, posts they asked to be told of, being added to a collection.",
                tag: .feeds,
                description:
                    "`types` keeps only items of those kinds (comma-separated: \(ActivityItem.Kind.allCases.map(\.rawValue).joined(separator: ", "))). "
                    + "Items whose actor the bearer mutes or blocks (either way) are left out.",
                answer: .json("A page of activity, newest first.", "activityPage", headers: [.link]),
                parameters: [.types], paged: true)),
        Route(
            "GET", "/v1/me/push", .bearer, scope: "push", .now { api, request in try api.pushSubscription(request) },
            Operation(
                id: "pushSubscription",
                summary: "This token's push subscription (Web Push), with the server's VAPID key.", tag: .feeds,
                description:
                    "No subscription gives 404 not_found. The key to subscribe with is also in GET /api/v2/instance "
                    + "(`configuration.vapid.public_key`, as Mastodon tells it).",
                answer: .json("The subscription.", "pushSubscription"), errors: [.notFound])),
        command(
            "PUT", "/v1/me/push", scope: "push",
            Operation(
                id: "subscribePush",
                summary: "Subscribe this token to push notifications (one per token; replaces its subscription).",
                tag: .feeds,
                description: "`endpoint` must be an https URL; `p256dh` and `auth` are the browser's keys (base64url); "
                    + "`alerts` the types pushed (\(PushAlert.all.joined(separator: ", "))), `policy` whose actions push.",
                answer: .empty(), errors: Operation.writeErrors, body: .command("subscribePush"))),
        command(
            "DELETE", "/v1/me/push", scope: "push",
            Operation(
                id: "unsubscribePush", summary: "End this token's push subscription.", tag: .feeds,
                answer: changed("there was none"), errors: [.storageFull])),
        command(
            "POST", "/v1/activity/read", scope: "write:notifications",
            Operation(
                id: "markActivityRead", summary: "Mark the bearer's activity read up to an item (its `id`).",
                tag: .feeds,
                description:
                    "Items after it stay unread; `GET /v1/me` says how many (`unreadActivity`). The marker only moves forward: "
                    + "an item at or before it changes nothing.",
                answer: changed("the marker is already there or past it"), errors: Operation.writeErrors,
                body: .command("markActivityRead"))),
        query(
            "GET", "/v1/me/notification-policy", scope: "read:notifications", access: .bearer,
            Operation(
                id: "notificationPolicy",
                summary: "The bearer's notification policy, with how many requests and notifications it holds.",
                tag: .feeds, answer: .json("The policy.", "notificationPolicy"))),
        command(
            "PATCH", "/v1/me/notification-policy", scope: "write:notifications",
            Operation(
                id: "setNotificationPolicy",
                summary: "Set what the bearer's activity does with the notifications of accounts in each category.",
                tag: .feeds,
                description:
                    "`accept`, `filter` (held as a notification request of the account: out of the activity, the unread "
                    + "count, the live stream and push until accepted) or `drop` (never recorded); fields not given stay. "
                    + "It applies to what comes from then on, as in Mastodon.",
                answer: changed("the policy is already so"), errors: Operation.writeErrors,
                body: .command("setNotificationPolicy"))),
        query(
            "GET", "/v1/me/notification-requests", scope: "read:notifications", access: .bearer,
            Operation(
                id: "notificationRequests",
                summary: "The notifications the bearer's policy holds, one request per account.", tag: .feeds,
                answer: .json(
                    "A page of requests, by account id descending.", "notificationRequestPage", headers: [.link]),
                paged: true)),
        command(
            "POST", "/v1/me/notification-requests/{user}/accept", scope: "write:notifications",
            Operation(
                id: "acceptNotificationRequest",
                summary: "Let the user's held notifications through, and those they send from now on.", tag: .feeds,
                answer: .empty(), errors: [.notFound] + Operation.writeErrors, parameters: [.user])),
        command(
            "POST", "/v1/me/notification-requests/{user}/dismiss", scope: "write:notifications",
            Operation(
                id: "dismissNotificationRequest", summary: "Discard the notifications held from the user.",
                tag: .feeds, answer: .empty(), errors: [.notFound] + Operation.writeErrors, parameters: [.user])),
        Route(
            "GET", "/v1/images/{image}", .anyone, scope: .none, .now { api, request in try api.image(request) },
            Operation(
                id: "image", summary: "An image's bytes.", tag: .images,
                description:
                    "With `variant`, the image id may be any image of a post (its `image`): the answer is that post's photo "
                    + "in the chosen size, and the ETag is the id of the image sent. An image without variants (a post's "
                    + "from before the image pipeline, not yet reprocessed) answers itself for every variant; such an "
                    + "answer (the id asked for, with `variant`) is sent with `Cache-Control: public, no-cache`, to be "
                    + "revalidated, since reprocessing may give it variants later. A photo uploaded (`POST /v1/media`) "
                    + "for a post not yet made answers only its uploader (with the bearer), with "
                    + "`Cache-Control: private, no-cache`; anyone else gets 404, as for an unknown id.",
                answer: Answer(
                    status: 200,
                    description:
                        "The bytes, with their Content-Type. Immutable: cache forever, revalidate with If-None-Match.",
                    content: MediaType.allCases.map { ($0.rawValue, .binary) }, headers: [.eTag, .cacheControl]),
                errors: [.notFound], parameters: [.image, .variant, .ifNoneMatch],
                otherAnswers: [
                    (
                        304,
                        Answer(
                            status: 304, description: "Not modified: the If-None-Match ETag is current.",
                            headers: [.eTag])
                    )
                ])),
        Route(
            "POST", "/v1/me/imports", .bearer, scope: .firstParty,
            .now { api, request in try api.startImport(request) },
            Operation(
                id: "startImport", summary: "Move in from Instagram: import an export's posts, photos and videos.",
                tag: .account,
                description:
                    "The multipart part `archive`: the zip of Instagram's \"Download your information\" in the JSON "
                    + "format (written to disk as it arrives, up to 8 GiB). Imported off the request: posts with their "
                    + "photos, albums and videos, captions and hashtags, places, each at its original date, and the "
                    + "profile's bio and photo. Poll GET /v1/me/imports/{import} until it is `done` (with its report) "
                    + "or `failed`. Importing the same export again adds nothing. One import at a time (409 conflict).",
                answer: .json("The import, running.", "import", status: 202, headers: [.location]),
                errors: Operation.writeErrors + [.conflict], body: .archiveUpload)),
        Route(
            "GET", "/v1/me/imports/{import}", .bearer, scope: .firstParty,
            .now { api, request in try api.importProgress(request) },
            Operation(
                id: "importProgress", summary: "One of the bearer's imports: how far it is, or what it did.",
                tag: .account,
                description: "Kept while the server runs. Another user's import is 404 not_found.",
                answer: .json("The import.", "import"), errors: [.notFound], parameters: [.importJob])),
        Route(
            "GET", "/v1/me/export", .bearer, scope: .firstParty, .now { api, request in try api.export(request) },
            Operation(
                id: "exportData",
                summary: "Download your data: a zip archive of the bearer's profile, posts and photos, and more.",
                tag: .account,
                description:
                    "profile.json, posts.json with every photo (photos/POST/N.jpg), comments.json, likes.json, bookmarks.json, "
                    + "following.json, followers.json, blocks.json, mutes.json, notes.json, endorsements.json, pinned.json, "
                    + "featured-tags.json and events.jsonl (every event the bearer caused, valid "
                    + "against the event schemas). Streamed as it is made; one export per user at a time (429 while one runs).",
                answer: Answer(
                    status: 200, description: "The zip archive (Content-Disposition: attachment).",
                    content: [("application/zip", .binary)]),
                errors: [.rateLimited])),
        Route(
            "POST", "/v1/stream/tickets", .bearer, scope: .oauth(["read:statuses", "read:notifications"]),
            .now { api, request in try api.streamTicket(request) },
            Operation(
                id: "streamTicket",
                summary: "A short-lived, single-use ticket for GET /v1/stream?ticket= (for EventSource).", tag: .stream,
                answer: .json("The ticket.", "streamTicket", status: 201), errors: [.rateLimited])),
        Route(
            "GET", "/v1/stream", .viewerOptional, scope: .oauth(["read:statuses", "read:notifications"]),
            .now { api, request in try api.stream(request) },
            Operation(
                id: "stream", summary: "Live updates for the bearer (Server-Sent Events).", tag: .stream,
                description:
                    "Authenticate with the bearer header or, where headers cannot be sent (EventSource), with `?ticket=` from "
                    + "POST /v1/stream/tickets; without either the answer is 401. Events: `post` (a post entered the home timeline; "
                    + "data: a post), `activity` (a comment, like, follow, mention or reply concerning the bearer; data: an activityItem), `removed` "
                    + "(a post left the home timeline; data: {\"post\": id}). Each event's `id` is its log sequence number: reconnect "
                    + "with `Last-Event-ID` to get every later event exactly once. A comment line comes at least every 15 s.",
                answer: Answer(
                    status: 200, description: "An endless text/event-stream.", content: [("text/event-stream", .text)]),
                errors: [.rateLimited], parameters: [.ticket, .lastEventID]))
    ]

    /// `GET /healthz` and `GET /readyz`, on both listeners.
    private static let health: [Route] = [
        Route(
            "GET", "/healthz", .anyone, scope: .none,
            .now { api, request in
                try api.refuseAnyField(request)
                return Responses.json(200, JSONOutput.health("ok"))
            },
            Operation(
                id: "healthz", summary: "Liveness: the process answers.", tag: .operations,
                answer: .json("Alive.", "health"))),
        Route(
            "GET", "/readyz", .anyone, scope: .none, .now { api, request in try api.ready(request) },
            Operation(
                id: "readyz", summary: "Readiness: the database is open and the read models are caught up.",
                tag: .operations,
                answer: .json("Ready.", "health"),
                otherAnswers: [(503, .json("Not ready yet (read models catching up).", "health", status: 503))]))
    ]

    private static let scheduledPostRoutes: [Route] = [
        command(
            "POST", "/v1/scheduled-posts", scope: "write:statuses",
            location: { result in
                if case .created(let id) = result { "/v1/scheduled-posts/\(id)" } else { nil }
            },
            Operation(
                id: "schedulePost", summary: "Schedule a post of uploaded photos for a later time.", tag: .posts,
                description:
                    "The fields of `POST /v1/posts` with `media` (photos uploaded before: `POST /v1/media`), and "
                    + "`scheduledAt`, at least 5 minutes ahead (400 invalid_argument otherwise, as Mastodon's 422). The "
                    + "server publishes it at that time, once: the post is made then (its id and `createdAt` are of "
                    + "that moment). Until then its photos are shown to nobody else. At most "
                    + "\(ScheduleLimits.maxPending) pending, \(ScheduleLimits.maxPerDay) a day.",
                answer: .json("The scheduled post's id.", "created", status: 201, headers: [.location]),
                errors: Operation.writeErrors, body: .command("schedulePost"))),
        query(
            "GET", "/v1/me/scheduled-posts", scope: "read:statuses", access: .bearer, runs: "scheduledPosts",
            Operation(
                id: "scheduledPosts", summary: "The bearer's pending scheduled posts, the latest scheduled first.",
                tag: .posts,
                answer: .json("A page of scheduled posts.", "scheduledPostPage", headers: [.link]), paged: true)),
        query(
            "GET", "/v1/scheduled-posts/{scheduledPost}", scope: "read:statuses", access: .bearer,
            Operation(
                id: "scheduledPost", summary: "One of the bearer's pending scheduled posts.", tag: .posts,
                answer: .json("The scheduled post.", "scheduledPost"), errors: [.notFound],
                parameters: [.scheduledPost])),
        command(
            "PATCH", "/v1/scheduled-posts/{scheduledPost}", scope: "write:statuses",
            Operation(
                id: "reschedulePost", summary: "Move one of the bearer's pending scheduled posts to another time.",
                tag: .posts, description: "`scheduledAt` at least 5 minutes ahead.",
                answer: changed("it was scheduled for that time already"),
                errors: [.notFound] + Operation.writeErrors, parameters: [.scheduledPost],
                body: .command("reschedulePost", path: ["scheduledPost"]))),
        command(
            "DELETE", "/v1/scheduled-posts/{scheduledPost}", scope: "write:statuses",
            Operation(
                id: "cancelScheduledPost", summary: "Cancel one of the bearer's pending scheduled posts.", tag: .posts,
                description: "Its photos are unattached uploads again.", answer: .empty(),
                errors: [.notFound] + Operation.writeErrors, parameters: [.scheduledPost]))
    ]

    private static let story = Answer.json("The story.", "story")

    private static let storyRoutes: [Route] = [
        command(
            "POST", "/v1/stories", scope: "write:media",
            Operation(
                id: "postStory", summary: "Post a photo as a story: it shows for 24 hours.", tag: .posts,
                description:
                    "Those who follow the bearer see it in their stories row (a locked account's: its followers only). "
                    + "Past its day it is gone, unless kept as a highlight (PUT /v1/stories/{story}/highlight).",
                answer: .json("The story.", "story", status: 201), errors: Operation.writeErrors,
                body: .storyUpload)),
        command(
            "POST", "/v1/stories/video", scope: "write:media",
            Operation(
                id: "postVideoStory", summary: "Post one of the bearer's videos as a story: it shows for 24 hours.",
                tag: .posts,
                description:
                    "The video is uploaded first (POST /v1/videos) and transcoded (its `video.state` `ready`); one "
                    + "still processing, failed, or already in a post or a story is 422 invalid_argument. The story's "
                    + "photo is its poster frame; its `video` plays at GET /v1/videos/{media}, to whom the story shows.",
                answer: .json("The story.", "story", status: 201),
                errors: Operation.writeErrors + [.notFound, .forbidden],
                body: .command("postVideoStory"))),
        query(
            "GET", "/v1/stories", scope: "read:statuses", access: .bearer,
            Operation(
                id: "stories", summary: "The bearer's stories row.", tag: .feeds,
                description:
                    "Their own live stories first, then the accounts they follow with live stories they may see: "
                    + "those with stories not seen yet first (newest unseen first), then the rest (newest first); "
                    + "each account's stories oldest first, with `seen`.",
                answer: .json("The row.", "stories"))),
        query(
            "GET", "/v1/stories/{story}", scope: "read:statuses",
            Operation(
                id: "story", summary: "One story.", tag: .posts,
                description: "A story past its day (not a highlight), or out of the viewer's sight, is 404 not_found.",
                answer: story, errors: [.notFound], parameters: [.story])),
        command(
            "POST", "/v1/stories/{story}/view", scope: "write:statuses",
            Operation(
                id: "viewStory", summary: "Mark a story seen (its author sees who saw it).", tag: .posts,
                answer: changed("the bearer had seen it already, or it is their own"),
                errors: [.notFound] + Operation.writeErrors, parameters: [.story])),
        query(
            "GET", "/v1/stories/{story}/viewers", scope: "read:statuses", access: .bearer,
            Operation(
                id: "storyViewers", summary: "Who saw one of the bearer's stories, the latest first.", tag: .posts,
                description: "Another's story is 404 not_found.", answer: userPage, errors: [.notFound],
                parameters: [.story], paged: true)),
        command(
            "POST", "/v1/stories/{story}/reply", scope: "write:statuses",
            Operation(
                id: "replyToStory", summary: "Answer a story with a direct message to its author.", tag: .posts,
                description: "The message is a direct post (visibility direct) that mentions the author.",
                answer: .json("The direct message.", "post", status: 201),
                errors: [.notFound] + Operation.writeErrors, parameters: [.story],
                body: .command("replyToStory", path: ["story"]))),
        command(
            "PUT", "/v1/stories/{story}/highlight", scope: "write:statuses",
            Operation(
                id: "highlightStory",
                summary: "Keep one of the bearer's stories on their profile (it does not expire).",
                tag: .posts, answer: changed("it was a highlight already"),
                errors: [.notFound] + Operation.writeErrors, parameters: [.story])),
        command(
            "DELETE", "/v1/stories/{story}/highlight", scope: "write:statuses",
            Operation(
                id: "unhighlightStory", summary: "Take one of the bearer's stories off their highlights.", tag: .posts,
                description: "Past its day, it is then gone.", answer: changed("it was no highlight"),
                errors: [.notFound] + Operation.writeErrors, parameters: [.story])),
        command(
            "DELETE", "/v1/stories/{story}", scope: "write:statuses",
            Operation(
                id: "deleteStory", summary: "Delete one of the bearer's stories (a highlight too).", tag: .posts,
                answer: .empty(), errors: [.notFound] + Operation.writeErrors, parameters: [.story])),
        query(
            "GET", "/v1/users/{user}/highlights", scope: "read:statuses",
            Operation(
                id: "highlights", summary: "A user's highlights (stories kept on their profile), newest first.",
                tag: .users,
                description: "A locked account's are for its followers (an empty list to others).",
                answer: .json("The highlights.", "highlights"), errors: [.notFound], parameters: [.user]))
    ]

    private static let listRoutes: [Route] = [
        query(
            "GET", "/v1/lists", scope: "read:lists", access: .bearer,
            Operation(
                id: "lists", summary: "The bearer's lists, oldest first (private).", tag: .lists,
                answer: .json("The lists.", "lists"))),
        command(
            "POST", "/v1/lists", scope: "write:lists",
            location: { result in
                if case .created(let id) = result { "/v1/lists/\(id)" } else { nil }
            },
            Operation(
                id: "createList", summary: "Make a list of people the bearer follows.", tag: .lists,
                description:
                    "`repliesPolicy` is `followed`, `list` (the default) or `none`; `exclusive` (default false): the "
                    + "members' posts leave the bearer's home timeline. At most \(Validation.maxListsPerUser) lists.",
                answer: .json("The new list's id.", "created", status: 201, headers: [.location]),
                errors: Operation.writeErrors, body: .command("createList"))),
        query(
            "GET", "/v1/lists/{list}", scope: "read:lists", access: .bearer,
            Operation(
                id: "list", summary: "One of the bearer's lists.", tag: .lists, answer: .json("The list.", "list"),
                errors: [.notFound], parameters: [.list])),
        command(
            "PATCH", "/v1/lists/{list}", scope: "write:lists",
            Operation(
                id: "updateList", summary: "Change a list's title, replies policy or exclusiveness.", tag: .lists,
                description: "Fields not given stay.", answer: changed("the list is already so"),
                errors: [.notFound] + Operation.writeErrors, parameters: [.list],
                body: .command("updateList", path: ["list"]))),
        command(
            "DELETE", "/v1/lists/{list}", scope: "write:lists",
            Operation(
                id: "deleteList", summary: "Delete one of the bearer's lists.", tag: .lists, answer: .empty(),
                errors: [.notFound] + Operation.writeErrors, parameters: [.list])),
        query(
            "GET", "/v1/lists/{list}/accounts", scope: "read:lists", access: .bearer,
            Operation(
                id: "listAccounts", summary: "The people in one of the bearer's lists, by id, the latest first.",
                tag: .lists, answer: userPage, errors: [.notFound], parameters: [.list], paged: true)),
        command(
            "POST", "/v1/lists/{list}/accounts", scope: "write:lists",
            Operation(
                id: "addToList", summary: "Put people the bearer follows in one of their lists.", tag: .lists,
                description:
                    "Each must be followed by the bearer (as Mastodon requires), or none is put (400 invalid_argument). "
                    + "An unfollow (or a block) takes the person out of the bearer's lists.",
                answer: changed("all were in it already"), errors: [.notFound] + Operation.writeErrors,
                parameters: [.list], body: .command("addToList", path: ["list"]))),
        command(
            "DELETE", "/v1/lists/{list}/accounts", scope: "write:lists",
            Operation(
                id: "removeFromList", summary: "Take people out of one of the bearer's lists.", tag: .lists,
                answer: changed("none was in it"), errors: [.notFound] + Operation.writeErrors, parameters: [.list],
                body: .command("removeFromList", path: ["list"]))),
        query(
            "GET", "/v1/lists/{list}/timeline", scope: "read:lists", access: .bearer, runs: "listTimeline",
            Operation(
                id: "listTimeline", summary: "The posts of a list's people the bearer may see, newest first.",
                tag: .lists,
                description:
                    "As exact as the home timeline at any depth: merged when read from the members' posts, each "
                    + "member followed now, none blocked either way or muted.",
                answer: postPage, errors: [.notFound], parameters: [.list], paged: true)),
        query(
            "GET", "/v1/users/{user}/lists", scope: "read:lists", access: .bearer, runs: "listsWith",
            Operation(
                id: "listsWith", summary: "The bearer's lists that hold the user.", tag: .lists,
                answer: .json("The lists.", "lists"), errors: [.notFound], parameters: [.user]))
    ]

    private static let collectionRoutes: [Route] = [
        command(
            "POST", "/v1/collections", scope: "write:collections",
            location: { result in
                if case .created(let id) = result { "/v1/collections/\(id)" } else { nil }
            },
            Operation(
                id: "createCollection", summary: "Make a collection of accounts to feature.", tag: .collections,
                description:
                    "`name` (at most \(Validation.maxCollectionName) characters), `description` (at most "
                    + "\(Validation.maxCollectionDescription)), `language`, `sensitive`, `discoverable` (default true: "
                    + "shown on the bearer's profile), `tag` (one hashtag), `accounts` to feature at once: each must "
                    + "be discoverable, and no block may stand either way (403 forbidden). At most "
                    + "\(Validation.maxCollectionItems) accounts, \(Validation.maxCollectionsPerUser) collections.",
                answer: .json("The new collection's id.", "created", status: 201, headers: [.location]),
                errors: [.notFound, .forbidden] + Operation.writeErrors, body: .command("createCollection"))),
        query(
            "GET", "/v1/collections/{collection}", scope: "read:collections",
            Operation(
                id: "collection", summary: "One collection, as the viewer sees it.", tag: .collections,
                description:
                    "Only the items whose accounts are in the viewer's sight (no block either way, no suspension); "
                    + "a collection whose owner is out of sight is 404.",
                answer: .json("The collection.", "collection"), errors: [.notFound], parameters: [.collection])),
        command(
            "PATCH", "/v1/collections/{collection}", scope: "write:collections",
            Operation(
                id: "updateCollection", summary: "Change one of the bearer's collections.", tag: .collections,
                description: "Fields not given stay; \"\" clears the description, language and tag.",
                answer: changed("the collection is already so"),
                errors: [.notFound, .forbidden] + Operation.writeErrors, parameters: [.collection],
                body: .command("updateCollection", path: ["collection"]))),
        command(
            "DELETE", "/v1/collections/{collection}", scope: "write:collections",
            Operation(
                id: "deleteCollection", summary: "Delete one of the bearer's collections.", tag: .collections,
                answer: .empty(), errors: [.notFound, .forbidden] + Operation.writeErrors,
                parameters: [.collection])),
        command(
            "POST", "/v1/collections/{collection}/items", scope: "write:collections",
            Operation(
                id: "addToCollection", summary: "Feature an account in one of the bearer's collections.",
                tag: .collections,
                description:
                    "The account must be discoverable, and no block may stand either way (403 forbidden); one "
                    + "already in it (revoked too) or a full collection is 400.",
                answer: .json("The new item's id.", "created", status: 201),
                errors: [.notFound, .forbidden]
                    + Operation.writeErrors, parameters: [.collection],
                body: .command("addToCollection", path: ["collection"]))),
        command(
            "DELETE", "/v1/collections/{collection}/items/{item}", scope: "write:collections",
            Operation(
                id: "removeFromCollection", summary: "Take an item out of one of the bearer's collections.",
                tag: .collections, answer: .empty(), errors: [.notFound, .forbidden] + Operation.writeErrors,
                parameters: [.collection, .item])),
        command(
            "POST", "/v1/collections/{collection}/items/{item}/revoke", scope: "write:collections",
            Operation(
                id: "revokeCollectionItem", summary: "Take the bearer out of another's collection.",
                tag: .collections, description: "Only the featured account may (403 forbidden otherwise).",
                answer: changed("the item was revoked already"),
                errors: [.notFound, .forbidden] + Operation.writeErrors, parameters: [.collection, .item])),
        query(
            "GET", "/v1/users/{user}/collections", scope: "read:collections", runs: "userCollections",
            Operation(
                id: "userCollections", summary: "A user's collections the viewer may see, the newest first.",
                tag: .collections,
                description:
                    "All of them for their owner, the discoverable ones for others, none across a block.",
                answer: .json("The collections.", "collections"), errors: [.notFound], parameters: [.user, .limit])),
        query(
            "GET", "/v1/me/in-collections", scope: "read:collections", access: .bearer, runs: "inCollections",
            Operation(
                id: "inCollections", summary: "The collections the bearer is featured in.", tag: .collections,
                answer: .json("The collections.", "collections"), parameters: [.limit]))
    ]

    private static let conversationRoutes: [Route] = [
        query(
            "GET", "/v1/conversations", scope: "read:statuses", access: .bearer, runs: "conversations",
            Operation(
                id: "conversations", summary: "The bearer's conversations of direct messages, the newest first.",
                tag: .conversations,
                description:
                    "A direct post (`visibility` `direct`) is seen only by its author and the users its caption "
                    + "@mentions; the direct posts among one set of participants are one conversation. Paged by the "
                    + "last messages' ids (private).",
                answer: .json("A page of conversations.", "conversationPage", headers: [.link]), paged: true)),
        query(
            "GET", "/v1/conversations/posts", scope: "read:statuses", access: .bearer, runs: "directPosts",
            Operation(
                id: "directPosts",
                summary: "The bearer's direct posts, theirs and those addressed to them, newest first.",
                tag: .conversations, answer: postPage, paged: true)),
        command(
            "POST", "/v1/conversations/{conversation}/read", scope: "write:conversations",
            Operation(
                id: "markConversationRead", summary: "Mark one of the bearer's conversations read.",
                tag: .conversations, answer: .empty(), errors: [.notFound] + Operation.writeErrors,
                parameters: [.conversation])),
        command(
            "DELETE", "/v1/conversations/{conversation}", scope: "write:conversations",
            Operation(
                id: "removeConversation", summary: "Take a conversation out of the bearer's list (only theirs).",
                tag: .conversations,
                description: "The other participants keep it; a new message brings it back.", answer: .empty(),
                errors: [.notFound] + Operation.writeErrors, parameters: [.conversation]))
    ]

    /// The bearer's year (Mastodon's annual reports: `/api/v1/annual_reports`).
    private static let annualReportRoutes: [Route] = [
        query(
            "GET", "/v1/me/annual-reports/{year}", scope: "read:accounts", access: .bearer, runs: "annualReport",
            Operation(
                id: "annualReport", summary: "The bearer's report of a year, with its state.", tag: .account,
                description:
                    "`state` is `available` once asked for (then `report` says what the year was, computed when "
                    + "read), `eligible` for a year from the account's first to now, `ineligible` otherwise.",
                answer: .json("The year's state and report.", "annualReport"),
                parameters: [.year])),
        command(
            "POST", "/v1/me/annual-reports/{year}/generate", scope: "write:accounts",
            Operation(
                id: "generateAnnualReport", summary: "Ask for the bearer's report of a year.", tag: .account,
                description: "A year from the account's first to now; asking again changes nothing.",
                answer: changed("it was already asked for"), errors: Operation.writeErrors, parameters: [.year])),
        command(
            "POST", "/v1/me/annual-reports/{year}/read", scope: "write:accounts",
            Operation(
                id: "readAnnualReport", summary: "Mark the bearer's report of a year read.", tag: .account,
                answer: changed("it was already read"), errors: [.notFound] + Operation.writeErrors,
                parameters: [.year]))
    ]

    // MARK: - Routes that run a command or a query

    /// A route that runs the command `operation.id` as the bearer (holding `scope`) and answers its success
    /// status with the command's result (nothing for 204); `admit` may refuse the request once
    /// it is read, before it runs; `location` gives the `Location` header of what was made.
    private static func command(
        _ method: String, _ template: String, scope: RouteScope,
        fixed: @escaping @Sendable (APIRequest) -> [String: String] = { _ in [:] },
        admit: (@Sendable (TimelineAPI, APIRequest) throws -> Void)? = nil,
        location: (@Sendable (CommandResult) -> String?)? = nil, _ operation: Operation
    ) -> Route {
        let name = operation.id, status = operation.answer.status
        return Route(
            method, template, .bearer, scope: scope,
            .later { api, request in
                try await api.run(
                    command: name, request, status: status, fixed: fixed(request), admit: admit, location: location)
            }, operation)
    }

    /// A route that answers the query `runs` (by default `operation.id`) for the bearer, if
    /// any; `admit` may refuse the request once it is read, before it is answered.
    private static func query(
        _ method: String, _ template: String, scope: RouteScope, access: Access = .viewerOptional,
        runs: String? = nil,
        fixed: @escaping @Sendable (APIRequest) -> [String: String] = { _ in [:] },
        admit: (@Sendable (TimelineAPI, APIRequest, JSONInput) throws -> Void)? = nil,
        _ operation: Operation
    ) -> Route {
        let name = runs ?? operation.id
        return Route(
            method, template, access, scope: scope,
            .now { api, request in
                try api.answer(query: name, request, fixed: fixed(request), admit: admit)
            }, operation)
    }

    /// The bearer's user id as the fixed field `name`.
    private static func viewer(_ name: String) -> @Sendable (APIRequest) -> [String: String] {
        { request in request.viewer.map { [name: $0.rawValue] } ?? [:] }
    }
}
