import LMDB
import TimelineDomain

/// Where posts were taken, and the cell index `nearby` searches (see `PlaceGrid`).
///
/// A place is personal data: a deleted post leaves every table here (`unindex`), and so does
/// every post of an erased user. Replayed after an erasure, a `PostPlaced` whose author's key
/// is gone reads without its place and indexes nothing.
struct PlacesProjection: Projection {
    let name = ProjectionName.places
    let places: Table<PostPlaces>
    let cells: Table<CellPosts>
    let placesByAuthor: Table<AuthorPlacedPosts>
    var databases: [Database] { [places.database, cells.database, placesByAuthor.database] }

    private(set) var handlers = EventHandlers()

    init(_ env: Environment, prefix: String) throws {
        places = try Table(env, prefix + "places")
        cells = try Table(env, prefix + "placeCells")
        placesByAuthor = try Table(env, prefix + "placesByAuthor")
        handlers = Self.handlers(of: self)
    }

    /// The place of `post`, if it has one.
    func place(of post: PostID, _ txn: Transaction) throws -> Place? { try places.get(post, txn)?.place }

    /// Takes `post` out of every table here (nothing if it has no place). What a post's
    /// deletion does, and what any other removal of a post must call.
    func unindex(_ post: PostID, _ txn: Transaction) throws {
        guard let (author, place) = try places.get(post, txn) else { return }
        try cells.delete((PlaceGrid.cell(of: place), post), txn)
        try placesByAuthor.delete((author, post), txn)
        try places.delete(post, txn)
    }

    private static func handlers(of projection: Self) -> EventHandlers {
        var handlers = EventHandlers()
        handlers.on(.postPlaced) { (e: PostPlaced, _, txn) in
            guard let place = e.place else { return }  // its author was erased: nothing to index
            try projection.unindex(e.postId, txn)
            try projection.places.put(e.postId, (e.authorId, place), txn)
            try projection.cells.put((PlaceGrid.cell(of: place), e.postId), (), txn)
            try projection.placesByAuthor.put((e.authorId, e.postId), (), txn)
        }
        handlers.on(.postDeleted) { (e: PostDeleted, _, txn) in try projection.unindex(e.postId, txn) }
        handlers.on(.postRemoved) { (e: PostRemoved, _, txn) in try projection.unindex(e.postId, txn) }
        handlers.on(.userErased) { (e: UserErased, _, txn) in
            // Erasure deletes the posts first; this makes sure no place of theirs stays.
            for post in try projection.placesByAuthor.members(of: e.userId, txn) { try projection.unindex(post, txn) }
        }
        return handlers
    }
}

/// postId → its author ‖ latitude ‖ longitude ‖ name? (the place, and whose post it is).
enum PostPlaces: TableLayout {
    static func key(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func encode(_ value: (author: UserID, place: Place)) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.string(value.author.rawValue)
        w.double(value.place.latitude)
        w.double(value.place.longitude)
        w.optionalString(value.place.name)
        return w.bytes
    }
    static func decode(_ bytes: [UInt8]) throws -> (author: UserID, place: Place) {
        var r = ByteReader(bytes)
        let author = UserID(try r.string())
        let place = Place(latitude: try r.double(), longitude: try r.double(), name: try r.optionalString())
        try r.expectEnd()
        return (author, place)
    }
}

/// A cell's posts, `cell ‖ 0 ‖ postId` → nothing (`PlaceGrid.cell(of:)`): a prefix scan of
/// `cell ‖ 0` walks a cell's posts in id order.
typealias CellPosts = Members<String, PostID>

/// An author's placed posts, `author ‖ 0 ‖ postId` → nothing (what erasure sweeps).
typealias AuthorPlacedPosts = Members<UserID, PostID>
