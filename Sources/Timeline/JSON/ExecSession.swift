import Foundation
import TimelineDomain

/// The JSON-lines contract of `timeline exec`: each request line (a command or a query)
/// gets exactly one response line. Never throws: every failure becomes an error line.
public struct ExecSession: Sendable {
    public let service: TimelineService

    public init(service: TimelineService) { self.service = service }

    /// Answers one request line.
    public func handle(line: String) async -> String {
        var response: [String: Any] = [:]
        do {
            let input = try JSONInput(line: line)
            if let id = input.id { response["id"] = id }
            let result: Any
            if input.object["command"] != nil {
                result = JSONOutput.result(try await command(input))
            } else if input.object["query"] != nil {
                result = try query(input)
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
        let caller: Caller
        if let user = try input.optionalString("as") {
            caller = .user(user)
        } else if command.needsActor, let token = try input.optionalString("session") {
            caller = .session(token)
        } else {
            caller = .anonymous
        }
        return try await service.execute(command, as: caller)
    }

    private func query(_ input: JSONInput) throws(TimelineError) -> Any {
        let name = try input.string("query")
        switch name {
        case "user": return JSONOutput.profile(try service.user(try input.identifier("user")))
        case "userByName": return JSONOutput.profile(try service.user(named: try input.string("username")))
        case "users": return JSONOutput.page(try service.users(try input.page()), JSONOutput.profile)
        case "searchUsers":
            return JSONOutput.page(try service.searchUsers(prefix: try input.string("prefix"), try input.page()), JSONOutput.profile)
        case "followers":
            return JSONOutput.page(try service.followers(of: try input.identifier("user"), try input.page()), JSONOutput.profile)
        case "following":
            return JSONOutput.page(try service.following(of: try input.identifier("user"), try input.page()), JSONOutput.profile)
        case "follows":
            return ["follows": try service.follows(try input.identifier("user"), try input.identifier("target"))]
        case "posts": return JSONOutput.page(try service.posts(by: try input.identifier("user"), try input.page()), JSONOutput.post)
        case "post":
            let viewer: UserID? = try input.optionalString("viewer") == nil ? nil : try input.identifier("viewer")
            return JSONOutput.postDetail(try service.post(try input.identifier("post"), viewer: viewer, comments: try input.page()))
        case "timeline":
            return JSONOutput.page(try service.timeline(of: try input.identifier("user"), try input.page()), JSONOutput.post)
        case "hashtag": return JSONOutput.page(try service.hashtag(try input.string("tag"), try input.page()), JSONOutput.post)
        case "activity":
            return JSONOutput.page(try service.activity(of: try input.identifier("user"), try input.page()), JSONOutput.activity)
        case "image": return JSONOutput.image(try service.image(try input.identifier("image")))
        default: throw TimelineError.invalid("query", "unknown query \(name.prefix(64))")
        }
    }
}
