import LMDB
import Sodium
import TimelineDomain

/// Images, opened with their owner's key.
extension ReadView {
    /// The id of `variant` of the photo whose image `id` is: an album's photo, a post's one
    /// photo, or a photo not yet in a post (`id` itself when it has no variants).
    func variant(_ variant: ImageVariant, of id: ImageID) throws -> ImageID {
        if let post = try models.postImages.post(of: id, txn), let stored = try models.posts.posts.get(post, txn) {
            let photo = stored.album.first { $0.variants.all.contains(id) }?.variants ?? stored.record.variants
            return photo?[variant] ?? id
        }
        var media: MediaID?
        try models.postImages.imageMedia.forEach(in: id, txn) { found, _ in
            media = found
            return false
        }
        guard let media, let stored = try models.posts.media.get(media, txn) else { return id }
        return stored.record.variants[variant]
    }

    /// An image of a live post, story or profile photo as `viewer` may have it: a photo only
    /// followers-only posts (or posts of a locked account: `Privacy.isForFollowers`) show is `not_found` to anyone who may see none of them, as they
    /// are (one photo posted twice by its author is one image, shown by either post). A photo
    /// uploaded for a post not yet made (no post, no profile photo shows it) is its
    /// uploader's alone: `not_found` to everyone else, as an unknown id.
    func image(_ id: ImageID, keys: KeyStore, viewer: UserID?) throws -> StoredImage {
        var restricted = false
        var shown = true
        var inPost = false
        let privacy = try privacy(for: viewer)
        try models.postImages.imagePosts.forEach(in: id, txn) { post, _ in
            inPost = true
            guard let readings = try storedPost(Array(post.rawValue.utf8)) else { return true }
            guard try privacy.isRestricted(readings, by: readings.author) else {
                (restricted, shown) = (false, true)
                return false
            }
            if !restricted { (restricted, shown) = (true, false) }
            if !shown, try privacy.mayShow(post: readings, on: .post) { shown = true }
            return true
        }
        // A story's photo: while a story of it shows (its day, or as a highlight), to whom its
        // author's posts reach (as one post's photo: mutes do not hide it); a locked account's
        // is private to them. (One author's photo: a post of it may show it too.)
        var inStory = false, storyShown = false
        try models.stories.images.forEachMember(in: id, txn) { storyID in
            inStory = true
            guard !storyShown, let story = try story(storyID), story.isShown(at: now),
                try privacy.mayShow(postsBy: story.author, on: .post)
            else { return }
            storyShown = true
            if try isLocked(story.author) { restricted = true }
        }
        if inStory { shown = storyShown || (inPost && shown) }
        guard shown else { throw TimelineError.notFound("image", id.rawValue) }
        var image = try image(id, keys: keys)
        image.restricted = restricted
        if !storyShown, let owner = try onlyUploaded(id) {
            guard viewer == owner else { throw TimelineError.notFound("image", id.rawValue) }
            image.unposted = true
        }
        return image
    }

    /// The uploader of image `id` when only an upload no post holds yet shows it (not a live
    /// post, not its owner's profile photo); `nil` otherwise.
    private func onlyUploaded(_ id: ImageID) throws -> UserID? {
        guard try models.postImages.post(of: id, txn) == nil, try models.postImages.isUnattachedMedia(id, txn),
            let owner = try models.images.get(id, txn)?.owner
        else { return nil }
        return try models.profiles.user(owner, txn)?.profileImages.contains(id) == true ? nil : owner
    }

    /// An image of a live post or profile photo, opened with its owner's key (`not_found` once
    /// nothing live shows it, or the owner is erased), whoever asks.
    func image(_ id: ImageID, keys: KeyStore) throws -> StoredImage {
        guard let stored = try models.images.get(id, txn), try models.isInUse(id, owner: stored.owner, txn),
            let mediaType = stored.mediaType, let secret = try keys.key(for: stored.owner),
            let bytes = Sodium.open(stored.sealed, key: secret, context: StoredImages.key(id))
        else { throw TimelineError.notFound("image", id.rawValue) }
        return StoredImage(id: id, mediaType: mediaType, bytes: bytes)
    }
}
