import Foundation
import JSONStream
import Timeline
import LMDB
import Sodium
import TimelineDomain

/// Progress of an import: the phase and how far it is.
public struct ImportProgress: Sendable {
    /// The phase (`users`, `posts`, …).
    public var phase: String
    /// Records done in this phase.
    public var done: Int
    /// Records in this phase.
    public var total: Int
}

extension TimelineService {
    /// Imports a Firebase Realtime Database export of the Timeline app (the shape of the
    /// seeds): `users/{uid}` (username or user, bio, url, email, follows), `posts/{id}`
    /// (username, imageEndpoint, caption, comments, likes), `images/{id}` (base64) and
    /// optionally `followers`/`following`. Identifiers are kept; event times come from the push
    /// ids. Valid records are imported and invalid ones skipped with a reason. Runs on a
    /// standalone database (not a cluster node).
    ///
    /// The export is streamed (memory does not grow with its size): one pass stages its records
    /// in scratch databases, sorted by LMDB; a second appends users, follows, then posts,
    /// comments and likes in push-id order. Every event's id is derived from its Firebase path,
    /// so an interrupted import is resumed by running it again, and a second run adds nothing.
    public func importFirebase(path: String, progress: (@Sendable (ImportProgress) -> Void)? = nil)
        throws(TimelineError) -> ImportReport
    {
        guard !isClusterNode else {
            throw TimelineError.invalid(
                "cluster", "import into a standalone database; a cluster node's log is the replicated one")
        }
        do {
            var importer = try FirebaseImporter(service: self, progress: progress)
            defer { importer.dropStaging() }
            try importer.stage(path)
            try importer.apply()
            return importer.report
        } catch {
            throw Self.translate(error)
        }
    }
}

struct FirebaseImporter {
    let service: TimelineService
    let progress: (@Sendable (ImportProgress) -> Void)?
    var report = ImportReport()
    private let users, follows, images, items: Database
    private var environment: Environment { service.environment }

    init(service: TimelineService, progress: (@Sendable (ImportProgress) -> Void)?) throws {
        self.service = service
        self.progress = progress
        users = try service.environment.database("import.users", placement: .derived)
        follows = try service.environment.database("import.follows", placement: .derived)
        images = try service.environment.database("import.images", placement: .derived)
        items = try service.environment.database("import.items", placement: .derived)
        let scratch = [users, follows, images, items]
        try service.environment.write { txn in for db in scratch { try txn.clear(db) } }
    }

    func dropStaging() {
        let scratch = [users, follows, images, items]
        _ = try? environment.write { txn in for db in scratch { try txn.drop(db) } }
        environment.forget(scratch)
    }

    // MARK: - Pass 1: stream the export into scratch databases

    mutating func stage(_ path: String) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw TimelineError(.notFound, "cannot read \(path)")
        }
        defer { try? file.close() }
        let total = Int((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0)
        var pending: [(Database, [UInt8], [UInt8])] = []
        var skips: [(String, String)] = []
        let splitter = RecordSplitter(depth: 2) { [users, follows, images, items] path, value in
            let (section, key) = (path[0], path[1])
            func put(_ db: Database, _ k: [UInt8], _ v: [UInt8]) { pending.append((db, k, v)) }
            func edge(_ from: String, _ to: String) { put(follows, Key.make(from, to), []) }
            switch section {
            case "users":
                guard case .object = value else {
                    skips.append(("malformed user", "users/\(key)"))
                    return
                }
                var w = ByteWriter()
                w.optionalString(value["username"]?.string ?? value["user"]?.string)
                w.optionalString(value["email"]?.string)
                w.optionalString(value["bio"]?.string)
                w.optionalString(value["url"]?.string)
                put(users, Array(key.utf8), w.bytes)
                for (followee, flag) in value["follows"]?.members ?? [] where flag == .bool(true) {
                    edge(key, followee)
                }
            case "followers":
                for (follower, flag) in value.members where flag == .bool(true) { edge(follower, key) }
            case "following":
                for (followee, flag) in value.members where flag == .bool(true) { edge(key, followee) }
            case "images":
                guard let base64 = value.string else {
                    skips.append(("malformed image", "images/\(key)"))
                    return
                }
                put(images, Array(key.utf8), Array(base64.utf8))
            case "posts":
                guard case .object = value else {
                    skips.append(("malformed post", "posts/\(key)"))
                    return
                }
                var w = ByteWriter()
                w.optionalString(value["username"]?.string)
                w.optionalString(value["imageEndpoint"]?.string)
                w.optionalString(value["caption"]?.string)
                put(items, Key.make(key, "P"), w.bytes)
                for (id, comment) in value["comments"]?.members ?? [] {
                    var c = ByteWriter()
                    c.string(key)
                    c.optionalString(comment["username"]?.string)
                    c.optionalString(comment["text"]?.string)
                    put(items, Key.make(id, "C", key), c.bytes)
                }
                for (id, like) in value["likes"]?.members ?? [] {
                    var l = ByteWriter()
                    l.string(key)
                    l.optionalString(like["username"]?.string)
                    put(items, Key.make(id, "L", key), l.bytes)
                }
            default:
                skips.append(("unknown section", section))
            }
        }
        let parser = JSONStreamParser { try splitter.consume($0) }
        var read = 0
        while true {
            let chunk = file.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            do { try parser.feed([UInt8](chunk)) } catch {
                throw TimelineError.invalid("export", "not valid JSON: \(error)")
            }
            read += chunk.count
            try flush(&pending, force: false, skips: &skips)
            progress?(ImportProgress(phase: "reading", done: read, total: total))
        }
        do { try parser.finish() } catch { throw TimelineError.invalid("export", "not valid JSON: \(error)") }
        try flush(&pending, force: true, skips: &skips)
        for (reason, path) in skips { report.skip(reason, path) }
    }

    /// Writes staged records in batches, so the scratch databases and not memory hold them.
    private func flush(_ pending: inout [(Database, [UInt8], [UInt8])], force: Bool, skips: inout [(String, String)])
        throws
    {
        guard force || pending.count >= 2_000, !pending.isEmpty else { return }
        // LMDB keys are at most 511 bytes; no valid identifier comes near that.
        for (db, key, _) in pending where key.count > 500 {
            skips.append(
                ("key too long", "\(db.name.dropFirst(7))/\(String(decoding: key.prefix(40), as: UTF8.self))…"))
        }
        let batch = pending.filter { $0.1.count <= 500 }
        pending.removeAll(keepingCapacity: true)
        try environment.write { txn in
            for (db, key, value) in batch { try txn.put(db, key, value) }
        }
    }

    // MARK: - Pass 2: append the events

    mutating func apply() throws {
        try importUsers()
        try importFollows()
        try importItems()
    }

    /// Runs `body` for each staged entry of `db` in key order, in write transactions of a few
    /// hundred entries, with the live read models of each transaction.
    private mutating func each(
        _ db: Database, phase: String,
        _ body: (inout FirebaseImporter, ImportBatch, [UInt8], [UInt8]) throws -> Void
    ) throws {
        let total = try environment.read { txn in try txn.statistics(db).entries }
        var after: [UInt8]?
        var done = 0
        while true {
            var importer = self
            let (last, count) = try service.importBatch { batch -> ([UInt8]?, Int) in
                importer = self  // a write that grows the map runs again: start from the same report
                var entries: [([UInt8], [UInt8])] = []
                try batch.txn.withCursor(db) { cursor in
                    var entry: Cursor.Entry?
                    if let after { entry = try cursor.seek(atLeast: after + [0]) } else { entry = try cursor.first() }
                    while let e = entry, entries.count < 500 {
                        entries.append(e)
                        entry = try cursor.next()
                    }
                }
                for (key, value) in entries { try body(&importer, batch, key, value) }
                return (entries.last?.0, entries.count)
            }
            self = importer
            done += count
            progress?(ImportProgress(phase: phase, done: done, total: total))
            guard let last, count == 500 else { return }
            after = last
        }
    }

    private mutating func importUsers() throws {
        try each(users, phase: "users") { importer, batch, key, value in
            let uid = String(decoding: key, as: UTF8.self)
            let path = "users/\(uid)"
            var r = ByteReader(value)
            let rawName = try r.optionalString(), rawEmail = try r.optionalString(), rawBio = try r.optionalString(),
                rawURL = try r.optionalString()
            guard let id = UserID.parse(uid) else { return importer.report.skip("invalid user id", path) }
            guard let rawName, let username = try? Validation.username(rawName) else {
                return importer.report.skip("invalid or missing username", path)
            }
            let view = batch.state
            if let holder = try view.userID(username: username), holder != id {
                return importer.report.skip("username taken", path)
            }
            var email = rawEmail.flatMap { try? Validation.email($0) }
            if let e = email, let holder = try view.userID(email: e), holder != id { email = nil }
            let bio = rawBio.flatMap { try? Validation.bio($0) }.flatMap { $0.isEmpty ? nil : $0 }
            let url = rawURL.flatMap { try? Validation.url($0) }.flatMap { $0.isEmpty ? nil : $0 }
            if rawBio != nil && bio == nil && !(rawBio!.isEmpty) { importer.report.skip("invalid bio dropped", path) }
            if rawURL != nil && url == nil && !(rawURL!.isEmpty) { importer.report.skip("invalid url dropped", path) }
            let event = Event.userCreated(
                UserCreated(userId: id, username: username, email: email, passwordHash: nil, bio: bio, url: url))
            try importer.append(
                event, path: path, kind: "users", actor: id.rawValue, time: PushIDGenerator.timestamp(of: uid), batch)
        }
    }

    private mutating func importFollows() throws {
        try each(follows, phase: "follows") { importer, batch, key, _ in
            let parts = key.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            let path = "users/\(parts[0])/follows/\(parts[1])"
            let view = batch.state
            guard let follower = UserID.parse(parts[0]), let followee = UserID.parse(parts[1]),
                try view.user(follower) != nil, try view.user(followee) != nil
            else { return importer.report.skip("follow of an unknown user", path) }
            guard follower != followee else { return importer.report.skip("self-follow", path) }
            let event = Event.followed(Follow(followerId: follower, followeeId: followee))
            if try !importer.isPresent(event: path, batch), try view.follows(follower, followee) {
                return importer.report.skip("duplicate follow", path)
            }
            try importer.append(event, path: path, kind: "follows", actor: follower.rawValue, time: nil, batch)
        }
    }

    private mutating func importItems() throws {
        try each(items, phase: "posts, comments, likes") { importer, batch, key, value in
            let parts = key.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            let (id, kind) = (parts[0], parts[1])
            var r = ByteReader(value)
            let view = batch.state
            func author(_ name: String?) throws -> UserID? {
                guard let name, let normalised = try? Validation.username(name) else { return nil }
                return try view.userID(username: normalised)
            }
            switch kind {
            case "P":
                let path = "posts/\(id)"
                let name = try r.optionalString(), endpoint = try r.optionalString(),
                    rawCaption = try r.optionalString()
                guard let post = PostID.parse(id) else { return importer.report.skip("invalid post id", path) }
                guard let owner = try author(name) else { return importer.report.skip("post by an unknown user", path) }
                if try importer.isPresent(event: path, batch) {
                    return importer.report.alreadyPresent["posts", default: 0] += 1
                }
                guard let endpoint, let base64 = try batch.txn.get(importer.images, Array(endpoint.utf8)) else {
                    return importer.report.skip("missing image", path)
                }
                let upload: ImageUpload
                do { upload = try ImageUpload(base64: String(decoding: base64, as: UTF8.self)) } catch let error
                    as TimelineError
                {
                    return importer.report.skip(
                        error.code == .payloadTooLarge ? "image too large" : "not an image", path)
                }
                let caption: String?
                let tags: [String]
                do {
                    caption = try rawCaption.map { try Validation.caption($0) }.flatMap { $0.isEmpty ? nil : $0 }
                    tags = try caption.map { try Validation.hashtags(in: $0) } ?? []
                } catch {
                    return importer.report.skip("invalid caption", path)
                }
                // Through the same pipeline as an upload: decoded in full, upright, stripped, in variants.
                let processed: ProcessedImage
                do { processed = try ImagePipeline.post(upload) } catch let error as TimelineError {
                    switch error.code {
                    case .unsupportedMediaType: return importer.report.skip("not an image", path)
                    case .invalidArgument: return importer.report.skip("image too large", path)
                    default: throw error
                    }
                }
                func store(_ variant: ImageUpload) throws -> ImageID { try batch.storeImage(variant, owner: owner) }
                let variants = ImageVariants(
                    full: try store(processed.full), feed: try store(processed.feed), thumb: try store(processed.thumb))
                let event = Event.postAdded(
                    PostAdded(
                        postId: post, authorId: owner, imageId: variants.full, caption: caption, hashtags: tags,
                        width: processed.width, height: processed.height, variants: variants))
                try importer.append(
                    event, path: path, kind: "posts", actor: owner.rawValue, time: PushIDGenerator.timestamp(of: id),
                    batch)
            case "C":
                let parent = try r.string(), name = try r.optionalString(), rawText = try r.optionalString()
                let path = "posts/\(parent)/comments/\(id)"
                guard let comment = CommentID.parse(id), let post = PostID.parse(parent) else {
                    return importer.report.skip("invalid comment id", path)
                }
                if try importer.isPresent(event: path, batch) {
                    return importer.report.alreadyPresent["comments", default: 0] += 1
                }
                guard try view.post(post) != nil else { return importer.report.skip("comment on a missing post", path) }
                guard let owner = try author(name) else {
                    return importer.report.skip("comment by an unknown user", path)
                }
                guard let rawText, let text = try? Validation.commentText(rawText) else {
                    return importer.report.skip("invalid comment text", path)
                }
                let event = Event.commentAdded(
                    CommentAdded(commentId: comment, postId: post, authorId: owner, text: text))
                try importer.append(
                    event, path: path, kind: "comments", actor: owner.rawValue, time: PushIDGenerator.timestamp(of: id),
                    batch)
            default:
                let parent = try r.string(), name = try r.optionalString()
                let path = "posts/\(parent)/likes/\(id)"
                guard let post = PostID.parse(parent) else { return importer.report.skip("invalid like", path) }
                if try importer.isPresent(event: path, batch) {
                    return importer.report.alreadyPresent["likes", default: 0] += 1
                }
                guard try view.post(post) != nil else { return importer.report.skip("like of a missing post", path) }
                guard let owner = try author(name) else { return importer.report.skip("like by an unknown user", path) }
                guard try !view.likes(owner, post) else { return importer.report.skip("duplicate like", path) }
                let event = Event.likeAdded(Like(postId: post, userId: owner))
                try importer.append(
                    event, path: path, kind: "likes", actor: owner.rawValue, time: PushIDGenerator.timestamp(of: id),
                    batch)
            }
        }
    }

    /// The event id an import gives the record at `path`: the same on every run.
    private func eventID(_ path: String) -> EventID { EventID("imp-" + hex(Sodium.hash(Array(path.utf8), length: 16))) }

    private func isPresent(event path: String, _ batch: ImportBatch) throws -> Bool {
        try batch.contains(eventID(path))
    }

    /// Appends one event (unless a previous run did) and applies it at once, so the next
    /// record sees it.
    private mutating func append(
        _ event: Event, path: String, kind: String, actor: String, time: Int64?, _ batch: ImportBatch
    ) throws {
        if try batch.append(
            event, id: eventID(path), timestamp: time ?? service.nowMilliseconds, actor: actor, correlationId: "import")
        {
            report.imported[kind, default: 0] += 1
        } else {
            report.alreadyPresent[kind, default: 0] += 1
        }
    }
}
