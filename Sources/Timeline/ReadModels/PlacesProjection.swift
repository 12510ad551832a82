import LMDB
import TimelineDomain

/// Where posts were taken, and the cell index `nearby` searches (see `PlaceGrid`).
///
/// A place is personal data: a deleted post leaves every table here (`unindex`), and so does
/// every post of an erased user. Replayed after an erasure, a `PostPlaced` whose author's key
/// is gone reads without its place and indexes nothing.
struct PlacesProjection: Projection {
    let name = ProjectionName.places
    let places: Database          // postId → author ‖ latitude ‖ longitude ‖ name?
    let cells: Database           // cell ‖ 0 ‖ postId → () (`PlaceGrid.cell(of:)`)
    let placesByAuthor: Database  // author ‖ 0 ‖ postId → ()
    var databases: [Database] { [places, cells, placesByAuthor] }

    init(_ env: Environment, prefix: String) throws {
        places = try env.database(prefix + "places", placement: .derived)
        cells = try env.database(prefix + "placeCells", placement: .derived)
        placesByAuthor = try env.database(prefix + "placesByAuthor", placement: .derived)
    }

    /// The place of `post`, if it has one.
    func place(of post: PostID, _ txn: Transaction) throws -> Place? {
        try txn.get(places, Array(post.rawValue.utf8)).map { try Self.decode($0).place }
    }

    /// Takes `post` out of every table here (nothing if it has no place). What a post's
    /// deletion does, and what any other removal of a post must call.
    func unindex(_ post: PostID, _ txn: Transaction) throws {
        let key = Array(post.rawValue.utf8)
        guard let value = try txn.get(places, key) else { return }
        let (author, place) = try Self.decode(value)
        try txn.delete(cells, Key.make(PlaceGrid.cell(of: place), post.rawValue))
        try txn.delete(placesByAuthor, Key.make(author.rawValue, post.rawValue))
        try txn.delete(places, key)
    }

    func fold(_ envelope: EventEnvelope, _ txn: Transaction) throws {
        switch envelope.event {
        case .postPlaced(let e):
            guard let place = e.place else { return }  // its author was erased: nothing to index
            try unindex(e.postId, txn)
            try txn.put(places, Array(e.postId.rawValue.utf8), Self.encode(author: e.authorId, place: place))
            try txn.put(cells, Key.make(PlaceGrid.cell(of: place), e.postId.rawValue), [])
            try txn.put(placesByAuthor, Key.make(e.authorId.rawValue, e.postId.rawValue), [])
        case .postDeleted(let e):
            try unindex(e.postId, txn)
        case .postRemoved(let e):
            try unindex(e.postId, txn)
        case .userErased(let e):
            // Erasure deletes the posts first; this makes sure no place of theirs stays.
            var posts: [PostID] = []
            try txn.forEachID(in: placesByAuthor, under: e.userId.rawValue) { posts.append(PostID($0)) }
            for post in posts { try unindex(post, txn) }
        default:
            throw UnroutedEvent(projection: name, type: envelope.type)
        }
    }

    /// A `places` value: author ‖ latitude ‖ longitude ‖ name?.
    static func encode(author: UserID, place: Place) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.string(author.rawValue); w.double(place.latitude); w.double(place.longitude); w.optionalString(place.name)
        return w.bytes
    }

    /// What `encode` wrote.
    static func decode(_ bytes: [UInt8]) throws -> (author: UserID, place: Place) {
        var r = ByteReader(bytes)
        let author = UserID(try r.string())
        let place = Place(latitude: try r.double(), longitude: try r.double(), name: try r.optionalString())
        try r.expectEnd()
        return (author, place)
    }
}
