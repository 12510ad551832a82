import LMDB
import Sodium
import TimelineDomain

/// Images, opened with their owner's key.
extension ReadView {
    /// The id of `variant` of the post image `id` (`id` itself when it has no variants).
    func variant(_ variant: ImageVariant, of id: ImageID) throws -> ImageID {
        guard let post = try models.postImages.post(of: id, txn), let variants = try self.post(post)?.variants else { return id }
        return variants[variant]
    }

    /// An image of a live post or profile photo, opened with its owner's key (`not_found` once
    /// nothing live shows it, or the owner is erased).
    func image(_ id: ImageID, keys: KeyStore) throws -> StoredImage {
        guard let stored = try models.images.get(id, txn), try models.isInUse(id, owner: stored.owner, txn),
              let mediaType = stored.mediaType, let secret = try keys.key(for: stored.owner),
              let bytes = Sodium.open(stored.sealed, key: secret, context: StoredImages.key(id))
        else { throw TimelineError.notFound("image", id.rawValue) }
        return StoredImage(id: id, mediaType: mediaType, bytes: bytes)
    }
}
