import Foundation
import Timeline
import TimelineDomain

/// `timeline bench --only lists`: a list of 500 members, read the way Timeline reads it (its
/// members' post lists merged at read time) beside what a fan-out per list would read (a
/// materialised timeline of the same posts: the owner's home timeline, whose owner follows
/// exactly the list's 500 members, holds them all, so it is that table), and what each costs
/// a post.
extension Benchmark {
    /// How many members the measured list has.
    static let listMembers = 500
    /// How many posts each member has.
    static let postsPerListMember = 20

    func listFigures() async throws -> [Figure] {
        progress("a list of \(Self.listMembers) members, \(Self.postsPerListMember) posts each")
        var options = TimelineService.Options()
        options.durable = false
        options.passwordCost = .minimum
        options.passwordQueueLimit = 1 << 20
        let path = directory + "/lists"
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let service = try TimelineService(path: path + "/timeline.db", options: options)
        defer { service.close() }
        func user(_ name: String) async throws -> UserID {
            guard
                case .user(let profile) = try await service.execute(
                    .createUser(
                        username: name, email: "\(name)@bench.example", password: "bench-password", bio: nil, url: nil))
            else { throw TimelineError(.internal, "no user") }
            return profile.id
        }
        let owner = try await user("owner")
        var members: [UserID] = []
        for n in 0..<Self.listMembers { members.append(try await user("member\(n)")) }
        for member in members {
            _ = try await service.execute(.follow(user: member.rawValue), as: .user(owner.rawValue))
        }
        guard
            case .created(let id) = try await service.execute(
                .createList(title: "Everyone"), as: .user(owner.rawValue))
        else { throw TimelineError(.internal, "no list") }
        let list = ListID(id)
        _ = try await service.execute(
            .addToList(list: id, users: members.map(\.rawValue)), as: .user(owner.rawValue))
        let image = NetworkBuilder.gif(1).base64EncodedString()
        var rng = SplitMix(state: 41)
        var postWrites = Samples()
        for _ in 0..<(Self.listMembers * Self.postsPerListMember) {
            let author = members[Int.random(in: 0..<members.count, using: &rng)]
            let start = now()
            _ = try await service.execute(.addPost(image: image, caption: nil), as: .user(author.rawValue))
            postWrites.add(now() - start)
        }
        // The same posts, newest first, both ways (checked: the measurement compares equals).
        let merged = try service.listTimeline(list, PageRequest(limit: 20), viewer: owner).items.map(\.id)
        let materialised = try service.timeline(of: owner, PageRequest(limit: 20)).items.map(\.id)
        guard merged == materialised else { throw TimelineError(.internal, "the list and the home timeline differ") }
        // Deep pages: the sixth page (posts 101–120).
        func cursor(_ read: (PageRequest) throws -> Page<Post>) throws -> String? {
            var request = PageRequest(limit: 20)
            for _ in 0..<5 { request.before = try read(request).next }
            return request.before
        }
        let listDeep = try cursor { try service.listTimeline(list, $0, viewer: owner) }
        let homeDeep = try cursor { try service.timeline(of: owner, $0) }
        var first = Samples(), fanFirst = Samples(), deep = Samples(), fanDeep = Samples()
        for _ in 0..<max(scale.samples, 200) {
            first.add(try time { _ = try service.listTimeline(list, PageRequest(limit: 20), viewer: owner) })
            fanFirst.add(try time { _ = try service.timeline(of: owner, PageRequest(limit: 20)) })
            deep.add(
                try time { _ = try service.listTimeline(list, PageRequest(limit: 20, before: listDeep), viewer: owner) }
            )
            fanDeep.add(try time { _ = try service.timeline(of: owner, PageRequest(limit: 20, before: homeDeep)) })
        }
        let fanName = "a fan-out per list: the same page from a materialised timeline"
        func figure(_ name: String, _ samples: Samples, _ baseline: Samples, _ p: Double) -> Figure {
            Figure(
                name: name, value: samples.percentile(p) * 1e6, unit: "µs", baseline: baseline.percentile(p) * 1e6,
                baselineName: fanName)
        }
        return [
            figure("list_read.first_page.p50", first, fanFirst, 0.5),
            figure("list_read.first_page.p99", first, fanFirst, 0.99),
            figure("list_read.deep_page.p50", deep, fanDeep, 0.5),
            figure("list_read.deep_page.p99", deep, fanDeep, 0.99),
            Figure(
                name: "list.post_write.p50", value: postWrites.percentile(0.5) * 1e6,
                unit: "µs (a member's addPost: nothing is written for the list)"),
            Figure(
                name: "list.fanout_entries_per_post", value: 0,
                unit: "list entries written per post (a fan-out per list writes one per list holding the author)")
        ]
    }
}
