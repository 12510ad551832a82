import TimelineDomain

/// A post deleted or removed is gone from the read models, but who could see it still decides
/// who is told it went (a stream's `delete`): its facts as it was posted (author, visibility,
/// addressees; its hashtags as last edited) are read from its stream in the log, as its edit
/// history is, and judged by `Privacy` as the live post was.
extension TimelineService {
    /// Post `id` as the log last recorded it (nil: no `PostAdded` of it, e.g. erased since).
    func gonePost(_ id: PostID, _ view: ReadView) throws -> PostRecord? {
        if let last = lastGonePost.withLock({ $0 }), last.id == id { return last.record }
        var record: PostRecord?
        for envelope in try log.stream(StreamName.post(id), types: [.postAdded, .postEdited], view.txn) {
            switch envelope.event {
            case .postAdded(let e):
                record = PostRecord(
                    id: e.postId, author: e.authorId, image: e.imageId, caption: nil, hashtags: e.hashtags,
                    createdAt: envelope.timestamp, visibility: e.visibility, addressees: e.addressees)
            case .postEdited(let e):
                record?.hashtags = e.hashtags
            default: break
            }
        }
        lastGonePost.withLock { $0 = (id, record) }
        return record
    }

    /// Comment `id` on `post` as the log recorded it, deleted since or not: its author and the
    /// comment it replies to (nil: no `CommentAdded` of it, e.g. erased since).
    public func recordedComment(_ id: CommentID, on post: PostID) throws(TimelineError)
        -> (author: UserID, replyTo: CommentID?)?
    {
        try read { view in
            for envelope in try log.stream(StreamName.post(post), types: [.commentAdded], view.txn) {
                if case .commentAdded(let e) = envelope.event, e.commentId == id { return (e.authorId, e.replyTo) }
            }
            return nil
        }
    }
}
