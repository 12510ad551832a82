import LMDB
import TimelineDomain

/// Which post each image belongs to, so that the `image` query can answer a variant of a
/// post's image given any of its ids (the `full` one, which is the post's `image`, or the one a
/// processed old post was made from). A projection of its own, so that a database written
/// before it fills it by replaying the log once (its checkpoint starts at 0).
struct PostImagesProjection: Projection {
    let name = ProjectionName.postImages
    let imagePosts: Table<Members<ImageID, PostID>>  // two posts of the same photo share its ids
    let postImages: Table<Members<PostID, ImageID>>  // to forget a deleted post's images
    var databases: [Database] { [imagePosts.database, postImages.database] }

    init(_ env: Environment, prefix: String) throws {
        imagePosts = try Table(env, prefix + "imagePosts")
        postImages = try Table(env, prefix + "postImages")
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

    private func add(_ images: [ImageID], of post: PostID, _ txn: Transaction) throws {
        for image in images {
            try imagePosts.put((image, post), (), txn)
            try postImages.put((post, image), (), txn)
        }
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postAdded(let e):
            try add([e.imageId] + (e.variants?.all ?? []), of: e.postId, txn)
        case .postImageProcessed(let e):
            try add([e.sourceImageId] + e.variants.all, of: e.postId, txn)
        case .postDeleted(let e):
            try remove(e.postId, txn)
        case .postRemoved(let e):
            try remove(e.postId, txn)
        case .userCreated, .profileUpdated, .signedIn, .signedOut, .signedOutEverywhere, .signInFailed, .postPlaced, .commentAdded,
             .commentDeleted, .likeAdded, .likeRemoved, .followed, .unfollowed, .postReported,
             .reportsDismissed, .userErased, .passwordResetRequested, .passwordChanged, .emailChanged,
             .bookmarked, .unbookmarked, .blocked, .unblocked, .muted, .unmuted, .activityRead, .postEdited, .postMarkedSensitive,
             .followRequested, .followRequestRejected, .followRequestWithdrawn: break
        }
    }

    /// Forgets a deleted or removed post's images.
    private func remove(_ post: PostID, _ txn: Transaction) throws {
        for image in try postImages.deleteAll(in: post, txn) { try imagePosts.delete((image, post), txn) }
    }
}
