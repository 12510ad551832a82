import Foundation
import JSONModel

// Profiles: `updateProfile` records `ProfileUpdated` with the fields that changed (username,
// bio, url, profile photo, discoverability, lock, header); unlocking approves the pending
// follow requests. The photo and the header go through the image pipeline before deciding
// (`Prepared.processedAvatar`, `processedHeader`): squares for the photo, bands for the header.

/// What `updateProfile` does to the profile photo.
public enum AvatarUpdate: Sendable, Equatable {
    /// Sets it from an image (base64), stored as 320 px and 96 px squares.
    case set(String)
    /// Removes it.
    case remove
}

/// Only the fields that changed are present. Version 2 seals bio and url; version 3 adds the
/// profile photo's change (the ids of the squares produced, or its removal); version 4 adds the
/// `discoverable` setting's change; version 5 the `locked` setting's; version 6 the header's
/// (the ids of the bands produced, or its removal).
public struct ProfileUpdated: Equatable, Sendable {
    /// The user concerned.
    public var userId: UserID
    /// The username (normalised).
    public var username: String?
    /// The bio ("" clears it).
    public var bio: String?
    /// The url ("" clears it).
    public var url: String?
    /// The profile photo's change: `.set` with the squares produced, `.removed`; `nil` keeps it.
    public var avatar: AvatarChange?
    /// The new value of the `discoverable` setting (v4: whether others may find the user by
    /// email); `nil` keeps it.
    public var discoverable: Bool?
    /// The new value of the `locked` setting (v5: whether following needs approval); `nil` keeps it.
    public var locked: Bool?
    /// The header's change (v6): `.set` with the bands produced (1500×500 as `large`, 600×200 as
    /// `small`), `.removed`; `nil` keeps it.
    public var header: AvatarChange?
    /// A `ProfileUpdated` payload.
    public init(
        userId: UserID, username: String? = nil, bio: String? = nil, url: String? = nil, avatar: AvatarChange? = nil,
        discoverable: Bool? = nil, locked: Bool? = nil, header: AvatarChange? = nil
    ) {
        self.header = header
        self.userId = userId
        self.username = username
        self.bio = bio
        self.url = url
        self.avatar = avatar
        self.discoverable = discoverable
        self.locked = locked
    }
}

/// A profile photo as stored: two squares, by content address.
public struct Avatar: Equatable, Sendable, Codable, SchemaDocumented {
    /// The 320 px square.
    public var large: ImageID
    /// The 96 px square.
    public var small: ImageID
    /// An avatar of two stored squares.
    public init(large: ImageID, small: ImageID) {
        self.large = large
        self.small = small
    }
}

/// How a `ProfileUpdated` changed the profile photo.
public enum AvatarChange: Equatable, Sendable {
    /// A new photo, as the image pipeline produced it.
    case set(Avatar)
    /// The photo was removed.
    case removed
}

extension Avatar {
    /// What each square is.
    public static let memberDescriptions = [
        "large": "Image id of the 320 px square.", "small": "Image id of the 96 px square."
    ]
    /// The squares' ids are content addresses, not identifiers.
    public static let memberSchemas = ["large": JSONSchema.string, "small": JSONSchema.string]
}

extension AvatarChange: Codable, SchemaDescribed {
    /// Reads the squares' ids, or null when the photo was removed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .removed : .set(try container.decode(Avatar.self))
    }

    /// Writes the squares' ids, or null when the photo was removed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .set(let avatar): try container.encode(avatar)
        case .removed: try container.encodeNil()
        }
    }

    /// null, or the squares' ids.
    public static var jsonSchema: JSONSchema { .oneOf([.null, (try? JSONSchema.of(Avatar.self)) ?? .any]) }
    /// The photo was removed.
    public static var schemaPlaceholder: AvatarChange { .removed }
}

extension ProfileUpdated: EventPayload {
    /// New `ProfileUpdated` events are written at version 5.
    package static var currentVersion: UInt8 { 6 }
    /// Version 1 of `ProfileUpdated` held its personal fields in clear (version 2 seals them).
    package static var legacyPlainV1: Bool { true }
    /// The aggregate `ProfileUpdated` events belong to: the user stream of `userId`.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `ProfileUpdated` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// The images stored with a `ProfileUpdated` event (a cluster node ships them with it).
    package var storedImages: [ImageID] {
        [avatar, header].flatMap { change -> [ImageID] in
            guard case .set(let images)? = change else { return [] }
            return [images.large, images.small]
        }
    }

    /// Writes a `ProfileUpdated` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(userId.rawValue)
        w.optionalString(username)
        try sealer.seal(userId, into: &w) {
            $0.optionalString(bio)
            $0.optionalString(url)
        }
        // v3 appends the photo's change (1: removed, 2: the squares' ids), v4 then the
        // discoverable setting's (3: off, 4: on), v5 then the lock's (5: off, 6: on); without
        // them the payload is encoded exactly as v2 was.
        switch avatar {
        case nil: break
        case .removed?: w.u8(1)
        case .set(let avatar)?:
            w.u8(2)
            w.string(avatar.large.rawValue)
            w.string(avatar.small.rawValue)
        }
        if let discoverable { w.u8(discoverable ? 4 : 3) }
        if let locked { w.u8(locked ? 6 : 5) }
        // v6: the header's change (7: removed, 8: the bands' ids).
        switch header {
        case nil: break
        case .removed?: w.u8(7)
        case .set(let header)?:
            w.u8(8)
            w.string(header.large.rawValue)
            w.string(header.small.rawValue)
        }
    }

    /// Reads a stored `ProfileUpdated` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = UserID(try r.string())
        let username = try r.optionalString()
        let personal = try opener.personal(id, from: &r) {
            (bio: try $0.optionalString(), url: try $0.optionalString())
        }
        self.init(userId: id, username: username, bio: personal?.bio, url: personal?.url)
        // The tail: tagged changes, the photo's (v3) before the discoverable setting's (v4)
        // before the lock's (v5).
        let version = opener.version
        var tag: UInt8?
        if version >= 3, !r.isAtEnd { tag = try r.u8() }
        if tag == 1 || tag == 2 {
            avatar = tag == 1 ? .removed : .set(Avatar(large: ImageID(try r.string()), small: ImageID(try r.string())))
            tag = nil
            if !r.isAtEnd { tag = try r.u8() }
        }
        if version >= 4, tag == 3 || tag == 4 {
            discoverable = tag == 4
            tag = nil
            if !r.isAtEnd { tag = try r.u8() }
        }
        if version >= 5, tag == 5 || tag == 6 {
            locked = tag == 6
            tag = nil
            if !r.isAtEnd { tag = try r.u8() }
        }
        if version >= 6, tag == 7 || tag == 8 {
            header = tag == 7 ? .removed : .set(Avatar(large: ImageID(try r.string()), small: ImageID(try r.string())))
            tag = nil
        }
        if let tag { throw CorruptRecord(message: "unknown change \(tag) in ProfileUpdated v\(version)") }
    }

    /// A one-line human summary of a `ProfileUpdated` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        let fields = [
            username.map { "username → \($0)" }, bio.map { _ in "bio" }, url.map { _ in "url" },
            avatar.map { $0 == .removed ? "avatar (removed)" : "avatar" },
            discoverable.map { "discoverable → \($0 ? "on" : "off")" },
            locked.map { "locked → \($0 ? "on" : "off")" },
            header.map { $0 == .removed ? "header (removed)" : "header" }
        ].compactMap { $0 }
        return "\(name(userId)) updated \(fields.joined(separator: ", "))"
    }
}

extension Decider {
    func updateProfile(
        username: String?, bio: String?, url: String?, avatar: AvatarUpdate?, discoverable: Bool?, locked: Bool?,
        header: AvatarUpdate? = nil, by me: UserRecord
    ) throws -> Decision {
        var change = ProfileUpdated(userId: me.id)
        if let username {
            let name = try Validation.username(username)
            if name != me.username {
                guard try state.userID(username: name) == nil else {
                    throw TimelineError(.usernameTaken, "username \(name) is taken", field: "username")
                }
                change.username = name
            }
        }
        if let bio = try bio.map(Validation.bio), bio != (me.bio ?? "") { change.bio = bio }
        if let url = try url.map(Validation.url), url != (me.url ?? "") { change.url = url }
        var blobs: [ImageID: ImageUpload] = [:]
        switch avatar {
        case nil: break
        case .remove?: if me.avatar != nil { change.avatar = .removed }
        case .set(let image)?:
            // Decoding and the squares happened before deciding (off the writer).
            guard let processed = context.prepared.processedAvatar else {
                _ = try ImageUpload(base64: image)
                throw TimelineError(.internal, "the avatar was not processed")
            }
            let new = Avatar(
                large: ImageID(context.contentID(me.id, processed.large.bytes)),
                small: ImageID(context.contentID(me.id, processed.small.bytes)))
            if new != me.avatar {
                change.avatar = .set(new)
                blobs = Dictionary(
                    [(new.large, processed.large), (new.small, processed.small)],
                    uniquingKeysWith: { first, _ in first })
            }
        }
        switch header {
        case nil: break
        case .remove?: if me.header != nil { change.header = .removed }
        case .set(let image)?:
            guard let processed = context.prepared.processedHeader else {
                _ = try ImageUpload(base64: image)
                throw TimelineError(.internal, "the header was not processed")
            }
            let new = Avatar(
                large: ImageID(context.contentID(me.id, processed.large.bytes)),
                small: ImageID(context.contentID(me.id, processed.small.bytes)))
            if new != me.header {
                change.header = .set(new)
                blobs.merge(
                    [(new.large, processed.large), (new.small, processed.small)], uniquingKeysWith: { a, _ in a })
            }
        }
        if let discoverable, discoverable != me.discoverable { change.discoverable = discoverable }
        if let locked, locked != me.locked { change.locked = locked }
        let changed =
            change.username != nil || change.bio != nil || change.url != nil || change.avatar != nil
            || change.discoverable != nil || change.locked != nil || change.header != nil
        guard changed else { return Decision(outcome: .success(.ownProfile(me.id))) }
        // Unlocking lets in everyone who asked.
        let approvals = change.locked == false ? try approvingAllRequests(to: me) : []
        return Decision(
            events: [.profileUpdated(change)] + approvals, blobs: blobs, outcome: .success(.ownProfile(me.id)))
    }
}

// MARK: - Commands

/// `updateProfile`: changes the acting user's username, bio, url, profile photo, discoverability or lock (`nil` keeps a field; "" clears bio and url; `avatar` sets the photo from a base64 image or removes it; `discoverable` says whether others may find the user by email, see `findContacts`; `locked` whether following them needs their approval).
package struct UpdateProfileCommand: CommandDefinition {
    /// The command's public name, `updateProfile`.
    package static let name = "updateProfile"
    /// The `username` field.
    package let username: String?
    /// The `bio` field.
    package let bio: String?
    /// The `url` field.
    package let url: String?
    /// The `avatar` field.
    package let avatar: AvatarUpdate?
    /// The `discoverable` field.
    package let discoverable: Bool?
    /// The `locked` field.
    package let locked: Bool?
    /// The `header` field.
    package let header: AvatarUpdate?

    /// A `updateProfile` command with these fields.
    package init(
        username: String?, bio: String?, url: String?, avatar: AvatarUpdate?, discoverable: Bool?, locked: Bool? = nil,
        header: AvatarUpdate? = nil
    ) {
        self.header = header
        self.username = username
        self.bio = bio
        self.url = url
        self.avatar = avatar
        self.discoverable = discoverable
        self.locked = locked
    }

    /// Reads `updateProfile`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        username = try fields.optionalString("username")
        bio = try fields.optionalString("bio")
        url = try fields.optionalString("url")
        // A base64 image sets the photo, null removes it, absent keeps it.
        avatar = fields.has("avatar") ? try fields.optionalString("avatar").map(AvatarUpdate.set) ?? .remove : nil
        discoverable = try fields.optionalBool("discoverable")
        locked = try fields.optionalBool("locked")
        header = fields.has("header") ? try fields.optionalString("header").map(AvatarUpdate.set) ?? .remove : nil
    }

    /// Writes `updateProfile`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("username", username)
        fields.set("bio", bio)
        fields.set("url", url)
        switch avatar {
        case nil: break
        case .remove?: fields.set("avatar", json: .null)
        case .set(let image)?: fields.set("avatar", image)
        }
        fields.set("discoverable", discoverable)
        fields.set("locked", locked)
        switch header {
        case nil: break
        case .remove?: fields.set("header", json: .null)
        case .set(let image)?: fields.set("header", image)
        }
    }

    /// Decides `updateProfile` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.updateProfile(
                username: username, bio: bio, url: url, avatar: avatar, discoverable: discoverable, locked: locked,
                header: header, by: $0)
        }
    }
}

extension Command {
    /// Changes the acting user's username, bio, url, profile photo, discoverability or lock (`nil` keeps a field; "" clears bio and url; `avatar` sets the photo from a base64 image or removes it; `discoverable` says whether others may find the user by email, see `findContacts`; `locked` whether following needs approval: unlocking approves every pending request).
    public static func updateProfile(
        username: String?, bio: String?, url: String?, avatar: AvatarUpdate? = nil, discoverable: Bool? = nil,
        locked: Bool? = nil, header: AvatarUpdate? = nil
    ) -> Command {
        Command(
            UpdateProfileCommand(
                username: username, bio: bio, url: url, avatar: avatar, discoverable: discoverable, locked: locked,
                header: header))
    }
}

// MARK: - JSON Schemas of the payloads

extension ProfileUpdated {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "Version 6 adds `header`; version 5 added `locked`; version 4 added `discoverable`; version 3 `avatar`. Like version 2, it stores "
        + "the personal fields sealed with the owner's key; in JSON they appear in clear, or are absent once the "
        + "owner is erased (the envelope then has \"erased\": true). An update without `avatar`, `discoverable`, "
        + "`locked` and `header` has exactly version 2's bytes."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "avatar": "The profile photo's change, as the image pipeline produced it (a rebuild never re-encodes): "
            + "the squares' ids, or null when it was removed; absent when the photo did not change. Stored in "
            + "clear after the sealed section (the images themselves are sealed with the owner's key).",
        "discoverable": "The new value of the discoverable setting (whether others may find the user by email); "
            + "absent when it did not change. Stored in clear after the avatar's change.",
        "locked": "The new value of the locked setting (whether following the user needs their approval); absent "
            + "when it did not change. Stored in clear after the discoverable setting's change.",
        "header": "The profile header's change, as the image pipeline produced it: the ids of its 1500×500 "
            + "(`large`) and 600×200 (`small`) bands, or null when it was removed; absent when it did not change. "
            + "Stored in clear after the locked setting's change."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "username": JSONSchema.string(pattern: "^[a-z0-9._]{1,30}$"),
        "bio": JSONSchema.string.with("maxLength", 150),
        "url": JSONSchema.string.with("maxLength", 2048)
    ]
}

// MARK: - JSON Schemas of the commands

extension UpdateProfileCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "avatar": "A base64 image (JPEG, PNG, GIF, HEIC or WebP) to set as the profile photo, stored as 320 px "
            + "and 96 px squares; null removes the photo; absent keeps it.",
        "discoverable": "Whether others may find the user by email (findContacts); on by default; absent keeps it.",
        "locked": "Whether following the user needs their approval (a private account). Unlocking approves every "
            + "pending request.",
        "header": "A base64 image (JPEG, PNG, GIF, HEIC or WebP) to set as the profile's header, stored as "
            + "1500×500 and 600×200 bands cropped around the centre; null removes it; absent keeps it."
    ]
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "avatar": JSONSchema.string.nullable, "header": JSONSchema.string.nullable
    ]
}
