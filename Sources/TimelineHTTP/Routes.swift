import MicroHTTPD
import Timeline

extension TimelineAPI {
    /// Every route of the API (SPEC.md's table, plus `POST /v1/me/password`,
    /// `POST /v1/me/email` and `POST /v1/stream/tickets`), then the web app's static files.
    func routes() -> [Route] {
        let me = Self.viewerField("user")
        let passwordCheck: @Sendable (APIRequest, Command) throws(TimelineError) -> Void = { [unowned self] request, command throws(TimelineError) in
            try admitPasswordCheck(request, command)
        }
        let postLocation: @Sendable (CommandResult) -> String? = { result in
            if case .post(let post) = result { return "/v1/posts/\(post.id.rawValue)" }
            return nil
        }
        return [
            Route("POST", "/v1/users", .anyone, .later { [unowned self] in try await signUp($0) }),
            Route("POST", "/v1/sessions", .anyone, .later { [unowned self] in try await signIn($0) }),
            Route("DELETE", "/v1/sessions/current", .bearer, command("signOut", status: 204, fixed: { ["session": $0.bearer ?? ""] })),
            Route("GET", "/v1/me", .bearer, query("user", fixed: me)),
            Route("PATCH", "/v1/me", .bearer, command("updateProfile")),
            Route("DELETE", "/v1/me", .bearer, command("eraseUser", status: 204, fixed: me, admit: passwordCheck)),
            Route("PUT", "/v1/me/avatar", .bearer, .later { [unowned self] in try await setAvatar($0) }),
            Route("DELETE", "/v1/me/avatar", .bearer, .later { [unowned self] in try await removeAvatar($0) }),
            Route("POST", "/v1/me/password", .bearer, command("changePassword", status: 204, admit: passwordCheck)),
            Route("POST", "/v1/me/email", .bearer, command("changeEmail", status: 204, admit: passwordCheck)),
            Route("PUT", "/v1/me/following/{user}", .bearer, command("follow")),
            Route("DELETE", "/v1/me/following/{user}", .bearer, command("unfollow")),
            Route("GET", "/v1/users", .anyone, query("searchUsers")),
            Route("GET", "/v1/users/{user}", .anyone, query("user")),
            Route("GET", "/v1/users/{user}/posts", .anyone, query("posts")),
            Route("GET", "/v1/users/{user}/followers", .anyone, query("followers")),
            Route("GET", "/v1/users/{user}/following", .anyone, query("following")),
            Route("POST", "/v1/posts", .bearer, command("addPost", status: 201, location: postLocation)),
            Route("GET", "/v1/posts/nearby", .anyone, query("nearby")),  // before /v1/posts/{post}, which would take "nearby" for an id
            Route("GET", "/v1/posts/{post}", .anyone, query("post")),
            Route("DELETE", "/v1/posts/{post}", .bearer, command("deletePost", status: 204)),
            Route("GET", "/v1/posts/{post}/comments", .anyone, query("comments")),
            Route("POST", "/v1/posts/{post}/comments", .bearer, command("addComment", status: 201)),
            Route("DELETE", "/v1/comments/{comment}", .bearer, command("deleteComment", status: 204)),
            Route("PUT", "/v1/posts/{post}/like", .bearer, command("like")),
            Route("DELETE", "/v1/posts/{post}/like", .bearer, command("unlike")),
            Route("GET", "/v1/posts/{post}/likes", .anyone, query("likes")),
            Route("PUT", "/v1/posts/{post}/bookmark", .bearer, command("bookmark")),
            Route("DELETE", "/v1/posts/{post}/bookmark", .bearer, command("unbookmark")),
            Route("GET", "/v1/me/bookmarks", .bearer, query("bookmarks")),
            Route("PUT", "/v1/me/blocks/{user}", .bearer, command("block")),
            Route("DELETE", "/v1/me/blocks/{user}", .bearer, command("unblock")),
            Route("GET", "/v1/me/blocks", .bearer, query("blocked")),
            Route("GET", "/v1/me/suggestions", .bearer, query("suggestions")),
            // A query over POST (the emails go in the body, never in a URL): it appends nothing.
            Route("POST", "/v1/me/contacts", .bearer, query("findContacts", admit: { [unowned self] request, query throws(TimelineError) in
                try admitContactLookups(request, query)
            })),
            Route("POST", "/v1/posts/{post}/reports", .bearer, command("reportPost", status: 204)),
            Route("GET", "/v1/timeline", .bearer, query("timeline", fixed: me)),
            Route("GET", "/v1/hashtags/{tag}/posts", .anyone, query("hashtag")),
            Route("GET", "/v1/activity", .bearer, query("activity", fixed: me)),
            Route("GET", "/v1/images/{image}", .anyone, .now { [unowned self] in try image($0) }),
            Route("GET", "/v1/stream", .anyone, .now { [unowned self] in try stream($0) }),
            Route("POST", "/v1/stream/tickets", .bearer, .now { [unowned self] in try streamTicket($0) }),
            Route("GET", "/v1/openapi.json", .anyone, .now { [unowned self] in try openAPI($0) }),
        ] + health() + [
            Route("GET", "/", .anyone, .now { try WebApp.file("index.html", in: nil, request: $0.http) }),
            Route("GET", "/app/{asset}", .anyone, .now { try WebApp.file($0.parameters["asset"] ?? "", in: nil, request: $0.http) }),
            Route("GET", "/app/js/{module}", .anyone, .now { try WebApp.file($0.parameters["module"] ?? "", in: "js", request: $0.http) }),
        ]
    }

    /// The routes of the operator's listener: the metrics, and the health checks again.
    func operationsRoutes() -> [Route] {
        health() + [Route("GET", "/metrics", .anyone, .now { [unowned self] in try metricsText($0) })]
    }

    /// `GET /healthz` and `GET /readyz`, on both listeners.
    private func health() -> [Route] {
        [
            Route("GET", "/healthz", .anyone, .now { [unowned self] in
                try refuseAnyField($0)
                return Responses.json(200, ["status": "ok"])
            }),
            Route("GET", "/readyz", .anyone, .now { [unowned self] in try ready($0) }),
        ]
    }
}
