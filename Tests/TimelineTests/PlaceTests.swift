import Foundation
import JSONModel
import LMDB
import JSONModel
import Testing
@testable import Timeline

/// Places: `addPost`'s optional location, sealed in `PostPlaced`; the exact, paged
/// `nearby` query over the cell index; a place leaving every index with its post or its author.
@Suite struct PlaceTests {
    /// A small deterministic generator (SplitMix64), so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The point `km` from `origin` along `bearing` (radians) on the sphere, longitude wrapped
    /// into −180…180.
    static func destination(_ origin: Place, km: Double, bearing: Double) -> Place {
        let δ = km / Place.earthRadiusKm, φ1 = origin.latitude * .pi / 180, λ1 = origin.longitude * .pi / 180
        let φ2 = asin(min(1, max(-1, sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(bearing))))
        let λ2 = λ1 + atan2(sin(bearing) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        var longitude = λ2 * 180 / .pi
        while longitude > 180 { longitude -= 360 }
        while longitude < -180 { longitude += 360 }
        return Place(latitude: φ2 * 180 / .pi, longitude: longitude)
    }

    @discardableResult
    static func addPost(_ service: TimelineService, by user: UserID, at place: Place?, image: Int = 0) async throws
        -> Post
    {
        try #require(
            try await service.run(.addPost(image: gifBase64(image), caption: nil, location: place), as: user).post)
    }

    @Test func nearbyIsExactAgainstBruteForce() async throws {
        let service = try openService()
        let users = [
            try await service.createUser("alice"), try await service.createUser("bob"),
            try await service.createUser("carol")
        ]
        var random = SplitMix(state: 17)
        // Around an ordinary city, both sides of the antimeridian, both poles and the null island.
        let centres = [
            Place(latitude: 48.8566, longitude: 2.3522), Place(latitude: -16.5, longitude: 179.95),
            Place(latitude: 89.8, longitude: 10), Place(latitude: -89.9, longitude: -120),
            Place(latitude: 0, longitude: 0)
        ]
        var placed: [PostID: Place] = [:]
        var image = 0
        for centre in centres {
            for _ in 0..<24 {
                let place = Self.destination(
                    centre, km: Double.random(in: 0...70, using: &random),
                    bearing: Double.random(in: 0..<2 * .pi, using: &random))
                image += 1
                let post = try await Self.addPost(service, by: users[image % users.count].id, at: place, image: image)
                placed[post.id] = place
            }
        }
        // The edges of the map themselves: the poles, and the antimeridian written both ways.
        for place in [
            Place(latitude: 90, longitude: 0), Place(latitude: -90, longitude: 180),
            Place(latitude: -16.5, longitude: 180),
            Place(latitude: -16.5, longitude: -180), Place(latitude: 0, longitude: -180)
        ] {
            image += 1
            placed[try await Self.addPost(service, by: users[0].id, at: place, image: image).id] = place
        }
        // Posts without a place, and deleted posts, are never found.
        try await service.addPost(by: users[1].id, image: 9999)
        for id in placed.keys.sorted(by: { $0.rawValue < $1.rawValue }).enumerated().filter({ $0.offset % 9 == 0 }).map(
            \.element)
        {
            let author = try service.post(id).post.author
            try await service.run(.deletePost(post: id.rawValue), as: author)
            placed[id] = nil
        }

        var queries = 0
        for centre in centres + [Place(latitude: -16.5, longitude: -179.99), Place(latitude: 90, longitude: -75)] {
            for radius in [0.5, 5, 20, 42.5, 50] {
                let expected = placed.filter { $0.value.distance(to: centre) <= radius }.keys.sorted {
                    $0.rawValue > $1.rawValue
                }
                if radius == 50 { #expect(expected.count >= 5, "centre \(centre): too few posts to tell anything") }
                for limit in [1, 3, 7, 100] {
                    var found: [PostID] = [], pages = 0
                    var request = PageRequest(limit: limit)
                    while true {
                        let page = try service.nearby(
                            latitude: centre.latitude, longitude: centre.longitude, radiusKm: radius, request)
                        pages += 1
                        #expect(page.items.count <= limit)
                        #expect(page.items.allSatisfy { $0.location != nil })
                        found += page.items.map(\.id)
                        guard let next = page.next else { break }
                        #expect(page.items.count == limit, "a next cursor on a short page")
                        request.before = next
                    }
                    #expect(found == expected, "centre \(centre), radius \(radius), limit \(limit)")
                    // Exact pages: no empty page at the end.
                    #expect(
                        pages == max(1, (expected.count + limit - 1) / limit),
                        "centre \(centre), radius \(radius), limit \(limit)")
                    queries += 1
                }
            }
        }
        #expect(queries == 7 * 5 * 4)
        // The index holds exactly the live placed posts.
        #expect(
            try service.read { view in
                var count = 0
                try view.txn.scan(view.models.places.cells.database, prefix: []) { _, _ in
                    count += 1
                    return true
                }
                return count
            } == placed.count)
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }

    /// The grid alone, over many more points than the database test can afford: every point
    /// within the radius is in one of the cells searched, and away from the poles those are a
    /// handful.
    @Test func theCellsSearchedCoverTheCircle() {
        var random = SplitMix(state: 2026)
        var worst = 0
        for round in 0..<4000 {
            // A fifth of the centres right at the edges: by a pole, on the antimeridian.
            let latitude =
                round % 5 == 0
                ? Double.random(in: 88...90, using: &random) * (round % 2 == 0 ? 1 : -1)
                : Double.random(in: -90...90, using: &random)
            let longitude =
                round % 5 == 1
                ? [-180, 180, 179.999, -179.999][round % 4] : Double.random(in: -180...180, using: &random)
            let centre = Place(latitude: latitude, longitude: longitude)
            let radius = [0.001, 1, 10, 49.9, 50][round % 5]
            let searched = Set(PlaceGrid.cells(around: centre, radiusKm: radius))
            if abs(latitude) < 85 { worst = max(worst, searched.count) }
            for _ in 0..<25 {
                // Up to the radius itself (and right on it).
                let km = Bool.random(using: &random) ? radius : Double.random(in: 0...radius, using: &random)
                let point = Self.destination(centre, km: km, bearing: Double.random(in: 0..<2 * .pi, using: &random))
                guard point.distance(to: centre) <= radius else { continue }
                #expect(
                    searched.contains(PlaceGrid.cell(of: point)),
                    "\(point) is \(point.distance(to: centre)) km from \(centre), outside the cells searched")
            }
        }
        #expect(worst <= 12, "a 50 km search away from the poles touches \(worst) cells")
    }

    @Test func locationsAreValidatedAndShownOnPosts() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice")
        let before = try service.lastSequence()
        for (place, field) in [
            (Place(latitude: 90.5, longitude: 0), "location.latitude"),
            (Place(latitude: -91, longitude: 0), "location.latitude"),
            (Place(latitude: .nan, longitude: 0), "location.latitude"),
            (Place(latitude: 0, longitude: 180.01), "location.longitude"),
            (Place(latitude: 0, longitude: -.infinity), "location.longitude"),
            (Place(latitude: 0, longitude: 0, name: String(repeating: "x", count: 101)), "location.name"),
            (Place(latitude: 0, longitude: 0, name: "bad\u{0}name"), "location.name")
        ] {
            await expectError(.invalidArgument, field: field) {
                try await Self.addPost(service, by: alice.id, at: place)
            }
        }
        #expect(try service.lastSequence() == before, "a refused post appends nothing")

        // The name is trimmed (100 characters after trimming is fine); a blank name is no name.
        let named = try await Self.addPost(
            service, by: alice.id,
            at: Place(
                latitude: -33.8568, longitude: 151.2153,
                name: "  " + String(repeating: "é", count: 100) + "\n"))
        #expect(
            named.location == Place(latitude: -33.8568, longitude: 151.2153, name: String(repeating: "é", count: 100)))
        let blank = try await Self.addPost(
            service, by: alice.id, at: Place(latitude: 90, longitude: -180, name: "   "), image: 1)
        #expect(blank.location == Place(latitude: 90, longitude: -180))
        let plain = try await service.addPost(by: alice.id, image: 2)
        #expect(plain.location == nil)
        #expect(try service.post(named.id).post.location?.name?.count == 100)
        #expect(try service.posts(by: alice.id).items.map { $0.location != nil } == [false, true, true])
        // One commit: PostAdded, then PostPlaced.
        let events = try service.events(from: before + 1).map(\.event)
        #expect(events.filter { if case .postPlaced = $0 { true } else { false } }.count == 2)
        if case .postAdded(let added) = events[0], case .postPlaced(let placed) = events[1] {
            #expect(placed.postId == added.postId && placed.authorId == alice.id)
        } else {
            Issue.record("expected PostAdded then PostPlaced: \(events.prefix(2))")
        }

        // The JSON forms: the post shows `location`, absent without one.
        let json = JSONOutput.post(named)
        let location = try #require(json["location"])
        #expect(location["latitude"] == .double(-33.8568) && location["longitude"] == .double(151.2153))
        #expect(JSONOutput.post(plain)["location"] == nil)

        // The query's own checks.
        await expectError(.invalidArgument, field: "radiusKm") {
            _ = try service.nearby(latitude: 0, longitude: 0, radiusKm: 50.001)
        }
        await expectError(.invalidArgument, field: "radiusKm") {
            _ = try service.nearby(latitude: 0, longitude: 0, radiusKm: 0)
        }
        await expectError(.invalidArgument, field: "radiusKm") {
            _ = try service.nearby(latitude: 0, longitude: 0, radiusKm: .nan)
        }
        await expectError(.invalidArgument, field: "latitude") { _ = try service.nearby(latitude: -90.5, longitude: 0) }
        await expectError(.invalidArgument, field: "longitude") { _ = try service.nearby(latitude: 0, longitude: 181) }
        await expectError(.invalidArgument, field: "limit") {
            _ = try service.nearby(latitude: 0, longitude: 0, PageRequest(limit: 0))
        }
    }

    @Test func execDecodesLocationsAndTheNearbyQuery() async throws {
        let service = try openService()
        let session = ExecSession(service: service)
        func send(_ request: [String: Any]) async throws -> [String: Any] {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(await session.handle(line: line).utf8)) as? [String: Any])
        }
        func field(_ answer: [String: Any]) -> String? { (answer["error"] as? [String: Any])?["field"] as? String }
        let alice = try await service.createUser("alice")
        let post: [String: Any] = ["command": "addPost", "as": alice.id.rawValue, "image": gifBase64(1)]
        let added = try await send(
            post.merging(["location": ["latitude": 59.3293, "longitude": 18.0686, "name": "Gamla stan"]]) { $1 })
        let result = try #require(added["result"] as? [String: Any], "\(added)")
        let location = try #require(result["location"] as? [String: Any], "\(result)")
        #expect(
            location["latitude"] as? Double == 59.3293 && location["longitude"] as? Double == 18.0686
                && location["name"] as? String == "Gamla stan")
        for (location, expected) in [
            ("here", "location"), (["latitude": 1] as Any, "location.longitude"),
            (["latitude": "1", "longitude": 2] as Any, "location.latitude"),
            (["latitude": true, "longitude": 2] as Any, "location.latitude"),
            (["latitude": 1, "longitude": 2, "altitude": 3] as Any, "location.altitude"),
            (["latitude": 1, "longitude": 2, "name": 3] as Any, "location.name")
        ] as [(Any, String)] {
            let refused = try await send(post.merging(["location": location]) { $1 })
            #expect(field(refused) == expected, "\(refused)")
        }
        let nearby = try await send(["query": "nearby", "latitude": 59.33, "longitude": 18.07, "radiusKm": 1])
        let items = try #require((nearby["result"] as? [String: Any])?["items"] as? [[String: Any]], "\(nearby)")
        #expect(items.map { $0["id"] as? String } == [result["id"] as? String])
        // The radius defaults to 10 km; the centre is required.
        #expect(
            ((try await send(["query": "nearby", "latitude": 59.4, "longitude": 18.07]))["result"] as? [String: Any])?[
                "items"] as? [Any] != nil)
        #expect(field(try await send(["query": "nearby", "longitude": 18.07])) == "latitude")
        #expect(
            field(try await send(["query": "nearby", "latitude": 59.33, "longitude": 18.07, "radiusKm": 60]))
                == "radiusKm")
    }

    @Test func theLogHoldsPlacesOnlySealed() async throws {
        let path = temporaryPath()
        let service = try openService(path: path, durable: true)
        let alice = try await service.createUser("alice")
        let place = Place(latitude: 12.3456789, longitude: -98.7654321, name: "Hidden Cove Of Alice")
        let post = try await Self.addPost(service, by: alice.id, at: place)
        // Read back through the codec, the event has its place.
        #expect(
            try service.events(from: 1).contains {
                $0.event == .postPlaced(PostPlaced(postId: post.id, authorId: alice.id, place: place))
            })
        service.close()
        let log = try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb"))
        #expect(log.range(of: Data("Hidden Cove Of Alice".utf8)) == nil, "the place's name is in the log in clear")
        for coordinate in [place.latitude, place.longitude] {
            for encoding in [BigEndian.bytes(coordinate.bitPattern), BigEndian.bytes(coordinate.bitPattern).reversed()]
            {
                #expect(log.range(of: Data(encoding)) == nil, "a coordinate is in the log in clear")
            }
            #expect(log.range(of: Data(String(coordinate).utf8)) == nil, "a coordinate is in the log in clear")
        }
    }

    @Test func aPlaceLeavesEveryIndexWithItsPostOrItsAuthor() async throws {
        let service = try openService()
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let here = Place(latitude: 51.5007, longitude: -0.1246, name: "Westminster")
        let kept = try await Self.addPost(service, by: bob.id, at: here, image: 1)
        let deleted = try await Self.addPost(service, by: alice.id, at: here, image: 2)
        let erased = try await Self.addPost(service, by: alice.id, at: here, image: 3)
        func nearby(viewer: UserID? = nil) throws -> [PostID] {
            try service.nearby(latitude: here.latitude, longitude: here.longitude, radiusKm: 1, viewer: viewer).items
                .map(\.id)
        }
        func indexed(_ author: UserID) throws -> Int {
            try service.read { view in
                let places = view.models.places
                var count = 0
                count += try places.placesByAuthor.members(of: author, view.txn).count
                try view.txn.scan(places.places.database, prefix: []) { _, value in
                    if try PostPlaces.decode(value).author == author { count += 1 }
                    return true
                }
                return count
            }
        }
        #expect(try nearby() == [erased.id, deleted.id, kept.id])

        // A block hides the blocker's and the blocked's posts from each other, both ways.
        try await service.run(.block(user: bob.id.rawValue), as: alice.id)
        #expect(try nearby(viewer: alice.id) == [erased.id, deleted.id])
        #expect(try nearby(viewer: bob.id) == [kept.id])
        try await service.run(.unblock(user: bob.id.rawValue), as: alice.id)

        try await service.run(.deletePost(post: deleted.id.rawValue), as: alice.id)
        #expect(try nearby() == [erased.id, kept.id])
        #expect(try service.read { try $0.models.places.place(of: deleted.id, $0.txn) } == nil)
        #expect(try indexed(alice.id) == 2)

        try await service.run(.eraseUser(user: alice.id.rawValue, password: "password-123"), as: alice.id)
        #expect(try nearby() == [kept.id])
        #expect(try indexed(alice.id) == 0, "an erased user's places stay in the index")
        // Replayed, the erased author's PostPlaced has no place left to index.
        let replayed = try service.events(from: 1).filter { $0.type == .postPlaced && $0.event.users == [alice.id] }
        #expect(
            replayed.count == 2
                && replayed.allSatisfy {
                    $0.erased
                        && $0.event == .postPlaced(PostPlaced(postId: $0.event.post!, authorId: alice.id, place: nil))
                })
        #expect(
            replayed.allSatisfy {
                $0.jsonObject().payload == [
                    "postId": .string($0.event.post!.rawValue), "authorId": .string(alice.id.rawValue)
                ]
            })
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
        _ = try service.rebuild(RebuildOptions(projections: [.places]))
        #expect(try nearby() == [kept.id])
        #expect(try indexed(alice.id) == 0)
    }

    /// Moderation reaches the place index: a post hidden by reports is not nearby for others
    /// (its author still finds it), and a post the operator removes leaves the index.
    @Test func hiddenAndRemovedPostsAreNotNearby() async throws {
        let service = try openService { $0.hideAfterReports = 1 }
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let here = Place(latitude: 48.8584, longitude: 2.2945)
        let reported = try await Self.addPost(service, by: alice.id, at: here, image: 1)
        let removed = try await Self.addPost(service, by: alice.id, at: here, image: 2)
        let kept = try await Self.addPost(service, by: alice.id, at: here, image: 3)
        func nearby(viewer: UserID? = nil) throws -> [PostID] {
            try service.all(limit: 1) {
                try service.nearby(latitude: here.latitude, longitude: here.longitude, radiusKm: 1, $0, viewer: viewer)
            }.map(\.id)
        }
        try await service.run(.reportPost(post: reported.id.rawValue, reason: "spam"), as: bob.id)
        #expect(try nearby(viewer: bob.id) == [kept.id, removed.id])
        #expect(try nearby() == [kept.id, removed.id])
        #expect(try nearby(viewer: alice.id) == [kept.id, removed.id, reported.id])
        _ = try await service.execute(.removePost(post: removed.id.rawValue, reason: "rule 3"), as: .operator)
        #expect(try nearby(viewer: alice.id) == [kept.id, reported.id])
        #expect(try service.read { try $0.models.places.place(of: removed.id, $0.txn) } == nil)
        _ = try await service.execute(.dismissReports(post: reported.id.rawValue), as: .operator)
        #expect(try nearby(viewer: bob.id) == [kept.id, reported.id])
        #expect(try service.rebuild(RebuildOptions(verifyOnly: true)).differences.isEmpty)
    }
}
