import Foundation
import TimelineDomain

/// The JSON-lines contract of `timeline exec`: each request line (a command or a query)
/// gets exactly one response line. Never throws: every failure becomes an error line.
public struct ExecSession: Sendable {
    public let service: TimelineService

    public init(service: TimelineService) { self.service = service }

    /// The longest request line; `LineReader` stops reading a line at this size.
    public static let maxLineBytes = JSONInput.maxLineBytes

    /// Answers one request line.
    public func handle(line: String) async -> String {
        await handle(bytes: Array(line.utf8))
    }

    /// Answers one line as `LineReader` read it: an over-long line (whose rest was never kept)
    /// gets `payload_too_large`.
    public func handle(_ line: LineReader.Line) async -> String {
        switch line {
        case .line(let bytes): return await handle(bytes: bytes)
        case .tooLong:
            let error = TimelineError(.payloadTooLarge, "a request line may be at most \(Self.maxLineBytes) bytes")
            return JSONOutput.line(["ok": false, "error": JSONOutput.error(error)])
        }
    }

    /// Answers one request line given as its bytes (which must be UTF-8).
    public func handle(bytes: [UInt8]) async -> String {
        var response: [String: Any] = [:]
        do {
            let input = try JSONInput(bytes: bytes)
            if let id = input.id { response["id"] = id }
            let result: Any
            if input.has("command") {
                result = JSONOutput.result(try await command(input))
            } else if input.has("query") {
                result = try query(input)()
            } else {
                throw TimelineError.invalid("command", "the line names no command or query")
            }
            response["ok"] = true
            response["result"] = result
        } catch {
            response["ok"] = false
            response["error"] = JSONOutput.error(TimelineService.translate(error))
        }
        return JSONOutput.line(response)
    }

    private func command(_ input: JSONInput) async throws(TimelineError) -> CommandResult {
        let name = try input.string("command")
        let command: Command
        switch name {
        case "createUser":
            command = .createUser(username: try input.string("username"), email: try input.string("email"),
                                  password: try input.string("password"), bio: try input.optionalString("bio"),
                                  url: try input.optionalString("url"))
        case "signIn": command = .signIn(email: try input.string("email"), password: try input.string("password"))
        case "signOut": command = .signOut(session: try input.string("session"))
        case "updateProfile":
            command = .updateProfile(username: try input.optionalString("username"), bio: try input.optionalString("bio"),
                                     url: try input.optionalString("url"))
        case "follow": command = .follow(user: try input.string("user"))
        case "unfollow": command = .unfollow(user: try input.string("user"))
        case "addPost": command = .addPost(image: try input.string("image"), caption: try input.optionalString("caption"))
        case "deletePost": command = .deletePost(post: try input.string("post"))
        case "addComment": command = .addComment(post: try input.string("post"), text: try input.string("text"))
        case "deleteComment": command = .deleteComment(comment: try input.string("comment"))
        case "like": command = .like(post: try input.string("post"))
        case "unlike": command = .unlike(post: try input.string("post"))
        case "reportPost": command = .reportPost(post: try input.string("post"), reason: try input.string("reason"))
        case "eraseUser": command = .eraseUser(user: try input.string("user"))
        case "requestPasswordReset": command = .requestPasswordReset(user: try input.string("user"))
        case "resetPassword":
            command = .resetPassword(token: try input.string("token"), password: try input.string("password"), email: try input.optionalString("email"))
        case "changePassword":
            command = .changePassword(currentPassword: try input.string("currentPassword"), newPassword: try input.string("newPassword"))
        case "changeEmail": command = .changeEmail(password: try input.string("password"), email: try input.string("email"))
        default: throw TimelineError.invalid("command", "unknown command \(name.prefix(64))")
        }
        let user = try input.optionalString("as"), token = try input.optionalString("session")
        // `as` is the trusted local operator's switch: beside a session it is refused, never
        // preferred.
        if user != nil && token != nil {
            throw TimelineError.invalid("as", "give either as (a trusted local operator) or a session, not both")
        }
        let caller: Caller
        if let user {
            caller = .user(user)
        } else if command.needsActor, let token {
            caller = .session(token)
        } else {
            caller = .anonymous
        }
        try input.refuseUnreadFields()
        return try await service.execute(command, as: caller)
    }

    /// Decodes a query line (refusing fields the query does not take) into the work that
    /// answers it.
    private func query(_ input: JSONInput) throws(TimelineError) -> () throws(TimelineError) -> Any {
        let service = self.service
        let name = try input.string("query")
        let answer: () throws(TimelineError) -> Any
        switch name {
        case "user":
            let user: UserID = try input.identifier("user")
            answer = { () throws(TimelineError) in JSONOutput.profile(try service.user(user)) }
        case "userByName":
            let username = try input.string("username")
            answer = { () throws(TimelineError) in JSONOutput.profile(try service.user(named: username)) }
        case "users":
            let page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.users(page), JSONOutput.profile) }
        case "searchUsers":
            let prefix = try input.string("prefix"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.searchUsers(prefix: prefix, page), JSONOutput.profile) }
        case "followers":
            let user: UserID = try input.identifier("user"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.followers(of: user, page), JSONOutput.profile) }
        case "following":
            let user: UserID = try input.identifier("user"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.following(of: user, page), JSONOutput.profile) }
        case "follows":
            let user: UserID = try input.identifier("user"), target: UserID = try input.identifier("target")
            answer = { () throws(TimelineError) in ["follows": try service.follows(user, target)] }
        case "posts":
            let user: UserID = try input.identifier("user"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.posts(by: user, page), JSONOutput.post) }
        case "post":
            let post: PostID = try input.identifier("post")
            let viewer: UserID? = try input.optionalString("viewer") == nil ? nil : try input.identifier("viewer")
            let page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.postDetail(try service.post(post, viewer: viewer, comments: page)) }
        case "timeline":
            let user: UserID = try input.identifier("user"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.timeline(of: user, page), JSONOutput.post) }
        case "hashtag":
            let tag = try input.string("tag"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.hashtag(tag, page), JSONOutput.post) }
        case "activity":
            let user: UserID = try input.identifier("user"), page = try input.page()
            answer = { () throws(TimelineError) in JSONOutput.page(try service.activity(of: user, page), JSONOutput.activity) }
        case "image":
            let image: ImageID = try input.identifier("image")
            answer = { () throws(TimelineError) in JSONOutput.image(try service.image(image)) }
        default: throw TimelineError.invalid("query", "unknown query \(name.prefix(64))")
        }
        try input.refuseUnreadFields()
        return answer
    }
}
