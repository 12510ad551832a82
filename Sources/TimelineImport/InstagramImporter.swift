import Archive
import Foundation
import JSONModel
import Sodium
import Timeline
import TimelineDomain

/// Moving in from Instagram: its "Download your information" export (the JSON format), a zip
/// read as a stream, brought in as the user's own posts — photos and albums, captions with their
/// hashtags, places where the photo has them, each at its original date (the envelope's time,
/// which is the post's date; the posts come after the account's own in id order, oldest
/// first) — and the profile's bio and photo. Idempotent: every event's id comes from the user and the
/// export's own name for the thing, so importing the same export again adds nothing.
///
/// Two passes over the archive, nothing written before the second: the first reads every
/// entry's header (one unsafe path — `..`, absolute — refuses the whole export) and the JSON
/// files; the second reads the photos the posts name, one at a time, through the image
/// pipeline, and their videos, each written out as it is read and transcoded as an upload is
/// (`TimelineService.importedVideo`). Progress is told as each photo, video and post is done.
struct InstagramImporter {
    /// The largest JSON file read (an export's posts file is a few MB).
    static let jsonLimit = 64 << 20
    /// The largest entry read as a photo: past the image pipeline's own limit, it is refused there.
    static let photoLimit = ImageUpload.maxBytes + 1

    let service: TimelineService
    let user: UserID
    private(set) var report = ImportReport()

    /// One post of the export, as its JSON says it.
    struct ExportedPost {
        var caption: String?
        var timestamp: Int64
        var media: [(uri: String, place: Place?)]
        /// The export's own name for it (its first photo's path): the idempotency key.
        var key: String { media.first?.uri ?? "" }
    }

    /// What the pipeline made of one photo (or a video's poster frame), stored.
    struct StoredPhoto {
        var variants: ImageVariants
        var width: Int, height: Int
        var blurhash: String
        /// For a video: its media (the transcoded file is in the video store under this id).
        var video: ImportedVideo?
    }

    /// The videos transcoded so far (their files wait for their posts).
    private(set) var videos: [MediaID] = []
    /// Told how far the import is: items (photos, videos, posts) done, of how many.
    let progress: @Sendable (_ done: Int, _ total: Int) -> Void
    private var done = 0, total = 0

    init(service: TimelineService, user: UserID, progress: @escaping @Sendable (Int, Int) -> Void) {
        self.service = service
        self.user = user
        self.progress = progress
    }

    private mutating func advance() {
        done += 1
        progress(done, total)
    }

    /// Imports the export at `path`.
    mutating func run(_ path: String) throws {
        let (posts, profile) = try readJSON(path)
        let wanted = Set(posts.flatMap { $0.media.map(\.uri) })
        var photos: [String: StoredPhoto]
        var presentKeys = Set<String>()
        try service.importBatch { batch in
            for post in posts where try batch.contains(eventID("post", post.key)) { presentKeys.insert(post.key) }
        }
        // Photos of posts already imported are not read again.
        let needed = wanted.subtracting(posts.filter { presentKeys.contains($0.key) }.flatMap { $0.media.map(\.uri) })
        let profileID = eventID("profile", "\(profile.bio ?? "")\u{0}\(profile.photo ?? "")")
        let profileDone = try service.importBatch { try $0.contains(profileID) }
        let avatar = profileDone ? nil : profile.photo
        total = needed.count + posts.count
        progress(0, total)
        var avatarSquares: Avatar?
        (photos, avatarSquares) = try readPhotos(path, needed, avatar: avatar)
        // The photos the export lacks are done too: their posts are skipped.
        done = needed.count
        progress(done, total)
        try appendPosts(posts.sorted { $0.timestamp < $1.timestamp }, photos, present: presentKeys)
        if profile.bio != nil || profile.photo != nil {
            try appendProfile(profile.bio, avatarSquares, id: profileID, done: profileDone)
        }
    }

    // MARK: - The first pass: headers and JSON

    /// The profile the export holds: its bio and its photo's path.
    struct ExportedProfile {
        var bio: String?
        var photo: String?
    }

    private mutating func readJSON(_ path: String) throws -> ([ExportedPost], ExportedProfile) {
        var posts: [ExportedPost] = []
        var profile = ExportedProfile()
        do {
            let reader = try ZipReader(path: path)
            while let entry = try reader.next() {
                guard entry.isSafe else {
                    throw TimelineError.invalid(
                        "archive", "the export holds a path outside it (\(entry.path.prefix(64)))")
                }
                guard entry.isFile, entry.path.hasSuffix(".json") else { continue }
                let name = entry.path.split(separator: "/").last.map(String.init) ?? ""
                if name.hasPrefix("posts_") {
                    posts += try parsePosts(try Self.json(reader.read(limit: Self.jsonLimit), entry.path), entry.path)
                } else if name == "personal_information.json" {
                    profile = Self.profile(try Self.json(reader.read(limit: Self.jsonLimit), entry.path))
                }
            }
        } catch let error as ZipReadError {
            throw TimelineError.invalid("archive", "the export cannot be read: \(error)")
        } catch let error as TimelineError {
            throw error
        } catch {
            throw TimelineError(.internal, "reading the export: \(error)")
        }
        return (posts, profile)
    }

    /// The posts of one `posts_N.json`: an array of `{media: [{uri, creation_timestamp,
    /// title, media_metadata}], title?, creation_timestamp?}` (an album's caption and date are
    /// its own; a single photo's are its photo's).
    private mutating func parsePosts(_ json: JSONValue, _ file: String) throws -> [ExportedPost] {
        json.elements.enumerated().compactMap { index, item in
            let media = item["media"]?.elements ?? []
            let first = media.first
            let caption = (item["title"]?.string ?? first?["title"]?.string).map(Self.repaired)
            guard
                let timestamp = Self.number(item["creation_timestamp"]) ?? Self.number(first?["creation_timestamp"]),
                !media.isEmpty
            else {
                report.skip("a post without photos or a date", "\(file)#\(index)")
                return nil
            }
            let photos = media.compactMap { entry -> (uri: String, place: Place?)? in
                guard let uri = entry["uri"]?.string else { return nil }
                return (uri, Self.place(entry))
            }
            return ExportedPost(
                caption: caption.flatMap { $0.isEmpty ? nil : $0 }, timestamp: Int64(timestamp * 1000), media: photos)
        }
    }

    /// `bytes` as JSON, or `invalid_argument` naming the file.
    private static func json(_ bytes: [UInt8], _ file: String) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw TimelineError.invalid("archive", "\(file.prefix(200)) is not JSON")
        }
    }

    /// Instagram writes each string's UTF-8 bytes as if they were Latin-1 characters (`é` as
    /// `\u00c3\u00a9`): such a string is made of its bytes again.
    static func repaired(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.allSatisfy({ $0.value < 256 }) else { return text }
        let bytes = scalars.map { UInt8($0.value) }
        return String(validating: bytes, as: UTF8.self) ?? text
    }

    private static func number(_ value: JSONValue?) -> Double? {
        if case .number(let text)? = value { return Double(text) }
        return nil
    }

    /// The place a photo's EXIF data gives, if any (`media_metadata.photo_metadata.exif_data`).
    private static func place(_ entry: JSONValue) -> Place? {
        for exif in entry["media_metadata"]?["photo_metadata"]?["exif_data"]?.elements ?? [] {
            if let latitude = number(exif["latitude"]), let longitude = number(exif["longitude"]),
                let place = try? Validation.place(Place(latitude: latitude, longitude: longitude))
            {
                return place
            }
        }
        return nil
    }

    /// The profile of `personal_information.json`: `profile_user[0]`'s `string_map_data.Bio.value`
    /// and `media_map_data["Profile Photo"].uri`.
    private static func profile(_ json: JSONValue) -> ExportedProfile {
        let user = json["profile_user"]?.elements.first
        return ExportedProfile(
            bio: user?["string_map_data"]?["Bio"]?["value"]?.string.map(repaired).flatMap { $0.isEmpty ? nil : $0 },
            photo: user?["media_map_data"]?["Profile Photo"]?["uri"]?.string)
    }

    // MARK: - The second pass: photos

    /// The photos of `wanted`, each read, processed and stored as the archive comes to it, and
    /// the profile photo `avatar` as its two squares.
    private mutating func readPhotos(_ path: String, _ wanted: Set<String>, avatar: String?) throws -> (
        [String: StoredPhoto], Avatar?
    ) {
        var photos: [String: StoredPhoto] = [:]
        var squares: Avatar?
        guard !wanted.isEmpty || avatar != nil else { return (photos, nil) }
        do {
            let reader = try ZipReader(path: path)
            while let entry = try reader.next() {
                guard entry.isFile, wanted.contains(entry.path) || entry.path == avatar else { continue }
                let lower = entry.path.lowercased()
                if [".mp4", ".mov", ".webm"].contains(where: lower.hasSuffix) {
                    photos[entry.path] = try storeVideo(entry.path, reader)
                    advance()
                    continue
                }
                defer { if entry.path != avatar { advance() } }
                let read = Result { () throws(ZipReadError) -> [UInt8] in try reader.read(limit: Self.photoLimit) }
                if case .failure(.tooLarge) = read {
                    report.skip("image too large", entry.path)
                    continue
                }
                if entry.path == avatar {
                    squares = try storeAvatar(entry.path, try read.get())
                } else {
                    photos[entry.path] = try store(entry.path, try read.get())
                }
            }
        } catch let error as ZipReadError {
            throw TimelineError.invalid("archive", "the export cannot be read: \(error)")
        }
        return (photos, squares)
    }

    /// The video entry `uri` the reader is at, written out, transcoded and its poster stored;
    /// `nil` (and a line in the report) when it is too large or the transcoder refuses it.
    private mutating func storeVideo(_ uri: String, _ reader: ZipReader) throws -> StoredPhoto? {
        let file = service.uploadSpoolDirectory + "/import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: file) }
        let limit = service.maxVideoBytes
        switch Result(catching: { () throws(ZipReadError) -> Int in try reader.copy(to: file, limit: limit) }) {
        case .success: break
        case .failure(.tooLarge):
            report.skip("video too large", uri)
            return nil
        case .failure(let error): throw error
        }
        let made = Result { () throws(TimelineError) -> ImportedVideo in try service.importedVideo(file, owner: user) }
        switch made {
        case .success(let video):
            videos.append(video.media)
            return StoredPhoto(
                variants: video.poster, width: video.width, height: video.height, blurhash: video.blurhash,
                video: video)
        case .failure(let error) where error.code == .internal || error.code == .storageFull: throw error
        case .failure(let error):
            report.skip("a video that cannot be used (\(error.message))", uri)
            return nil
        }
    }

    /// `bytes` as a profile photo's two squares, stored; `nil` (and a line in the report) when
    /// it is not a photo the pipeline takes.
    private mutating func storeAvatar(_ uri: String, _ bytes: [UInt8]) throws -> Avatar? {
        let made = Result { () throws(TimelineError) -> (large: ImageUpload, small: ImageUpload) in
            try ImagePipeline.avatar(try ImageUpload(bytes: bytes))
        }
        switch made {
        case .success(let squares):
            let user = self.user
            return try service.importBatch { batch in
                Avatar(
                    large: try batch.storeImage(squares.large, owner: user),
                    small: try batch.storeImage(squares.small, owner: user))
            }
        case .failure(let error) where error.code == .internal || error.code == .storageFull: throw error
        case .failure:
            report.skip("a profile photo that is not an image", uri)
            return nil
        }
    }

    /// `bytes` through the image pipeline, stored sealed with the user's key; `nil` (and a
    /// line in the report) when it is not a photo the pipeline takes.
    private mutating func store(_ uri: String, _ bytes: [UInt8]) throws -> StoredPhoto? {
        let made = Result { () throws(TimelineError) -> ProcessedImage in
            try ImagePipeline.post(try ImageUpload(bytes: bytes))
        }
        let processed: ProcessedImage
        switch made {
        case .success(let image): processed = image
        case .failure(let error) where error.code == .internal || error.code == .storageFull: throw error
        case .failure(let error):
            report.skip(error.code == .payloadTooLarge ? "image too large" : "not an image", uri)
            return nil
        }
        let user = self.user
        return try service.importBatch { batch in
            func stored(_ variant: ImageUpload) throws -> ImageID { try batch.storeImage(variant, owner: user) }
            return StoredPhoto(
                variants: ImageVariants(
                    full: try stored(processed.full), feed: try stored(processed.feed),
                    thumb: try stored(processed.thumb)),
                width: processed.width, height: processed.height, blurhash: processed.blurhash)
        }
    }

    // MARK: - The events

    /// The id of the event the import records for `thing` of kind `kind`: the same on every run.
    private func eventID(_ kind: String, _ thing: String) -> EventID {
        EventID("ig-" + hex(Sodium.hash(Array("\(user.rawValue)\u{0}\(kind)\u{0}\(thing)".utf8), length: 16)))
    }

    /// `present`: the keys of the posts a previous run imported (found before the photos were read).
    private mutating func appendPosts(
        _ posts: [ExportedPost], _ photos: [String: StoredPhoto], present: Set<String>
    ) throws {
        let user = self.user
        let locked = try service.importBatch { try $0.state.user(user)?.locked ?? false }
        for post in posts {
            defer { advance() }
            let id = eventID("post", post.key)
            if present.contains(post.key) {
                report.alreadyPresent["posts", default: 0] += 1
                continue
            }
            let held = post.media.compactMap { photos[$0.uri] }
            guard held.count == post.media.count, let cover = held.first else {
                report.skip("a post whose photos are not all in the export", post.key)
                continue
            }
            let caption = post.caption.flatMap { try? Validation.caption($0) }
            let tags = caption.flatMap { try? Validation.hashtags(in: $0) } ?? []
            let postID = PostID(service.newID())
            var events: [(Event, EventID)] = []
            var added = PostAdded(
                postId: postID, authorId: user, imageId: cover.variants.full, caption: caption, hashtags: tags,
                width: cover.width, height: cover.height, variants: cover.variants,
                visibility: locked ? .followers : .public)
            if held.count == 1, cover.video == nil {
                added.blurhash = cover.blurhash
            } else {
                // An album (or a video): each photo or video an upload of the user's, attached to the post.
                for (index, photo) in held.enumerated() {
                    let key = "\(post.key)#\(index)"
                    guard let video = photo.video else {
                        let media = MediaID(service.newID())
                        added.media.append(media)
                        let uploaded = MediaUploaded(
                            mediaId: media, uploaderId: user, width: photo.width, height: photo.height,
                            variants: photo.variants, blurhash: photo.blurhash, alt: nil)
                        events.append((.mediaUploaded(uploaded), eventID("media", key)))
                        continue
                    }
                    added.media.append(video.media)
                    for (index, event) in video.events(uploader: user).enumerated() {
                        events.append((event, eventID("video\(index)", key)))
                    }
                }
            }
            events.append((.postAdded(added), id))
            if let place = post.media.first?.place {
                events.append(
                    (.postPlaced(PostPlaced(postId: postID, authorId: user, place: place)), eventID("place", post.key)))
            }
            try service.importBatch { batch in
                for (event, eventID) in events {
                    _ = try batch.append(
                        event, id: eventID, timestamp: post.timestamp, actor: user.rawValue,
                        correlationId: "import-instagram")
                }
            }
            report.imported["posts", default: 0] += 1
        }
    }

    /// The profile's bio and photo (`ProfileUpdated`), once (`done`: a previous run's).
    private mutating func appendProfile(_ rawBio: String?, _ avatar: Avatar?, id: EventID, done: Bool) throws {
        let user = self.user
        if done {
            report.alreadyPresent["profile", default: 0] += 1
            return
        }
        let bio = rawBio.flatMap { try? Validation.bio($0) }
        if rawBio != nil, bio == nil { report.skip("a bio that is not one here", "personal_information.json") }
        guard bio != nil || avatar != nil else { return }
        let event = ProfileUpdated(userId: user, bio: bio, avatar: avatar.map(AvatarChange.set))
        let appended = try service.importBatch { batch in
            try batch.append(
                .profileUpdated(event), id: id, timestamp: service.nowMilliseconds, actor: user.rawValue,
                correlationId: "import-instagram")
        }
        if appended {
            report.imported["profile", default: 0] += 1
        } else {
            report.alreadyPresent["profile", default: 0] += 1
        }
    }
}

extension TimelineService {
    /// Imports an Instagram export (the zip of "Download your information", JSON format) at
    /// `path` as `user`'s posts and bio (`InstagramImporter`); the report says what was added,
    /// what was there already and what was skipped, and why. A hostile or damaged archive is
    /// refused before anything is written.
    public func importInstagram(
        path: String, as user: UserID, progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(TimelineError) -> ImportReport {
        guard !isClusterNode else {
            throw TimelineError.invalid(
                "cluster", "import into a standalone database; a cluster node's log is the replicated one")
        }
        var importer = InstagramImporter(service: self, user: user, progress: progress)
        // Its videos' files are kept from the sweep until their posts are recorded (or not).
        defer { importedVideosRecorded(importer.videos) }
        do {
            guard try importBatch({ try $0.state.user(user) }) != nil else {
                throw TimelineError.notFound("user", user.rawValue)
            }
            try importer.run(path)
        } catch let error as TimelineError {
            throw error
        } catch {
            throw TimelineError(.internal, "importing the Instagram export: \(error)")
        }
        return importer.report
    }
}
