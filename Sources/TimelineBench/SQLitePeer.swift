import Foundation
import SQLite
import Timeline

/// The design a competent team would pick for the same app on SQLite, raced in the same run
/// on the same network: `users`, `posts` (with their counts — likes, comments, boosts — and
/// their poll's id, as Timeline's page answers them), `follows` indexed both ways,
/// `likes`, `bookmarks`, `comments`, `boosts`, `post_tags` and a fan-out
/// `feed(user, entry, post, booster)` table `WITHOUT ROWID` holding, as Mastodon's home feed
/// does, every post of everyone a user follows and their own, their followed hashtags' posts,
/// and their followees' boosts (each boosted post once, by its first boost, and not when the
/// post itself is there); WAL, `synchronous=FULL`, the file memory-mapped and a 256 MiB page
/// cache (as LMDB maps its file: the peer at its best).
final class SQLitePeer {
    private let db: SQLiteDatabase

    /// Creates the peer in `directory` and loads the service's current state into it.
    init(directory: String, loading service: TimelineService) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        db = try SQLiteDatabase(path: directory + "/peer.sqlite")
        try db.execute(
            """
            PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
            PRAGMA mmap_size=4294967296; PRAGMA cache_size=-262144;
            CREATE TABLE users(id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE posts(id TEXT PRIMARY KEY, author TEXT NOT NULL, image TEXT NOT NULL, caption TEXT, hashtags TEXT NOT NULL,
                               width INTEGER, height INTEGER, feed_image TEXT, thumb_image TEXT,
                               like_count INTEGER NOT NULL, comment_count INTEGER NOT NULL, created_at INTEGER NOT NULL,
                               boost_count INTEGER NOT NULL DEFAULT 0, poll TEXT) WITHOUT ROWID;
            CREATE TABLE follows(follower TEXT NOT NULL, followee TEXT NOT NULL, PRIMARY KEY(follower, followee)) WITHOUT ROWID;
            CREATE INDEX follows_by_followee ON follows(followee, follower);
            CREATE TABLE likes(post TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY(post, user)) WITHOUT ROWID;
            CREATE TABLE bookmarks(user TEXT NOT NULL, post TEXT NOT NULL, PRIMARY KEY(user, post)) WITHOUT ROWID;
            CREATE TABLE comments(id TEXT PRIMARY KEY, post TEXT NOT NULL, author TEXT NOT NULL, text TEXT NOT NULL,
                                  created_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE boosts(id TEXT PRIMARY KEY, post TEXT NOT NULL, booster TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE post_tags(tag TEXT NOT NULL, post TEXT NOT NULL, PRIMARY KEY(tag, post)) WITHOUT ROWID;
            CREATE TABLE tag_follows(user TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(user, tag)) WITHOUT ROWID;
            CREATE TABLE feed(user TEXT NOT NULL, entry TEXT NOT NULL, post TEXT NOT NULL, booster TEXT, tag TEXT,
                              PRIMARY KEY(user, entry)) WITHOUT ROWID;
            """)
        try db.execute("BEGIN")
        let user = try db.statement("INSERT INTO users VALUES (?, ?, ?)")
        let post = try db.statement("INSERT INTO posts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL)")
        let poll = try db.statement("UPDATE posts SET poll = ?2 WHERE id = ?1")
        let follow = try db.statement("INSERT INTO follows VALUES (?, ?)")
        let like = try db.statement("INSERT INTO likes VALUES (?, ?)")
        let bookmark = try db.statement("INSERT INTO bookmarks VALUES (?, ?)")
        let postTag = try db.statement("INSERT OR IGNORE INTO post_tags VALUES (?, ?)")
        let boost = try db.statement("INSERT INTO boosts VALUES (?, ?, ?)")
        let tagFollow = try db.statement("INSERT INTO tag_follows VALUES (?, ?)")
        try service.forEachPeerRow { row in
            switch row {
            case let .user(id, username, createdAt):
                try user.run([.text(id.rawValue), .text(username), .int(createdAt)])
            case .post(let p):
                try post.run([
                    .text(p.id.rawValue), .text(p.author.rawValue), .text(p.image.rawValue),
                    p.caption.map { .text($0) } ?? .null,
                    .text(p.hashtags.joined(separator: " ")), p.width.map { .int(Int64($0)) } ?? .null,
                    p.height.map { .int(Int64($0)) } ?? .null, p.variants.map { .text($0.feed.rawValue) } ?? .null,
                    p.variants.map { .text($0.thumb.rawValue) } ?? .null,
                    .int(Int64(p.likeCount)), .int(Int64(p.commentCount)), .int(p.createdAt)
                ])
                for tag in p.hashtags { try postTag.run([.text(tag), .text(p.id.rawValue)]) }
            case let .follow(follower, followee):
                try follow.run([.text(follower.rawValue), .text(followee.rawValue)])
            case let .like(post, user):
                try like.run([.text(post.rawValue), .text(user.rawValue)])
            case let .bookmark(user, post):
                try bookmark.run([.text(user.rawValue), .text(post.rawValue)])
            case let .boost(id, post, booster):
                try boost.run([.text(id.rawValue), .text(post.rawValue), .text(booster.rawValue)])
            case let .tagFollow(user, tag):
                try tagFollow.run([.text(user.rawValue), .text(tag)])
            case let .poll(post, id):
                try poll.run([.text(post.rawValue), .text(id.rawValue)])
            }
        }
        // The fan-out: each user's own posts, every post of everyone they follow and of the
        // tags they follow (the newest `tagPostsInFeed` of each), then their own and their followees' boosts of posts not there yet (the first
        // boost of each: SQLite gives a bare column the row of its group's MIN).
        try db.execute(
            """
            INSERT INTO feed SELECT author, id, id, NULL, NULL FROM posts;
            INSERT OR IGNORE INTO feed SELECT f.follower, p.id, p.id, NULL, NULL FROM follows f JOIN posts p ON p.author = f.followee;
            INSERT OR IGNORE INTO feed SELECT t.user, pt.post, pt.post, NULL, t.tag FROM tag_follows t
                JOIN post_tags pt ON pt.tag = t.tag AND pt.post >= COALESCE((SELECT post FROM post_tags
                    WHERE tag = t.tag ORDER BY post DESC LIMIT 1 OFFSET \(Self.tagPostsInFeed - 1)), '');
            CREATE INDEX feed_posts ON feed(user, post);
            CREATE INDEX boosts_by_booster ON boosts(booster, id);
            CREATE INDEX boosts_by_booster_post ON boosts(booster, post);
            UPDATE posts SET boost_count = (SELECT COUNT(*) FROM boosts b WHERE b.post = posts.id)
                WHERE id IN (SELECT post FROM boosts);
            INSERT OR IGNORE INTO feed SELECT f.follower, MIN(b.id), b.post, b.booster, NULL
                FROM (SELECT follower, followee FROM follows UNION ALL SELECT id, id FROM users) f
                JOIN boosts b ON b.booster = f.followee
                WHERE NOT EXISTS (SELECT 1 FROM feed x WHERE x.user = f.follower AND x.post = b.post)
                GROUP BY f.follower, b.post;
            DROP INDEX feed_posts;
            COMMIT; ANALYZE;
            """)
    }

    /// How many of a followed hashtag's newest posts a feed holds (Mastodon's home feed keeps
    /// its newest 400 items): enough for every page the bench reads, and a load that takes
    /// seconds, not the minutes of every tagged post copied to each tag follower.
    static let tagPostsInFeed = 400

    /// `user` follows `tags`: the newest of their posts come into the feed (the home bench's
    /// readers; Timeline writes the newest of each and merges the rest from its list).
    func followTags(_ tags: [String], user: String) throws {
        try db.execute("BEGIN IMMEDIATE")
        let add = try db.statement(
            """
            INSERT OR IGNORE INTO feed SELECT ?1, post, post, NULL, ?2 FROM post_tags WHERE tag = ?2
                ORDER BY post DESC LIMIT \(Self.tagPostsInFeed)
            """)
        for tag in tags {
            try db.statement("INSERT OR IGNORE INTO tag_follows VALUES (?, ?)").run([.text(user), .text(tag)])
            try add.run([.text(user), .text(tag)])
        }
        try db.execute("COMMIT")
    }

    /// `user` follows none of `tags` any more: the posts that came in by them alone leave.
    func unfollowTags(_ tags: [String], user: String) throws {
        try db.execute("BEGIN IMMEDIATE")
        for tag in tags {
            try db.statement("DELETE FROM tag_follows WHERE user = ?1 AND tag = ?2").run([.text(user), .text(tag)])
            try db.statement("DELETE FROM feed WHERE user = ?1 AND tag = ?2").run([.text(user), .text(tag)])
        }
        try db.execute("COMMIT")
    }

    private static let pageSQL = """
        SELECT p.id, p.author, u.username, p.image, p.caption, p.hashtags, p.like_count, p.comment_count, p.created_at,
               p.width, p.height, p.feed_image, p.thumb_image,
               EXISTS(SELECT 1 FROM likes l WHERE l.post = p.id AND l.user = ?1),
               EXISTS(SELECT 1 FROM bookmarks b WHERE b.user = ?1 AND b.post = p.id),
               f.entry, bu.username, p.poll, p.boost_count,
               p.boost_count > 0 AND EXISTS(SELECT 1 FROM boosts x WHERE x.booster = ?1 AND x.post = p.id)
        FROM feed f JOIN posts p ON p.id = f.post JOIN users u ON u.id = p.author
             LEFT JOIN users bu ON bu.id = f.booster
        WHERE f.user = ?1 AND f.entry < ?2 ORDER BY f.entry DESC LIMIT ?3
        """

    /// One timeline page of `user` (posts below `before`), every field of its 20 posts read
    /// (its texts copied out, as Timeline copies its records); returns the seconds taken.
    func timelinePage(user: String, before: String?, limit: Int) throws -> Double {
        var touched = 0
        let seconds = try time {
            try db.execute("BEGIN")  // one snapshot, as Timeline's page reads
            let page = try db.statement(Self.pageSQL)
            // Post ids are ASCII: "\u{7F}" sorts after every one of them.
            try page.bind([.text(user), .text(before ?? "\u{7F}"), .int(Int64(limit))])
            var bytes: [UInt8] = []
            bytes.reserveCapacity(8192)
            while try page.step() {
                for column: Int32 in [0, 1, 2, 3, 4, 5, 11, 12, 15, 16, 17] { page.appendText(column, to: &bytes) }
                for column: Int32 in [6, 7, 8, 9, 10, 13, 14, 18, 19] { touched &+= Int(page.int(column)) }
            }
            touched &+= bytes.count
            try db.execute("COMMIT")
        }
        RawBaselines.keep(touched)
        return seconds
    }

    /// What `command_latency` runs, the SQLite way: a like (insert and count), a comment
    /// (insert and count) or an unlike (delete and count), each one durable transaction.
    enum Command { case like, comment(id: String, text: String), unlike }

    func execute(_ command: Command, user: String, post: String) throws {
        try db.execute("BEGIN IMMEDIATE")
        switch command {
        case .like:
            try db.statement("INSERT OR IGNORE INTO likes VALUES (?, ?)").run([.text(post), .text(user)])
            try db.statement("UPDATE posts SET like_count = like_count + changes() WHERE id = ?").run([.text(post)])
        case let .comment(id, text):
            try db.statement("INSERT INTO comments VALUES (?, ?, ?, ?, ?)")
                .run([
                    .text(id), .text(post), .text(user), .text(text), .int(Int64(Date().timeIntervalSince1970 * 1000))
                ])
            try db.statement("UPDATE posts SET comment_count = comment_count + 1 WHERE id = ?").run([.text(post)])
        case .unlike:
            try db.statement("DELETE FROM likes WHERE post = ? AND user = ?").run([.text(post), .text(user)])
            try db.statement("UPDATE posts SET like_count = like_count - changes() WHERE id = ?").run([.text(post)])
        }
        try db.execute("COMMIT")
    }

    /// A post by `author` tagged #sea, fanned out to every follower's feed and the feeds of the
    /// tag's followers, in one durable transaction.
    func addPost(id: String, author: String, caption: String, image: String) throws {
        try db.execute("BEGIN IMMEDIATE")
        try db.statement("INSERT INTO posts VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, 0, 0, ?, 0, NULL)")
            .run([
                .text(id), .text(author), .text(image), .text(caption), .text("sea"),
                .int(Int64(Date().timeIntervalSince1970 * 1000))
            ])
        try db.statement("INSERT INTO feed VALUES (?1, ?2, ?2, NULL, NULL)").run([.text(author), .text(id)])
        try db.statement("INSERT INTO feed SELECT follower, ?1, ?1, NULL, NULL FROM follows WHERE followee = ?2").run([
            .text(id), .text(author)
        ])
        try db.statement("INSERT INTO post_tags VALUES ('sea', ?)").run([.text(id)])
        try db.statement("INSERT OR IGNORE INTO feed SELECT user, ?1, ?1, NULL, tag FROM tag_follows WHERE tag = 'sea'")
            .run([.text(id)])
        try db.execute("COMMIT")
    }
}
