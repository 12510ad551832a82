import Foundation
import Sodium
import Synchronization
import Timeline

/// Other servers' posts that hold a video (#43), waiting here until it is transcoded. A post
/// never holds a video still being made, and transcoding one takes longer than an inbox request
/// should wait: so the inbox fetches the video, uploads it as the remote account's (the video
/// worker transcodes it, as a local upload), and keeps the post's `receiveRemotePost` fields in
/// this journal (`DB/federation/awaiting-videos/`, a file per `Note`, written whole before the
/// activity is acknowledged). `TimelineAPI.publishAwaitedVideoPosts` records each post once
/// every video of it is done, with the videos the transcoder took. So a restart loses none: the
/// uploads are in the log, the video worker resumes, and the journal is read again.
public final class AwaitedVideoPosts: Sendable {
    /// A post's `receiveRemotePost` fields, its media in the album's order (photos, and videos
    /// being transcoded).
    struct Post: Codable, Equatable {
        var author: UserID
        var object: String
        var caption: String
        var media: [MediaID]
        var visibility: PostVisibility
        var sensitive: Bool
        var warning: String?
        var addressees: [UserID]
        var inReplyTo: PostID?

        /// The command that records it, with the media that can be shown (`ready`).
        func command(media ready: [MediaID]) -> Command {
            .receiveRemotePost(
                author: author.rawValue, object: object, caption: caption, media: ready.map(\.rawValue),
                visibility: visibility, sensitive: sensitive, warning: warning,
                addressees: addressees.map(\.rawValue), inReplyTo: inReplyTo?.rawValue)
        }
    }

    private let directory: String
    /// The `Note`s whose media are being fetched now, and those deleted lately (at most 10,000):
    /// in memory, for the races of a `Delete` with a fetch or a recording under way.
    private let fetching = Mutex<Set<String>>([])
    private let deleted = RecentKeys(lifetime: AwaitedVideoPosts.deletionMemory, capacity: 10_000)
    /// How long a deleted `Note` is remembered (a `Create` of it delivered late is still dropped).
    static let deletionMemory: TimeInterval = 24 * 3600
    /// How many `Note`s' videos are fetched at once: each may take minutes, inside its request.
    static let fetchSlots = 2
    private let fetchingVideos = Mutex(0)

    /// The journal in `directory` (made, 0700, if it is not there).
    public init(directory: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.directory = directory
    }

    /// The file of the `Note` `object`: named by its id's SHA-256, so any id makes a file name.
    private func file(_ object: String) -> String {
        directory + "/" + hex(Sodium.sha256(Array(object.utf8))) + ".json"
    }

    /// Whether the `Note` `object` is waiting for its videos.
    func isAwaited(_ object: String) -> Bool { FileManager.default.fileExists(atPath: file(object)) }

    /// Claims the fetching of the `Note` `object`'s media: false when another request fetches them
    /// now (a re-delivery while the first is under way), or the `Note` was deleted.
    func claimFetching(_ object: String) -> Bool {
        !deleted.contains(object) && fetching.withLock { $0.insert(object).inserted }
    }

    /// Takes one of the `fetchSlots` for a `Note`'s videos: `rate_limited` when all are taken (its
    /// sender tries again later, as servers do on a 429), so that other servers' posts with videos
    /// never hold more than a few requests, downloads and spool files at once.
    func startFetchingVideos() throws(TimelineError) {
        guard
            fetchingVideos.withLock({ fetching in
                guard fetching < Self.fetchSlots else { return false }
                fetching += 1
                return true
            })
        else { throw TimelineError(.rateLimited, "other servers' videos are being fetched: try again later") }
    }

    /// Gives back the slot `startFetchingVideos` took.
    func endFetchingVideos() { fetchingVideos.withLock { $0 -= 1 } }

    /// Its media fetched (or not): another delivery of it may fetch them.
    func endFetching(_ object: String) { _ = fetching.withLock { $0.remove(object) } }

    /// The `Note` `object` was deleted by its author: it is forgotten here, and for a day no
    /// recording of it goes ahead.
    func noteDeleted(_ object: String) {
        deleted.note(object)
        forget(object)
    }

    /// Whether the `Note` `object` was deleted lately.
    func wasDeleted(_ object: String, now: Date = Date()) -> Bool { deleted.contains(object, now: now) }

    /// Keeps `post` (or its new fields) until its videos are done: written whole, then renamed
    /// into place, so a crash leaves the old file or the new one.
    func keep(_ post: Post) throws(TimelineError) {
        let target = file(post.object), partial = target + ".partial"
        guard let data = try? JSONEncoder().encode(post),
            FileManager.default.createFile(atPath: partial, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(partial, target) == 0
        else { throw TimelineError(.storageFull, "the post could not be kept while its video is transcoded") }
    }

    /// The post of the `Note` `object`, if it is waiting.
    func post(_ object: String) -> Post? { read(file(object)) }

    /// Forgets the `Note` `object` (recorded, refused, or deleted by its author).
    func forget(_ object: String) { try? FileManager.default.removeItem(atPath: file(object)) }

    /// Every post waiting (a file that does not read as one, which no crash leaves, is removed).
    var all: [Post] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            let post = read(directory + "/" + name)
            if post == nil { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
            return post
        }
    }

    private func read(_ path: String) -> Post? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Post.self, from: $0) }
    }
}

extension TimelineAPI {
    /// Records each awaited post (`AwaitedVideoPosts`) whose videos are all done, with the ones
    /// the transcoder took; one left with nothing to show is dropped, as a post whose photos could
    /// not be fetched is. A refusal (its author erased meanwhile, a post known already) drops it
    /// too; a failure of this server's (a full disk) keeps it for the next round. `timeline
    /// serve` runs it every half second.
    public func publishAwaitedVideoPosts(log: @Sendable (String) -> Void = { _ in }) async {
        guard let journal = options.awaitedVideoPosts else { return }
        for post in journal.all {
            if journal.wasDeleted(post.object) {
                journal.forget(post.object)
                continue
            }
            var ready: [MediaID] = []
            var waiting = false
            for id in post.media {
                let media: MediaAttachment
                do { media = try service.media(id, viewer: post.author) } catch  where error.code == .notFound {
                    continue  // gone (its account erased): left out
                } catch {
                    waiting = true  // not read now: the next round
                    continue
                }
                switch media.video {
                case .processing?: waiting = true
                case .failed?: break
                case .ready?, nil: ready.append(id)
                }
            }
            if waiting { continue }
            if ready.isEmpty, post.visibility != .direct || post.caption.isEmpty {
                log("\(post.object) has nothing to show: none of its videos could be transcoded")
                journal.forget(post.object)
                continue
            }
            do {
                let recorded = try await service.execute(post.command(media: ready), as: .operator)
                try await followUp(post, recorded: recorded, journal)
            } catch  where error.code == .internal || error.code == .storageFull {
                log("recording \(post.object), whose video is ready: \(error)")
                continue
            } catch {
                log("\(post.object), whose video is ready, was refused: \(error)")
            }
            journal.forget(post.object)
        }
    }

    /// What came for an awaited post while it was being recorded: its `Delete` (the post goes
    /// again), or its `Update` (its caption is edited).
    private func followUp(_ post: AwaitedVideoPosts.Post, recorded: CommandResult, _ journal: AwaitedVideoPosts)
        async throws(TimelineError)
    {
        guard case .post(let shown) = recorded else { return }
        let author = Caller.user(post.author.rawValue)
        if journal.wasDeleted(post.object) {
            _ = try await service.execute(.deletePost(post: shown.id.rawValue), as: author)
        } else if let now = journal.post(post.object), now.caption != post.caption {
            _ = try await service.execute(.editPost(post: shown.id.rawValue, caption: .some(now.caption)), as: author)
        }
    }
}
