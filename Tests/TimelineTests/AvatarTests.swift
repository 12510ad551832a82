import Foundation
import Testing
@testable import Timeline
import TimelineDomain
import Vips

/// Profile photos: set, replaced, removed and erased (library, exec line and HTTP).
@Suite struct AvatarTests {
    /// A `size`×`size` image made with `vips` (distinct per `shade`).
    static func image(_ size: Int, shade: Int) throws -> [UInt8] {
        let dir = PhotoTests.directory()
        try PhotoTests.tool("vips", "black", "b.v", "\(size)", "\(size)", "--bands", "3", in: dir)
        try PhotoTests.tool("vips", "linear", "b.v", "s.v", "1", "\(shade)", in: dir)
        try PhotoTests.tool("vips", "cast", "s.v", "a\(shade).png", "uchar", in: dir)
        return try PhotoTests.bytes(dir, "a\(shade).png")
    }

    @Test func setReplacedRemovedAndErased() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        #expect(try service.user(alice.id).avatar == nil)

        // Set: two squares, stored and served.
        let first = try Self.image(500, shade: 40)
        let set = try #require(
            try await service.run(
                .updateProfile(
                    username: nil, bio: nil, url: nil,
                    avatar: .set(Data(first).base64EncodedString())), as: alice.id
            ).profile)
        let avatar = try #require(set.avatar)
        #expect(try service.user(alice.id).avatar == avatar)
        for (id, side) in [(avatar.large, 320), (avatar.small, 96)] {
            let stored = try service.image(id)
            let header = try Vips.header(stored.bytes)
            #expect(header.width == side && header.height == side)
        }
        // The event records the squares' ids (a rebuild never re-encodes).
        let last = try #require(try service.events(from: try service.lastSequence()).last)
        #expect(last.schemaVersion == EventType.profileUpdated.currentVersion)  // 3 added the photo
        #expect(last.event == .profileUpdated(ProfileUpdated(userId: alice.id, avatar: .set(avatar))))

        // The same photo again changes nothing; a new one replaces it.
        let before = try service.lastSequence()
        try await service.run(
            .updateProfile(username: nil, bio: nil, url: nil, avatar: .set(Data(first).base64EncodedString())),
            as: alice.id)
        #expect(try service.lastSequence() == before)
        try await service.run(
            .updateProfile(
                username: nil, bio: "hi", url: nil,
                avatar: .set(Data(try Self.image(200, shade: 200)).base64EncodedString())), as: alice.id)
        let replaced = try #require(try service.user(alice.id).avatar)
        #expect(replaced != avatar)
        #expect(try service.user(alice.id).bio == "hi")

        // Not an image: refused, nothing changes.
        await expectError(.unsupportedMediaType) {
            try await service.run(
                .updateProfile(
                    username: nil, bio: nil, url: nil,
                    avatar: .set(Data("not a picture".utf8).base64EncodedString())), as: alice.id)
        }
        #expect(try service.user(alice.id).avatar == replaced)

        // Removed; removing again appends nothing.
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, avatar: .remove), as: alice.id)
        #expect(try service.user(alice.id).avatar == nil)
        let removed = try service.lastSequence()
        try await service.run(.updateProfile(username: nil, bio: nil, url: nil, avatar: .remove), as: alice.id)
        #expect(try service.lastSequence() == removed)

        // Set again, then rebuilt: the same read models.
        try await service.run(
            .updateProfile(username: nil, bio: nil, url: nil, avatar: .set(Data(first).base64EncodedString())),
            as: alice.id)
        #expect(try service.user(alice.id).avatar == avatar)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)

        // Erased: every square is gone.
        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        for id in [avatar.large, avatar.small, replaced.large, replaced.small] {
            await expectError(.notFound) { _ = try service.image(id) }
        }
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    @Test func execLineSetsAndRemoves() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let image = Data(try Self.image(120, shade: 90)).base64EncodedString()
        let session = ExecSession(service: service)
        func answer(_ line: String) async -> [String: Any] {
            let text = await session.handle(line: line)
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        }
        let set = await answer(#"{"command":"updateProfile","as":"\#(alice.id)","avatar":"\#(image)"}"#)
        let avatar = try #require((set["result"] as? [String: Any])?["avatar"] as? [String: Any], "\(set)")
        #expect(avatar["large"] is String && avatar["small"] is String)
        let removed = await answer(#"{"command":"updateProfile","as":"\#(alice.id)","avatar":null}"#)
        #expect((removed["result"] as? [String: Any])?["avatar"] is NSNull, "\(removed)")
        let kept = await answer(#"{"command":"updateProfile","as":"\#(alice.id)","bio":"b"}"#)
        #expect((kept["result"] as? [String: Any])?["avatar"] is NSNull, "\(kept)")
    }
}
