import Dispatch
import Foundation
import LMDB
import Sodium
import TimelineDomain

/// What `TimelineService.reprocessMedia` did with one post.
public struct ReprocessedPost: Sendable, Equatable {
    /// The post concerned.
    public var post: PostID
    /// Its new variants and size, or why its image was skipped (it stays served as stored).
    public var outcome: Result<PostImageProcessed, TimelineError>
}

/// What a `timeline media reprocess` run did.
public struct MediaReprocessReport: Sendable, Equatable {
    /// Posts whose image went through the pipeline in this run.
    public var processed = 0
    /// Posts whose image could not be processed (reported one by one), left as they were.
    public var failed = 0
    /// Posts that already had variants (made at upload, or by an earlier run).
    public var alreadyProcessed = 0
    /// An empty report.
    public init() {}

    /// Whether the run changed nothing.
    public var changedNothing: Bool { processed == 0 }
}

extension TimelineService {
    /// Sends the images of posts written before the image pipeline (stored as uploaded) through
    /// it: each such post gets its `full`, `feed` and `thumb` variants, sealed with its author's
    /// key like every image of theirs, and a `PostImageProcessed` event (by the operator, in the
    /// post's stream) records what was produced, so a rebuild replays it without decoding
    /// anything. The image a post was made from stays stored and served under its id.
    ///
    /// Resumable and idempotent: the posts are taken in id order, a few per core at a time
    /// (decoded outside the writer, in the image pipeline's pool), and each batch is committed
    /// on its own, so a run that is stopped keeps what it committed and the next run carries on
    /// with the posts still without variants; a post that has them is never processed again,
    /// and its event's id is derived from the post and the image it was made from, so a
    /// concurrent run cannot append it twice. An image that does not decode is reported
    /// (`progress`, the report's `failed`) and skipped. Runs on a standalone database (a
    /// cluster node's log is the replicated one).
    public func reprocessMedia(progress: (@Sendable (ReprocessedPost) -> Void)? = nil) throws(TimelineError)
        -> MediaReprocessReport
    {
        guard replication == nil else {
            throw TimelineError.invalid(
                "cluster", "reprocess images on a standalone database; a cluster node's log is the replicated one")
        }
        var report = MediaReprocessReport()
        var after: PostID?
        let batchSize = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        while true {
            let (sources, last) = try oldPostImages(after: after, limit: batchSize, report: &report)
            var outcomes = [Result<ProcessedImage, TimelineError>](
                repeating: .failure(TimelineError(.internal, "not run")), count: sources.count)
            outcomes.withUnsafeMutableBufferPointer { results in
                let results = UnsafeSendable(results)
                DispatchQueue.concurrentPerform(iterations: sources.count) { index in
                    results.value[index] = sources[index].upload.flatMap { upload in
                        Result { () throws(TimelineError) in try ImagePipeline.post(upload) }
                    }
                }
            }
            let done = try commitProcessed(zip(sources, outcomes).map { ($0.0.post, $0.1) })
            for item in done {
                switch item.outcome {
                case .success: report.processed += 1
                case .failure: report.failed += 1
                }
                progress?(item)
            }
            guard let last else { return report }
            after = last
        }
    }

    /// A post still without variants, with its stored image (or why it cannot be read).
    private struct OldPostImage: Sendable {
        let post: PostRecord
        let upload: Result<ImageUpload, TimelineError>
    }

    /// Up to `limit` posts after `after` (in id order) that have no variants, with their images;
    /// counts those that have them. The second value is where to go on from (`nil`: the end).
    private func oldPostImages(after: PostID?, limit: Int, report: inout MediaReprocessReport) throws(TimelineError)
        -> ([OldPostImage], PostID?)
    {
        let keys = log.keys
        let (found, alreadyProcessed, last) = try read { view -> ([OldPostImage], Int, PostID?) in
            var found: [OldPostImage] = [], alreadyProcessed = 0, last: PostID?
            try view.txn.withCursor(view.models.posts.posts.database) { cursor in
                var entry = try after.map { try cursor.seek(atLeast: Array($0.rawValue.utf8) + [0]) } ?? cursor.first()
                while let (_, value) = entry, found.count < limit {
                    let post = try PostRecords.decode(value).record
                    last = post.id
                    if post.variants != nil {
                        alreadyProcessed += 1
                    } else {
                        let upload: Result<ImageUpload, TimelineError>
                        do {
                            upload = .success(try ImageUpload(bytes: try view.image(post.image, keys: keys).bytes))
                        } catch {
                            upload = .failure(Self.translate(error))
                        }
                        found.append(OldPostImage(post: post, upload: upload))
                    }
                    entry = try cursor.next()
                }
                if case .none = entry { last = nil }
            }
            return (found, alreadyProcessed, last)
        }
        report.alreadyProcessed += alreadyProcessed
        return (found, last)
    }

    /// Records what the pipeline made of each post's image, in one write transaction: stores
    /// the variants and appends a `PostImageProcessed` for each post that still exists and
    /// still has the image it was made from and no variants (a post deleted or processed
    /// meanwhile is left alone, and not reported).
    private func commitProcessed(_ items: [(post: PostRecord, result: Result<ProcessedImage, TimelineError>)])
        throws(TimelineError)
        -> [ReprocessedPost]
    {
        guard !items.isEmpty else { return [] }
        let now = nowMilliseconds
        do {
            return try importBatch { batch -> [ReprocessedPost] in
                var done: [ReprocessedPost] = []
                for (old, result) in items {
                    guard let current = try batch.state.post(old.id), current.variants == nil,
                        current.image == old.image,
                        try batch.hasKey(for: current.author)
                    else { continue }
                    let processed: ProcessedImage
                    switch result {
                    case .failure(let error):
                        done.append(ReprocessedPost(post: old.id, outcome: .failure(error)))
                        continue
                    case .success(let image): processed = image
                    }
                    let variants = ImageVariants(
                        full: try batch.storeImage(processed.full, owner: current.author),
                        feed: try batch.storeImage(processed.feed, owner: current.author),
                        thumb: try batch.storeImage(processed.thumb, owner: current.author))
                    let event = PostImageProcessed(
                        postId: current.id, authorId: current.author, sourceImageId: current.image,
                        width: processed.width, height: processed.height, variants: variants)
                    let id = EventID(
                        "media-"
                            + hex(
                                Sodium.hash(Array("\(current.id.rawValue)\0\(current.image.rawValue)".utf8), length: 16)
                            ))
                    _ = try batch.append(
                        .postImageProcessed(event), id: id, timestamp: now, actor: EventEnvelope.systemActor,
                        correlationId: "media-reprocess")
                    done.append(ReprocessedPost(post: current.id, outcome: .success(event)))
                }
                return done
            }
        } catch {
            throw Self.translate(error)
        }
    }
}

/// A value handed to concurrent iterations that each touch their own part of it.
private struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
