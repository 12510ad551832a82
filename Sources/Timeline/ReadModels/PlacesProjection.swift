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

    init(_ env: Environment, prefix: String) throws {
        places = try Table(env, prefix + "places")
        cells = try Table(env, prefix + "placeCells")
        placesByAuthor = try Table(env, prefix + "placesByAuthor")
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

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postPlaced(let e):
            guard let place = e.place else { return }  // its author was erased: nothing to index
            try unindex(e.postId, txn)
            try places.put(e.postId, (e.authorId, place), txn)
            try cells.put((PlaceGrid.cell(of: place), e.postId), (), txn)
            try placesByAuthor.put((e.authorId, e.postId), (), txn)
        case .postDeleted(let e):
            try unindex(e.postId, txn)
        case .postRemoved(let e):
            try unindex(e.postId, txn)
        case .userErased(let e):
            // Erasure deletes the posts first; this makes sure no place of theirs stays.
            for post in try placesByAuthor.members(of: e.userId, txn) { try unindex(post, txn) }
        case .userCreated, .profileUpdated, .signedIn, .signedOut, .signedOutEverywhere, .signInFailed, .postAdded,
             .postImageProcessed, .commentAdded, .commentDeleted, .likeAdded, .likeRemoved, .followed,
             .unfollowed, .postReported, .reportsDismissed, .passwordResetRequested, .passwordChanged,
             .emailChanged, .bookmarked, .unbookmarked, .blocked, .unblocked, .muted, .unmuted, .activityRead, .postEdited, .postMarkedSensitive,
             .followRequested, .followRequestRejected, .followRequestWithdrawn, .postNotificationsOn, .postNotificationsOff, .mediaUploaded, .mediaUpdated, .mediaDeleted,
             .roleGranted, .roleRevoked, .userReported, .userReportsDismissed, .userSuspended, .userUnsuspended,
             .appRegistered, .appAuthorized, .appTokenIssued, .activityDismissed, .pushSubscribed, .pushUnsubscribed: break
        }
    }
}

/// postId → its author ‖ latitude ‖ longitude ‖ name? (the place, and whose post it is).
enum PostPlaces: TableLayout {
    static func key(_ post: PostID) -> [UInt8] { Array(post.rawValue.utf8) }
    static func encode(_ value: (author: UserID, place: Place)) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.string(value.author.rawValue); w.double(value.place.latitude); w.double(value.place.longitude)
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
