import LMDB
import TimelineDomain

/// The viewer's like and bookmark of a pulled author's post, read with one cursor over the
/// viewer's likes and one over their bookmarks: the page's posts come newest first and the
/// viewer's entries lie together, so after the first seek LMDB finds the next on the same
/// leaf page instead of descending the tree again for each post.
struct PulledMarks {
    let likesPrefix: [UInt8]
    let bookmarksPrefix: [UInt8]
    let likes: Cursor
    let bookmarks: Cursor

    init(viewer: UserID, posts: PostsProjection, likes: Cursor, bookmarks: Cursor) {
        likesPrefix = posts.likesByUser.prefix(viewer)
        bookmarksPrefix = posts.bookmarks.prefix(viewer)
        self.likes = likes
        self.bookmarks = bookmarks
    }

    func of(_ post: ArraySlice<UInt8>) throws -> ViewerMarks {
        var marks: ViewerMarks = []
        if try Self.holds(likes, likesPrefix, post) { marks.insert(.liked) }
        if try Self.holds(bookmarks, bookmarksPrefix, post) { marks.insert(.bookmarked) }
        return marks
    }

    private static func holds(_ cursor: Cursor, _ prefix: [UInt8], _ post: ArraySlice<UInt8>) throws -> Bool {
        var key = prefix
        key.append(contentsOf: post)
        return try cursor.seek(atLeast: key)?.key == key
    }
}
