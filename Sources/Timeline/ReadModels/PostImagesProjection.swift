import LMDB
import TimelineDomain

/// Which post each image belongs to, so that the `image` query can answer a variant of a
/// post's image given any of its ids (the `full` one, which is the post's `image`, or the one a
/// processed old post was made from). A projection of its own, so that a database written
/// before it fills it by replaying the log once (its checkpoint starts at 0).
struct PostImagesProjection: Projection {
    let name = ProjectionName.postImages
    let imagePosts: Database  // imageId ‖ 0 ‖ postId → () (two posts of the same photo share its ids)
    let postImages: Database  // postId ‖ 0 ‖ imageId → () (to forget a deleted post's images)
    var databases: [Database] { [imagePosts, postImages] }

    init(_ env: Environment, prefix: String) throws {
        imagePosts = try env.database(prefix + "imagePosts", placement: .derived)
        postImages = try env.database(prefix + "postImages", placement: .derived)
    }

    /// The first post (in id order) that has the image `id`.
    func post(of id: ImageID, _ txn: Transaction) throws -> PostID? {
        var found: PostID?
        try txn.scan(imagePosts, prefix: Key.prefix(id.rawValue)) { key, _ in
            found = PostID(Key.suffix(key, after: Key.prefix(id.rawValue)))
            return false
        }
        return found
    }

    private func add(_ images: [ImageID], of post: PostID, _ txn: Transaction) throws {
        for image in images {
            try txn.put(imagePosts, Key.make(image.rawValue, post.rawValue), [])
            try txn.put(postImages, Key.make(post.rawValue, image.rawValue), [])
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
        default:
            throw UnroutedEvent(projection: name, type: envelope.type)
        }
    }

    /// Forgets a deleted or removed post's images.
    private func remove(_ post: PostID, _ txn: Transaction) throws {
        let prefix = Key.prefix(post.rawValue)
        for key in try txn.deleteAll(postImages, prefix: prefix) {
            try txn.delete(imagePosts, Key.make(Key.suffix(key, after: prefix), post.rawValue))
        }
    }
}
