import Foundation
import Testing
import Timeline
import TimelineDomain

/// One command of each kind, with every optional field set. The switch is exhaustive: a new
/// command does not build until it has a sample here, and then the tests below check its JSON
/// round trip and its schema.
func sampleCommand(_ kind: CommandName) -> Command {
    switch kind {
    case .createUser: .createUser(username: "a", email: "a@b.co", password: "password-1", bio: "b", url: "https://x.org")
    case .signIn: .signIn(email: "a@b.co", password: "p")
    case .signOut: .signOut(session: "t")
    case .updateProfile: .updateProfile(username: "n", bio: "b", url: "https://x.org", discoverable: false)
    case .follow: .follow(user: "u1")
    case .unfollow: .unfollow(user: "u1")
    case .addPost: .addPost(image: gifBase64(1), caption: "c", location: Place(latitude: -33.5, longitude: 151.25, name: "Bay"))
    case .deletePost: .deletePost(post: "p1")
    case .addComment: .addComment(post: "p1", text: "t")
    case .deleteComment: .deleteComment(comment: "c1")
    case .like: .like(post: "p1")
    case .unlike: .unlike(post: "p1")
    case .block: .block(user: "u1")
    case .unblock: .unblock(user: "u1")
    case .bookmark: .bookmark(post: "p1")
    case .unbookmark: .unbookmark(post: "p1")
    case .reportPost: .reportPost(post: "p1", reason: "r")
    case .removePost: .removePost(post: "p1", reason: "r")
    case .dismissReports: .dismissReports(post: "p1")
    case .eraseUser: .eraseUser(user: "u1")
    case .requestPasswordReset: .requestPasswordReset(user: "u1")
    case .resetPassword: .resetPassword(token: "t", password: "password-1", email: "a@b.co")
    case .changePassword: .changePassword(currentPassword: "password-1", newPassword: "password-2")
    case .changeEmail: .changeEmail(password: "password-1", email: "a@b.co")
    }
}

@Suite struct CatalogueTests {
    /// The decoder (`Catalogue.command`) and the encoder (`Command.jsonObject`) are one mapping:
    /// every command survives the round trip, and the decoder reads every field encoded.
    @Test(arguments: CommandName.allCases) func commandJSONRoundTrips(_ kind: CommandName) throws {
        let command = sampleCommand(kind)
        #expect(command.kind == kind)
        #expect(command.name == kind.rawValue)
        let object = command.jsonObject()
        #expect(object["command"] as? String == kind.rawValue)
        let input = JSONInput(object: object.filter { $0.key != "command" })
        let decoded = try Catalogue.command(named: kind.rawValue, input)
        try input.refuseUnreadFields()
        #expect(decoded == command)
    }

    /// Every query name decodes to that query (its kind names it back).
    @Test(arguments: QueryName.allCases) func queryNamesDecode(_ kind: QueryName) throws {
        let fields: [String: Any] = ["user": "u1", "username": "zoe", "prefix": "z", "target": "u2", "post": "p1", "tag": "sea",
                                     "image": "i1", "limit": 5, "latitude": 1.5, "longitude": 2.5, "emails": ["a@b.co"]]
        let query = try Catalogue.query(named: kind.rawValue, JSONInput(object: fields))
        #expect(query.kind == kind)
        #expect(query.name == kind.rawValue)
    }

    @Test func unknownCommandNamesAreRefused() {
        #expect(throws: TimelineError.self) { try Catalogue.command(named: "teleport", JSONInput(object: [:])) }
        #expect(throws: TimelineError.self) { try Catalogue.query(named: "teleports", JSONInput(object: [:])) }
    }

    /// Every command and event type has its JSON Schema.
    @Test func everyCommandAndEventTypeHasASchema() {
        let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../schemas").standardized
        for kind in CommandName.allCases {
            let path = schemas.appending(path: "commands/\(kind.rawValue).schema.json").path
            #expect(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
        for type in EventType.allCases {
            let path = schemas.appending(path: "events/\(type.rawValue).v\(type.currentVersion).schema.json").path
            #expect(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
    }
}
