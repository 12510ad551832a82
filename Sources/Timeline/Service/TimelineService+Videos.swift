import FFmpeg
import Foundation
import TimelineDomain

// Videos (`Features/Videos.swift`): an upload is stored in the video store and recorded
// (`uploadVideo`); the video worker (`VideoWorker`, or `processPendingVideos`) transcodes each
// recorded upload not done yet and records the result (`finishVideo`); the transcoded file is
// served to whom its post shows (`videoFile`).

extension TimelineService {
    /// Uploads the video file at `path` (an HTTP upload, in `uploadSpoolDirectory`: it is moved
    /// into the video store) as `caller`, with an optional `alt` text: the media, processing.
    /// Refused at once (and the file removed): over `Options.maxVideoBytes`, or not an MP4,
    /// MOV or WebM file by its first bytes.
    public func uploadVideo(file path: String, alt: String?, as caller: Caller, origin: String? = nil)
        async throws(TimelineError) -> CommandResult
    {
        var given = Prepared()
        do {
            try checkVideo(size: VideoStore.size(of: path) ?? 0, head: Self.head(of: path), alt: alt)
            given.stagedVideo = try videos.stage(moving: path)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        return try await execute(.uploadVideo(video: "", alt: alt), as: caller, origin: origin, given: given)
    }

    /// Where large HTTP uploads (videos, archives to import) are written while they arrive:
    /// beside the database, so keeping one is a rename. What a crash leaves there is swept.
    public var uploadSpoolDirectory: String {
        try? videos.prepare()
        return videos.spoolDirectory
    }

    /// Where archives being imported are kept while their import runs (`DB/imports/`).
    public var importDirectory: String {
        let directory = databasePath + "/imports"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The most bytes a video upload may have (`Options.maxVideoBytes`).
    public var maxVideoBytes: Int { options.maxVideoBytes }

    /// Stores a JSON command's video (`uploadVideo` `video`, base64) as an upload, before deciding.
    func stageVideo(base64: String, alt: String?) throws(TimelineError) -> StagedVideo {
        // At most 4 characters for 3 bytes: a larger text is refused before it is decoded.
        guard base64.utf8.count / 4 * 3 <= options.maxVideoBytes + 3 else { throw tooLarge() }
        guard let data = Data(base64Encoded: base64) else {
            throw TimelineError.invalid("video", "video must be base64")
        }
        let bytes = [UInt8](data)
        try checkVideo(size: bytes.count, head: Array(bytes.prefix(16)), alt: alt)
        return try videos.stage(bytes: bytes)
    }

    /// Refuses at once what cannot be a video taken here (the transcoder judges the rest).
    private func checkVideo(size: Int, head: [UInt8], alt: String?) throws(TimelineError) {
        if let alt { _ = try Validation.alt(alt) }
        guard size <= options.maxVideoBytes else { throw tooLarge() }
        guard VideoStore.isVideoContainer(head) else {
            throw TimelineError(.unsupportedMediaType, "video must be an MP4, MOV or WebM file", field: "video")
        }
    }

    private func tooLarge() -> TimelineError {
        TimelineError(.payloadTooLarge, "a video may have at most \(options.maxVideoBytes) bytes", field: "video")
    }

    /// The first bytes of the file at `path` (none when it cannot be read).
    static func head(of path: String) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: 16)) ?? Data())
    }

    /// The video uploads recorded and not transcoded yet, oldest first, with their upload's name.
    package func videosProcessing() throws(TimelineError) -> [(media: MediaID, upload: String)] {
        try read { view in try view.models.posts.videosProcessing(view.txn) }
    }

    /// Transcodes every recorded video upload not done yet, one at a time, and records each
    /// result (`timeline serve` runs a `VideoWorker` instead; this is for the library and tests).
    public func processPendingVideos() async throws(TimelineError) {
        for (media, upload) in try videosProcessing() { try await processVideo(media, upload: upload) }
    }

    /// Transcodes the upload `upload` of `media` (on a thread of its own: FFmpeg's work blocks
    /// it for as long as the video takes) and records what came of it. A video the transcoder
    /// refuses is recorded as failed, with the reason; a media deleted meanwhile leaves nothing.
    /// One another process is transcoding (or has finished: its upload is gone) is passed over.
    func processVideo(_ media: MediaID, upload: String) async throws(TimelineError) {
        let hold = VideoStore.JobLock(videos.upload(upload))
        defer { withExtendedLifetime(hold) {} }
        let finished: FinishedVideo
        if hold != nil, videos.attempts(upload) >= 2 {
            finished = .failed("the video could not be transcoded (it stopped the transcoder twice)")
        } else if hold != nil {
            videos.beginAttempt(upload)
            finished = await withCheckedContinuation { (done: CheckedContinuation<FinishedVideo, Never>) in
                let thread = Thread { done.resume(returning: self.transcode(self.videos.upload(upload), media)) }
                thread.name = "timeline video"
                thread.start()
            }
        } else if FileManager.default.fileExists(atPath: videos.upload(upload)) {
            return
        } else {
            // Lost (or just finished by another process, which recorded it: then this is refused).
            finished = .failed("the upload was lost before it was transcoded")
        }
        var given = Prepared()
        given.finishedVideo = finished
        do {
            _ = try await execute(.finishVideo(media: media.rawValue), as: .operator, given: given)
        } catch  where error.code == .notFound || error.code == .invalidArgument {
            // Deleted while it was transcoded, or finished already: nothing of it is kept.
            if case .notFound = error.code { try? FileManager.default.removeItem(atPath: videos.file(media)) }
        }
        try? FileManager.default.removeItem(atPath: videos.upload(upload))
        videos.endAttempts(upload)
    }

    /// The video file at `input` transcoded into `media`'s file in the store, and its poster
    /// frame through the image pipeline; or why not.
    private func transcode(_ input: String, _ media: MediaID) -> FinishedVideo {
        let partial = videos.partialFile(media)
        defer { try? FileManager.default.removeItem(atPath: partial) }
        var limits = VideoTranscoder.Limits()
        limits.maxSeconds = options.maxVideoSeconds
        do {
            try videos.prepare()
            let made = try Result { () throws(VideoError) in
                try VideoTranscoder.transcode(input: input, output: partial, limits: limits)
            }.get()
            let poster = try ImagePipeline.poster(rgb: made.posterRGB, width: made.width, height: made.height)
            guard let bytes = VideoStore.size(of: partial), rename(partial, videos.file(media)) == 0 else {
                return .failed("the video could not be stored")
            }
            let file = VideoFile(
                durationMilliseconds: Int((made.seconds * 1000).rounded()),
                millihertz: Int((made.fps * 1000).rounded()),
                bytes: bytes, hasAudio: made.hasAudio)
            return .ready(width: made.width, height: made.height, video: file, poster: poster)
        } catch let error as VideoError {
            return .failed(error.description)
        } catch let error as TimelineError {
            return .failed(error.message)
        } catch {
            return .failed("the video could not be processed")
        }
    }

    /// The transcoded video of media `id` as `viewer` may have it: its file's path and size.
    /// `not_found` unless it is ready and its post or story shows to `viewer` (an upload in
    /// neither yet: to its uploader alone).
    public func videoFile(_ id: String, viewer: UserID?) throws(TimelineError) -> (path: String, bytes: Int) {
        let media = MediaID(id)
        try read { view in
            guard IdentifierSyntax.isValid(id), let stored = try view.models.posts.media.get(media, view.txn),
                case .ready = stored.record.video
            else { throw TimelineError.notFound("video", id) }
            if let post = stored.record.post {
                do { try view.requireVisiblePost(post, viewer: viewer) } catch {
                    throw TimelineError.notFound("video", id)
                }
            } else if let storyID = stored.record.story {
                // A story's: while it shows, to whom its author's posts reach (as its photo).
                guard let story = try view.story(storyID), story.isShown(at: view.now),
                    try view.privacy(for: viewer).mayShow(postsBy: story.author, on: .post)
                else { throw TimelineError.notFound("video", id) }
            } else if viewer != stored.record.uploader {
                throw TimelineError.notFound("video", id)
            }
        }
        let path = videos.file(media)
        guard let size = VideoStore.size(of: path) else { throw TimelineError.notFound("video", id) }
        return (path, size)
    }

    /// Removes from the video store what the log no longer names, last written more than
    /// `minimumAge` seconds ago (an hour by default): the uploads of deleted or finished media,
    /// the files of deleted videos, and what a crash left half made. The `VideoWorker` runs it
    /// when it starts and every hour.
    public func sweepVideoStore(minimumAge: TimeInterval = 3600) throws(TimelineError) {
        let (uploads, videos) = try read { view -> (Set<String>, Set<MediaID>) in
            let uploads = Set(try view.models.posts.videosProcessing(view.txn).map(\.upload))
            var videos = Set<MediaID>()
            try view.txn.withCursor(view.models.posts.media.database) { cursor in
                var entry = try cursor.first()
                while let (_, value) = entry {
                    let stored = try MediaRecords.decode(Array(value))
                    if stored.record.video != nil { videos.insert(stored.record.id) }
                    entry = try cursor.next()
                }
            }
            return (uploads, videos)
        }
        let importing = videosBeingImported.withLock { $0 }
        self.videos.sweep(uploads: uploads, videos: videos.union(importing), minimumAge: minimumAge)
    }
}

/// A video an import brought in (`TimelineService.importedVideo`): transcoded into the video
/// store, its poster frame stored; the events that record it are appended with its post.
package struct ImportedVideo: Sendable {
    /// Its media id (its file's name in the store).
    package let media: MediaID
    /// Its size after rotation.
    package let width: Int, height: Int
    /// Its poster frame's variants, stored, and their blurhash.
    package let poster: ImageVariants, blurhash: String
    /// The transcoded file, and the size of what was imported.
    package let file: VideoFile, bytes: Int

    /// `VideoUploaded` (of no upload: it was the export's) and `VideoProcessed`, for `uploader`.
    package func events(uploader: UserID) -> [Event] {
        [
            .videoUploaded(VideoUploaded(mediaId: media, uploaderId: uploader, upload: "", bytes: bytes, alt: nil)),
            .videoProcessed(
                VideoProcessed(
                    mediaId: media, uploaderId: uploader, width: width, height: height, video: file, poster: poster,
                    blurhash: blurhash))
        ]
    }
}

extension TimelineService {
    /// Transcodes the video file at `path` (an import's) as a new video of `owner`'s, its
    /// poster stored sealed with their key; `invalid_argument` with the transcoder's reason
    /// when it is refused. The events come with the post that holds it (`ImportedVideo.events`).
    /// Until the import says it is done with them (`importedVideosRecorded`), the video store's
    /// sweep keeps their files, however long the import takes.
    package func importedVideo(_ path: String, owner: UserID) throws(TimelineError) -> ImportedVideo {
        let media = MediaID(newID())
        videosBeingImported.withLock { _ = $0.insert(media) }
        switch transcode(path, media) {
        case .failed(let reason): throw TimelineError.invalid("video", reason)
        case let .ready(width, height, file, poster):
            do {
                let variants = try importBatch { batch in
                    ImageVariants(
                        full: try batch.storeImage(poster.full, owner: owner),
                        feed: try batch.storeImage(poster.feed, owner: owner),
                        thumb: try batch.storeImage(poster.thumb, owner: owner))
                }
                return ImportedVideo(
                    media: media, width: width, height: height, poster: variants, blurhash: poster.blurhash,
                    file: file, bytes: VideoStore.size(of: path) ?? file.bytes)
            } catch {
                try? FileManager.default.removeItem(atPath: videos.file(media))
                throw TimelineService.translate(error)
            }
        }
    }

    /// The import that transcoded `media` (`importedVideo`) ended: recorded or not, their files
    /// are the sweep's to judge again.
    package func importedVideosRecorded(_ media: [MediaID]) {
        videosBeingImported.withLock { $0.subtract(media) }
    }
}

extension TimelineService {
    /// Whether `head` (a file's first bytes) is an MP4, MOV or WebM file's: what an upload that
    /// may be a photo or a video (Mastodon's one media endpoint) is told apart by.
    public static func isVideo(head: [UInt8]) -> Bool { VideoStore.isVideoContainer(head) }

    /// Whether the file at `path` is an MP4, MOV or WebM file's, by its first bytes.
    public static func isVideo(fileAt path: String) -> Bool { isVideo(head: head(of: path)) }
}
