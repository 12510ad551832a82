import Synchronization
import Timeline
import TimelineDomain

/// The Mastodon API's ids: every object it shows is named by its `NumericID`, and every id a
/// client sends is one, mapped back to the native id here — the one place either way. An
/// answer's ids are remembered, so an object named many times in it is read once.
final class MastodonIDs: Sendable {
    private let service: TimelineService
    private let known = Mutex<[NumberedObject: NumericID]>([:])

    /// The ids of `service`'s objects.
    init(_ service: TimelineService) { self.service = service }

    /// The id of `object`, as the answer writes it.
    func id(_ object: NumberedObject) throws(TimelineError) -> String {
        if let id = known.withLock({ $0[object] }) { return id.description }
        let id = try service.numericID(of: object)
        known.withLock { $0[object] = id }
        return id.description
    }

    /// Reads the ids of `objects` in one snapshot (a page's), for `id(_:)` to find.
    func prefetch(_ objects: some Sequence<NumberedObject>) throws(TimelineError) {
        let missing = known.withLock { known in objects.filter { known[$0] == nil } }
        guard !missing.isEmpty else { return }
        let found = try service.numericIDs(of: missing)
        known.withLock { $0.merge(found) { old, _ in old } }
    }

    /// The object of `space` a client's id names: anything that is not a number, or that
    /// numbers nothing, names no record (404).
    func object(_ space: NumberedObject.Space, _ raw: String?) throws(TimelineError) -> NumberedObject {
        guard let raw, let id = NumericID(raw), let object = try service.object(space, numbered: id) else {
            throw Self.notFound
        }
        known.withLock { $0[object] = id }
        return object
    }

    /// The space of a route's `{id}`, named by the collection before it (nil: it has none).
    /// Every route is made when the table is: a template whose `{id}` has no space stops the
    /// process in every test run.
    static func space(ofTemplate template: String) -> NumberedObject.Space? {
        let parts = template.split(separator: "/")
        guard let index = parts.firstIndex(of: "{id}"), index > 0 else { return nil }
        switch parts[index - 1] {
        // A notification request is named by the account whose notifications it holds.
        case "accounts", "follow_requests", "requests": return .account
        // A filter's statuses (`/filters/statuses/{id}`) are filter statuses; v1 filters are keywords.
        case "statuses": return index > 1 && parts[index - 2] == "filters" ? .filterStatus : .status
        case "filters": return parts.contains("v1") ? .filterKeyword : .filter
        case "keywords": return .filterKeyword
        case "media": return .media
        case "notifications": return .notification
        case "announcements": return .announcement
        case "polls": return .poll
        case "featured_tags": return .featuredTag
        case "lists": return .list
        case "collections": return .collection
        case "items": return .collectionItem
        case "conversations": return .conversation
        case "scheduled_statuses": return .scheduledPost
        default: preconditionFailure("\(template): its {id} names no kind of Mastodon object")
        }
    }

    /// `request` with its `{id}` (a number of `space`) replaced by the native id it numbers,
    /// as the route's handler reads it; 404 when it numbers nothing.
    func native(_ request: APIRequest, space: NumberedObject.Space?) throws(TimelineError) -> APIRequest {
        guard let space else { return request }
        var parameters = request.parameters
        parameters["id"] = try object(space, request.parameters["id"]).nativeID
        return APIRequest(
            http: request.http, parameters: parameters, bearer: request.bearer, grant: request.grant,
            origin: request.origin)
    }

    /// The account a client's id names.
    func user(_ raw: String?) throws(TimelineError) -> UserID {
        guard case .account(let id) = try object(.account, raw) else { throw Self.notFound }
        return id
    }

    /// The post a client's id names (a comment's id names no post: 404).
    func post(_ raw: String?) throws(TimelineError) -> PostID {
        guard case .post(let id) = try object(.status, raw) else { throw Self.notFound }
        return id
    }

    /// The upload a client's id names.
    func media(_ raw: String?) throws(TimelineError) -> MediaID {
        guard case .media(let id) = try object(.media, raw) else { throw Self.notFound }
        return id
    }

    /// The list a client's id names.
    func list(_ raw: String?) throws(TimelineError) -> ListID {
        guard case .list(let id) = try object(.list, raw) else { throw Self.notFound }
        return id
    }

    /// The collection a client's id names.
    func collection(_ raw: String?) throws(TimelineError) -> CollectionID {
        guard case .collection(let id) = try object(.collection, raw) else { throw Self.notFound }
        return id
    }

    /// The collection item a client's id names.
    func collectionItem(_ raw: String?) throws(TimelineError) -> CollectionItemID {
        guard case .collectionItem(let id) = try object(.collectionItem, raw) else { throw Self.notFound }
        return id
    }

    /// The activity item a client's notification id names.
    func notification(_ raw: String?) throws(TimelineError) -> String {
        guard case .notification(let id) = try object(.notification, raw) else { throw Self.notFound }
        return id
    }

    /// A page's bound (`max_id`, `since_id`, `min_id`) as the native cursor of `space`'s
    /// list: the native id it numbers, or — for a number that names nothing, as clients may
    /// send (an id of another list, a time) — the native ids' bound at its millisecond, since
    /// native ids sort by creation time too. Nil when absent; a bound that is not a number is 400.
    func cursor(_ raw: String?, in space: NumberedObject.Space, name: String) throws(TimelineError) -> String? {
        guard let raw else { return nil }
        guard let id = NumericID(raw) else { throw TimelineError.invalid(name, "\(name) must be a numeric id") }
        return try service.object(space, numbered: id)?.nativeID ?? PushIDGenerator.timePrefix(of: id.milliseconds)
    }

    private static let notFound = TimelineError(.notFound, "Record not found")
}
