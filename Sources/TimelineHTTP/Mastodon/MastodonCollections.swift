import Foundation
import JSONModel
import MicroHTTPD
import Timeline
import TimelineDomain

// Collections, as Mastodon 4.6 answers them (docs.joinmastodon.org/methods/collections): an
// account's collections (`{"collections": [...]}`: all of them for their owner, the
// discoverable ones for others, none across a block), the collections the bearer is featured
// in (only the bearer's own: 403 otherwise), making (`{"collection": ...}`), reading
// (`CollectionWithAccounts`), changing and deleting one, adding an account
// (`{"collection_item": ...}`: only a discoverable account, never across a block, 403
// otherwise), removing an item, and revoking one's own item. Another's collection cannot be
// changed (403), as Mastodon answers.

extension Mastodon {
    /// A hashtag as `Collection.tag` carries it (`ShallowTag`).
    struct ShallowTag: Codable, Sendable {
        var name: String
        var url: String
    }

    /// An account featured in a collection (`CollectionItem`).
    struct CollectionItem: Codable, Sendable {
        var id: String
        var account_id: String?
        var state: String
        var created_at: String
    }

    /// A collection of accounts to feature (`Collection`).
    struct Collection: Codable, Sendable {
        var id: String
        var uri: String
        var url: Nullable<String>
        var name: String
        var description: String
        var language: Nullable<String>
        var account_id: String
        var local: Bool
        var sensitive: Bool
        var discoverable: Bool
        var item_count: Int
        var items: [CollectionItem]
        var tag: Nullable<ShallowTag>
        var created_at: String
        var updated_at: String
    }

    /// A collection with the accounts of its owner and items (`CollectionWithAccounts`).
    struct CollectionWithAccounts: Codable, Sendable {
        var collection: Collection
        var accounts: [Account]
    }

    /// One collection, wrapped as Mastodon's JSON adapter answers it.
    struct WrappedCollection: Codable, Sendable {
        var collection: Collection
    }

    /// Some collections, wrapped as Mastodon's JSON adapter answers them.
    struct WrappedCollections: Codable, Sendable {
        var collections: [Collection]
    }

    /// One collection item, wrapped as Mastodon's JSON adapter answers it.
    struct WrappedCollectionItem: Codable, Sendable {
        var collection_item: CollectionItem
    }
}

extension MastodonAPI {
    /// The form fields a collection's settings are read from.
    private static let collectionForm = ["name", "description", "language", "sensitive", "discoverable", "tag_name"]

    static let collectionRoutes: [Route] = [
        now(
            "GET", "/api/v1/accounts/{id}/collections", .viewerOptional, scope: "read:collections",
            doc: .init(
                "An account's collections, the newest first.", returns: .wrappedCollections,
                query: ["limit", "offset"])
        ) { api, request, entities in
            let account = UserID(request.parameters["id"] ?? "")
            let params = try MastodonParams(request.http)
            let views = try api.service.collections(
                of: account, viewer: request.viewer, offset: try params.offset(),
                limit: try params.limit(default: 40, max: 80))
            return Responses.entity(200, Mastodon.WrappedCollections(collections: try collections(views, entities)))
        },
        now(
            "GET", "/api/v1/accounts/{id}/in_collections", .bearer, scope: "read:collections",
            doc: .init(
                "The collections the bearer is featured in.", returns: .wrappedCollections,
                query: ["limit", "offset"])
        ) { api, request, entities in
            let account = UserID(request.parameters["id"] ?? "")
            let params = try MastodonParams(request.http)
            let views = try api.service.collections(
                featuring: account, viewer: try request.requireViewer(), offset: try params.offset(),
                limit: try params.limit(default: 40, max: 80))
            return Responses.entity(200, Mastodon.WrappedCollections(collections: try collections(views, entities)))
        },
        later(
            "POST", "/api/v1/collections", .bearer, scope: "write:collections",
            doc: .init("Makes a collection.", returns: .wrappedCollection, form: collectionForm + ["account_ids[]"])
        ) { api, request, entities in
            let params = try MastodonParams(request.http)
            var accounts: [String] = []
            for raw in params.list("account_ids") { accounts.append(try entities.ids.user(raw).rawValue) }
            let result = try await api.execute(
                .createCollection(
                    name: params.string("name") ?? "", description: params.string("description"),
                    language: params.string("language"), sensitive: try params.bool("sensitive"),
                    discoverable: try params.bool("discoverable"), tag: params.string("tag_name"),
                    accounts: accounts), request)
            guard case .created(let id) = result else {
                throw TimelineError(.internal, "createCollection made no collection")
            }
            return try wrapped(CollectionID(id), api, request, entities)
        },
        now(
            "GET", "/api/v1/collections/{id}", .viewerOptional, scope: "read:collections",
            doc: .init("One collection, with its accounts.", returns: .collectionWithAccounts)
        ) { api, request, entities in
            let view = try api.service.collection(CollectionID(request.parameters["id"] ?? ""), viewer: request.viewer)
            var accounts: [Mastodon.Account] = []
            for profile in view.accounts { accounts.append(try entities.account(profile)) }
            return Responses.entity(
                200, Mastodon.CollectionWithAccounts(collection: try collection(view, entities), accounts: accounts))
        },
        later(
            "PATCH", "/api/v1/collections/{id}", .bearer, scope: "write:collections",
            doc: .init("Changes a collection.", returns: .wrappedCollection, form: collectionForm)
        ) { api, request, entities in
            let id = request.parameters["id"] ?? ""
            let params = try MastodonParams(request.http)
            _ = try await api.execute(
                .updateCollection(
                    collection: id, name: params.string("name"), description: params.string("description"),
                    language: params.string("language"), sensitive: try params.bool("sensitive"),
                    discoverable: try params.bool("discoverable"), tag: params.string("tag_name")), request)
            return try wrapped(CollectionID(id), api, request, entities)
        },
        later(
            "DELETE", "/api/v1/collections/{id}", .bearer, scope: "write:collections",
            doc: .init("Deletes a collection.", returns: .empty)
        ) { api, request, _ in
            _ = try await api.execute(.deleteCollection(collection: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "POST", "/api/v1/collections/{collection_id}/items", .bearer, scope: "write:collections",
            doc: .init("Features an account in a collection.", returns: .wrappedCollectionItem, form: ["account_id"])
        ) { api, request, entities in
            let collection = try entities.ids.collection(request.parameters["collection_id"])
            guard let raw = try MastodonParams(request.http).string("account_id"), !raw.isEmpty else {
                throw TimelineError.invalid("account_id", "`account_id` parameter is missing")
            }
            let account = try entities.ids.user(raw)
            let result = try await api.execute(
                .addToCollection(collection: collection.rawValue, account: account.rawValue), request)
            guard case .created(let item) = result else {
                throw TimelineError(.internal, "addToCollection made no item")
            }
            let view = try api.service.collection(collection, viewer: try request.requireViewer())
            guard let added = view.items.first(where: { $0.id.rawValue == item }) else {
                throw TimelineError.notFound("collection item", item)
            }
            return Responses.entity(
                200, Mastodon.WrappedCollectionItem(collection_item: try collectionItem(added, entities)))
        },
        later(
            "DELETE", "/api/v1/collections/{collection_id}/items/{id}", .bearer, scope: "write:collections",
            doc: .init("Takes an account out of a collection.", returns: .empty)
        ) { api, request, entities in
            let collection = try entities.ids.collection(request.parameters["collection_id"])
            _ = try await api.execute(
                .removeFromCollection(collection: collection.rawValue, item: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        },
        later(
            "POST", "/api/v1/collections/{collection_id}/items/{id}/revoke", .bearer, scope: "write:collections",
            doc: .init("Takes the bearer out of another's collection.", returns: .empty)
        ) { api, request, entities in
            let collection = try entities.ids.collection(request.parameters["collection_id"])
            _ = try await api.execute(
                .revokeCollectionItem(collection: collection.rawValue, item: request.parameters["id"] ?? ""), request)
            return Responses.entity(200, Mastodon.Empty())
        }
    ]

    /// The collection `id` as the bearer sees it, wrapped (`{"collection": ...}`).
    private static func wrapped(
        _ id: CollectionID, _ api: TimelineAPI, _ request: APIRequest, _ entities: MastodonEntities
    ) throws(TimelineError) -> HTTPResponse {
        let view = try api.service.collection(id, viewer: try request.requireViewer())
        return Responses.entity(200, Mastodon.WrappedCollection(collection: try collection(view, entities)))
    }

    /// Collections as Mastodon's entities.
    private static func collections(_ views: [CollectionView], _ entities: MastodonEntities) throws(TimelineError)
        -> [Mastodon.Collection]
    {
        try entities.ids.prefetch(
            views.flatMap { view in
                [NumberedObject.collection(view.record.id), .account(view.record.owner)]
                    + view.items.flatMap { [NumberedObject.collectionItem($0.id), .account($0.account)] }
            })
        var out: [Mastodon.Collection] = []
        for view in views { out.append(try collection(view, entities)) }
        return out
    }

    /// An item as Mastodon's entity.
    private static func collectionItem(_ item: CollectionItemRecord, _ entities: MastodonEntities)
        throws(TimelineError) -> Mastodon.CollectionItem
    {
        Mastodon.CollectionItem(
            id: try entities.ids.id(.collectionItem(item.id)),
            account_id: item.state == .accepted ? try entities.ids.id(.account(item.account)) : nil,
            state: item.state.rawValue, created_at: JSONOutput.timestamp(item.createdAt))
    }

    /// A collection as Mastodon's entity: its items those the viewer may see, and as many.
    static func collection(_ view: CollectionView, _ entities: MastodonEntities) throws(TimelineError)
        -> Mastodon.Collection
    {
        let s = view.record.settings, base = entities.base
        let id = try entities.ids.id(.collection(s.collectionId))
        let owner = view.accounts.first?.username ?? ""
        var items: [Mastodon.CollectionItem] = []
        for item in view.items { items.append(try collectionItem(item, entities)) }
        return Mastodon.Collection(
            id: id, uri: "\(base)/users/\(owner)/collections/\(id)",
            url: Nullable("\(base)/#/collection/\(s.collectionId.rawValue)"), name: s.name,
            description: s.description, language: Nullable(s.language),
            account_id: try entities.ids.id(.account(s.ownerId)), local: true, sensitive: s.sensitive,
            discoverable: s.discoverable, item_count: items.count, items: items,
            tag: Nullable(s.tag.map { Mastodon.ShallowTag(name: $0, url: entities.tagURL($0)) }),
            created_at: JSONOutput.timestamp(view.record.createdAt),
            updated_at: JSONOutput.timestamp(view.record.updatedAt))
    }
}
