extension TimelineService {
    /// Deletes every photo uploaded (`uploadMedia`) and not attached to a post within
    /// `MediaPolicy.unattachedLifetime`, a batch (`expireMedia`) at a time; whether any went.
    /// `timeline serve` runs it every ten minutes.
    @discardableResult
    public func expireUnattachedMedia() async throws(TimelineError) -> Bool {
        var any = false
        while case .changed(true) = try await execute(.expireMedia, as: .operator) { any = true }
        return any
    }
}

extension TimelineService {
    /// One of `viewer`'s photos or videos (`uploadMedia`, `uploadVideo`), in a post or not, with a
    /// video's state: `not_found` for anyone else's.
    public func media(_ id: MediaID, viewer: UserID) throws(TimelineError) -> MediaAttachment {
        try read { view in
            guard let media = try view.models.posts.media.get(id, view.txn), media.record.uploader == viewer else {
                throw TimelineError.notFound("media", id.rawValue)
            }
            return media.attachment
        }
    }

    /// Comment `id` as `viewer` sees it: `not_found` when it is gone, or its post or author is
    /// hidden from them.
    public func comment(_ id: CommentID, viewer: UserID?) throws(TimelineError) -> Comment {
        try read { view in
            guard let comment = try view.comment(id) else { throw TimelineError.notFound("comment", id.rawValue) }
            try view.requireVisiblePost(comment.post, viewer: viewer)
            let privacy = try view.privacy(for: viewer)
            guard try privacy.mayShow(comment: comment, on: .post) else {
                throw TimelineError.notFound("comment", id.rawValue)
            }
            return try Presenter(privacy).comment(comment)
        }
    }
}
