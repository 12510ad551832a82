import LMDB
import TimelineDomain

/// Which post each image belongs to, so that the `image` query can answer a variant of a
/// post's image given any of its ids (the `full` one, which is the post's `image`, or the one a
/// processed old post was made from), and which unattached media holds it until a post does
/// (every image of an album's photos belongs to the post). A projection of its own, so that a
/// database written before it fills it by replaying the log once (its checkpoint starts at 0).
struct PostImagesProjection: Projection {
    let name = ProjectionName.postImages
    let imagePosts: Table<Members<ImageID, PostID>>  // two posts of the same photo share its ids
    let postImages: Table<Members<PostID, ImageID>>  // to forget a deleted post's images
    let imageMedia: Table<Members<ImageID, MediaID>>  // an unattached photo's images
    let mediaImages: Table<Members<MediaID, ImageID>>
    var databases: [Database] { [imagePosts.database, postImages.database, imageMedia.database, mediaImages.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        imagePosts = try Table(env, prefix + "imagePosts")
        postImages = try Table(env, prefix + "postImages")
        imageMedia = try Table(env, prefix + "imageMedia")
        mediaImages = try Table(env, prefix + "mediaImages")
        handlers = Self.handlers(of: self)
    }

    /// Whether an unattached photo holds image `id`.
    func isUnattachedMedia(_ id: ImageID, _ txn: Transaction) throws -> Bool {
        var found = false
        try imageMedia.forEach(in: id, txn) { _, _ in
            found = true
            return false
        }
        return found
    }

    /// Forgets an unattached photo's images (attached, or deleted); what it held.
    @discardableResult
    func forgetMedia(_ media: MediaID, _ txn: Transaction) throws -> [ImageID] {
        let images = try mediaImages.deleteAll(in: media, txn)
        for image in images { try imageMedia.delete((image, media), txn) }
        return images
    }

    /// The first post (in id order) that has the image `id`.
    func post(of id: ImageID, _ txn: Transaction) throws -> PostID? {
        var found: PostID?
        try imagePosts.forEach(in: id, txn) { post, _ in
            found = post
            return false
        }
        return found
    }

    /// Records `variants` as the images of the unattached media `media`.
    private func remember(_ variants: ImageVariants, of media: MediaID, _ txn: Transaction) throws {
        for image in variants.all {
            try imageMedia.put((image, media), (), txn)
            try mediaImages.put((media, image), (), txn)
        }
    }

    private func add(_ images: [ImageID], of post: PostID, _ txn: Transaction) throws {
        for image in images {
            try imagePosts.put((image, post), (), txn)
            try postImages.put((post, image), (), txn)
        }
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postAdded) { (e: PostAdded, _, txn) in
            // A direct message of text alone has no image.
            var images = (e.imageId.rawValue.isEmpty ? [] : [e.imageId]) + (e.variants?.all ?? [])
            for media in e.media { images += try projection.forgetMedia(media, txn) }
            try projection.add(images, of: e.postId, txn)
        }
        handlers.on(.mediaUploaded) { (e: MediaUploaded, _, txn) in
            try projection.remember(e.variants, of: e.mediaId, txn)
        }
        // A video's poster frame is its images, as a photo's.
        handlers.on(.videoProcessed) { (e: VideoProcessed, _, txn) in
            try projection.remember(e.poster, of: e.mediaId, txn)
        }
        handlers.on(.mediaDeleted) { (e: MediaDeleted, _, txn) in try projection.forgetMedia(e.mediaId, txn) }
        // A video story's poster is the story's image from now on (the stories projection's).
        handlers.on(.storyPosted) { (e: StoryPosted, _, txn) in
            if let video = e.video { try projection.forgetMedia(video.media, txn) }
        }
        handlers.on(.postImageProcessed) { (e: PostImageProcessed, _, txn) in
            try projection.add([e.sourceImageId] + e.variants.all, of: e.postId, txn)
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.remove(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.remove(e.postId, txn) }
        return handlers
    }

    /// Forgets a deleted or removed post's images.
    private func remove(_ post: PostID, _ txn: Transaction) throws {
        for image in try postImages.deleteAll(in: post, txn) { try imagePosts.delete((image, post), txn) }
    }
}
