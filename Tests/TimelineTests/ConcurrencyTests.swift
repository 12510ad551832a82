import Foundation
import Testing
@testable import Timeline

/// Many tasks issuing commands at once: every result is durable, and the read models agree
/// with what the log implies.
@Suite struct ConcurrencyTests {
    @Test func concurrentCommandsAgreeWithTheLog() async throws {
        let service = try openService(durable: true)
        var users: [UserID] = []
        for index in 0..<10 { users.append(try await service.createUser("c\(index)").id) }
        var posts: [PostID] = []
        for (index, user) in users.enumerated() { posts.append(try await service.addPost(by: user, image: index).id) }
        let userList = users, postList = posts
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var rng = SeededRandom(seed: UInt64(task))
                    for _ in 0..<25 {
                        let me = userList.randomElement(using: &rng)!
                        let other = userList.randomElement(using: &rng)!
                        let post = postList.randomElement(using: &rng)!.rawValue
                        let command: Command =
                            switch Int.random(in: 0..<6, using: &rng) {
                            case 0: .follow(user: other.rawValue)
                            case 1: .unfollow(user: other.rawValue)
                            case 2: .like(post: post)
                            case 3: .unlike(post: post)
                            case 4: .addComment(post: post, text: "hi from \(task)")
                            default:
                                .addPost(image: gifBase64(Int.random(in: 0..<1000, using: &rng)), caption: "#t\(task)")
                            }
                        do {
                            _ = try await service.execute(command, as: .user(me.rawValue))
                        } catch let error as TimelineError where error.code == .invalidArgument && other == me {
                            // following oneself is refused; anything else is a failure
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Fold the log into the counts it implies.
        var follows = Set<[UserID]>(), likes = Set<[String]>(), comments: [PostID: Int] = [:],
            postCount: [UserID: Int] = [:]
        let events = try service.events(from: 1, limit: 100_000)
        #expect(events.map(\.sequence) == Array(1...UInt64(events.count)), "the log has a gap")
        for envelope in events {
            switch envelope.event {
            case .followed(let f):
                #expect(follows.insert([f.followerId, f.followeeId]).inserted, "a duplicate Followed")
            case .unfollowed(let f):
                #expect(follows.remove([f.followerId, f.followeeId]) != nil, "Unfollowed without Followed")
            case .likeAdded(let l):
                #expect(likes.insert([l.postId.rawValue, l.userId.rawValue]).inserted, "a duplicate LikeAdded")
            case .likeRemoved(let l):
                #expect(likes.remove([l.postId.rawValue, l.userId.rawValue]) != nil, "LikeRemoved without LikeAdded")
            case .commentAdded(let c): comments[c.postId, default: 0] += 1
            case .postAdded(let p): postCount[p.authorId, default: 0] += 1
            default: break
            }
        }
        for user in users {
            let profile = try service.user(user)
            #expect(profile.followerCount == follows.filter { $0[1] == user }.count)
            #expect(profile.followingCount == follows.filter { $0[0] == user }.count)
            #expect(profile.postCount == postCount[user, default: 0])
            #expect(
                Set(try service.all { try service.followers(of: user, $0) }.map(\.id))
                    == Set(follows.filter { $0[1] == user }.map { $0[0] }))
        }
        for post in posts {
            let detail = try service.post(post).post
            #expect(detail.likeCount == likes.filter { $0[0] == post.rawValue }.count)
            #expect(detail.commentCount == comments[post, default: 0])
        }
        #expect(try service.verifyLog().isValid)
    }

    @Test func concurrentSignUpsForOneUsernameHaveOneWinner() async throws {
        let service = try openService()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<12 {
                group.addTask {
                    do {
                        _ = try await service.execute(
                            .createUser(
                                username: "same", email: "e\(index)@example.com", password: "password-1", bio: nil,
                                url: nil))
                        return true
                    } catch { return false }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
        #expect(try service.users().items.count == 1)
    }
}
