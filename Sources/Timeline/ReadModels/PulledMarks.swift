import LMDB
import TimelineDomain

/// The viewer's like and bookmark of a post met by the merge without marks of its own (a
/// pulled author's, a followed tag's), read with one cursor over the viewer's likes and one
/// over their bookmarks. The page's posts come newest first and the viewer's entries lie
/// together, so each cursor only walks back through the viewer's own entries as the page goes
/// down: a post costs a comparison, not a seek (and a page's ids asked upwards seek each).
struct PulledMarks {
    private var likes: MarkWalk
    private var bookmarks: MarkWalk

    init(viewer: UserID, posts: PostsProjection, likes: Cursor, bookmarks: Cursor) {
        self.likes = MarkWalk(cursor: likes, prefix: posts.likesByUser.prefix(viewer))
        self.bookmarks = MarkWalk(cursor: bookmarks, prefix: posts.bookmarks.prefix(viewer))
    }

    mutating func of(_ post: ArraySlice<UInt8>) throws -> ViewerMarks {
        var marks: ViewerMarks = []
        if try likes.holds(post) { marks.insert(.liked) }
        if try bookmarks.holds(post) { marks.insert(.bookmarked) }
        return marks
    }
}

/// One cursor over a viewer's entries (`prefix ‖ post`), asked whether it holds post after
/// post. It keeps the greatest entry not above the last post asked, so a post below it is
/// answered by walking back, usually not at all.
private struct MarkWalk {
    let cursor: Cursor
    let prefix: [UInt8]
    /// The last post asked (`nil`: none yet).
    private var asked: ArraySlice<UInt8>?
    /// The post of the greatest entry not above `asked` (`nil`: the viewer has none there).
    private var below: ArraySlice<UInt8>?

    init(cursor: Cursor, prefix: [UInt8]) {
        self.cursor = cursor
        self.prefix = prefix
    }

    mutating func holds(_ post: ArraySlice<UInt8>) throws -> Bool {
        guard let asked, !asked.lexicographicallyPrecedes(post) else { return try seek(post) }
        self.asked = post
        while let entry = below, post.lexicographicallyPrecedes(entry) { below = try viewersPost(cursor.previous()) }
        return below?.elementsEqual(post) == true
    }

    /// Positions the walk at `post` from anywhere (the first post asked, or one above the last).
    private mutating func seek(_ post: ArraySlice<UInt8>) throws -> Bool {
        asked = post
        var key = prefix
        key.append(contentsOf: post)
        let atLeast = try cursor.seek(atLeast: key)
        if let atLeast, atLeast.key == key {
            below = post
            return true
        }
        below = viewersPost(try atLeast == nil ? cursor.last() : cursor.previous())
        return false
    }

    /// The post of `entry`, or `nil` when it is not the viewer's.
    private func viewersPost(_ entry: Cursor.Entry?) -> ArraySlice<UInt8>? {
        guard let (key, _) = entry, key.count > prefix.count, key.starts(with: prefix) else { return nil }
        return key[prefix.count...]
    }
}
