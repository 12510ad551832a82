import Foundation
import Testing
@testable import Timeline

/// What a post's stored record and a timeline entry carry so that a page reads nothing else
/// (the author's username, the place, the viewer's like and bookmark), and the JSON written
/// straight from those bytes.
@Suite struct PostRecordTests {
    @Test func timelineEntriesFollowLikesAndBookmarks() async throws {
        let service = try openService()
        let (alice, bob) = (try await service.createUser("alice"), try await service.createUser("bob"))
        let early = try await service.addPost(by: bob.id, caption: "before the follow")
        // A like made before the follow reaches the entry the follow merges.
        try await service.run(.like(post: early.id.rawValue), as: alice.id)
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        let later = try await service.addPost(by: bob.id, caption: "after")
        func shown(_ post: PostID) throws -> Post {
            try #require(try service.timeline(of: alice.id).items.first { $0.id == post })
        }
        #expect(try shown(early.id).likedByViewer == true && shown(early.id).bookmarkedByViewer == false)
        #expect(try shown(later.id).likedByViewer == false)
        try await service.run(.like(post: later.id.rawValue), as: alice.id)
        try await service.run(.bookmark(post: later.id.rawValue), as: alice.id)
        try await service.run(.unlike(post: early.id.rawValue), as: alice.id)
        #expect(try shown(later.id).likedByViewer == true && shown(later.id).bookmarkedByViewer == true)
        #expect(try shown(early.id).likedByViewer == false)
        // The timeline's marks agree with the lookups every other list makes.
        for post in try service.timeline(of: alice.id).items {
            #expect(try service.posts(by: bob.id, viewer: alice.id).items.first { $0.id == post.id } == post)
        }
        try await service.run(.unbookmark(post: later.id.rawValue), as: alice.id)
        #expect(try shown(later.id).bookmarkedByViewer == false)
        // Bob's own timeline knows nothing of Alice's marks.
        #expect(
            try service.timeline(of: bob.id).items.allSatisfy {
                $0.likedByViewer == false && $0.bookmarkedByViewer == false
            })
    }

    @Test func aRenameReachesEveryPostAndARebuildAgrees() async throws {
        let service = try openService()
        let (alice, bob) = (try await service.createUser("alice"), try await service.createUser("bob"))
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        for index in 0..<5 { _ = try await service.addPost(by: bob.id, caption: "post \(index)") }
        try await service.run(.updateProfile(username: "robert", bio: nil, url: nil), as: bob.id)
        let page = try service.timeline(of: alice.id)
        #expect(page.items.count == 5 && page.items.allSatisfy { $0.authorUsername == "robert" })
        let report = try service.rebuild(RebuildOptions(verifyOnly: true))
        #expect(report.differences.isEmpty)
    }

    @Test func placesAndReportCountsLiveInTheRecord() async throws {
        let service = try openService { $0.hideAfterReports = 2 }
        let alice = try await service.createUser("alice")
        let place = Place(latitude: 48.8566, longitude: 2.3522, name: "Paris")
        guard
            case .post(let post) = try await service.run(
                .addPost(image: gifBase64(1), caption: "here", location: place), as: alice.id)
        else {
            Issue.record("addPost returned no post")
            return
        }
        #expect(post.location == place)
        #expect(try service.posts(by: alice.id).items.first?.location == place)
        // Reports counted in the record hide the post once enough stand; a dismissal shows it.
        var reporters: [UserID] = []
        for name in ["r1", "r2"] { reporters.append(try await service.createUser(name).id) }
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: reporters[0])
        #expect(try service.posts(by: alice.id, viewer: reporters[1]).items.count == 1)
        try await service.run(.reportPost(post: post.id.rawValue, reason: "spam"), as: reporters[1])
        #expect(try service.posts(by: alice.id, viewer: reporters[1]).items.isEmpty)
        #expect(try service.posts(by: alice.id, viewer: alice.id).items.count == 1, "its author still sees it")
        let report = try service.rebuild(RebuildOptions(verifyOnly: true))
        #expect(report.differences.isEmpty)
    }

    @Test func postJSONFromBytesIsTheDocumentOfTheGenericWriter() async throws {
        let service = try openService()
        let (alice, bob) = (try await service.createUser("alice"), try await service.createUser("bob"))
        try await service.run(.follow(user: bob.id.rawValue), as: alice.id)
        _ = try await service.addPost(by: bob.id, caption: "quotes \" and \\ and </script>, é and 🎉 #Sea #café")
        _ = try await service.addPost(by: bob.id, caption: nil)
        _ = try await service.run(
            .addPost(image: gifBase64(2), caption: "placed", location: Place(latitude: -33.5, longitude: 151.25)),
            as: bob.id)
        let liked = try await service.addPost(by: bob.id, caption: "liked")
        try await service.run(.like(post: liked.id.rawValue), as: alice.id)
        for request in [PageRequest(limit: 2), PageRequest(limit: 20)] {
            for page in [try service.timeline(of: alice.id, request), try service.posts(by: bob.id, request)] {
                let direct = JSONOutput.postPageBytes(page)
                let generic = JSONOutput.bytes(JSONOutput.answer(.posts(page)))
                // The very same bytes as the typed encoder's, places (numbers with fractions) too.
                #expect(direct == generic)
            }
        }
    }
}
