import Foundation
import JSONModel

// Post edits: `editPost` records `PostEdited`. The post keeps its place in every timeline (its
// id does not change); its hashtags are indexed anew, and every version stays in the log, which
// is where the post's history is read from.

/// The payload of `PostEdited`: the post's caption (and so its hashtags) from now on. The
/// caption and hashtags are sealed with the author's key, as `PostAdded`'s are.
public struct PostEdited: Equatable, Sendable {
    /// The post concerned.
    public var postId: PostID
    /// The post's author (whose key seals the caption).
    public var authorId: UserID
    /// The new caption (`nil`: none, or the author was erased).
    public var caption: String?
    /// The new caption's hashtags (normalised, without `#`).
    public var hashtags: [String]
    /// A `PostEdited` payload.
    public init(postId: PostID, authorId: UserID, caption: String?, hashtags: [String]) {
        self.postId = postId
        self.authorId = authorId
        self.caption = caption
        self.hashtags = hashtags
    }
}

extension PostEdited: EventPayload {
    /// The aggregate `PostEdited` events belong to: the post stream of `postId`.
    package var stream: String { StreamName.post(postId) }
    /// Every user a `PostEdited` payload names: `authorId`.
    package var users: [UserID] { [authorId] }
    /// The post a `PostEdited` event is about: `postId`.
    package var post: PostID? { postId }

    /// Writes a `PostEdited` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(postId.rawValue)
        w.string(authorId.rawValue)
        try sealer.seal(authorId, into: &w) {
            $0.optionalString(caption)
            $0.strings(hashtags)
        }
    }

    /// Reads a stored `PostEdited` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let post = PostID(try r.string()), author = UserID(try r.string())
        let personal = try opener.personal(author, from: &r) {
            (caption: try $0.optionalString(), tags: try $0.strings())
        }
        self.init(postId: post, authorId: author, caption: personal?.caption, hashtags: personal?.tags ?? [])
    }

    /// A one-line human summary of a `PostEdited` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(authorId)) edited \(postId) \(clip(caption))"
    }
}

extension Decider {
    /// Sets the caption of `me`'s post `raw` (`.some(nil)` or empty: none; `nil`: unchanged)
    /// and the alt texts of its photos (`alts`: media id → alt, null or empty clearing it). What
    /// is the same again records nothing; either way the answer is the post.
    /// `poll`: `nil` keeps the post's poll; `.some(nil)` takes it away; another poll replaces it
    /// (`editedPoll`).
    func editPost(
        _ raw: String, caption: String??, alts: [String: String?], poll: PollDraft?? = nil, by me: UserRecord
    ) throws -> Decision {
        let post = try ownPost(raw, of: me, "edit")
        var events: [Event] = []
        if let wanted = caption {
            let caption = try wanted.map(Validation.caption).flatMap(nonEmpty)
            if caption != post.caption {
                let tags = try caption.map(Validation.hashtags(in:)) ?? []
                events.append(
                    .postEdited(PostEdited(postId: post.id, authorId: me.id, caption: caption, hashtags: tags)))
            }
        }
        // Alt texts, in the ids' order so the events are the same for the same edit.
        for (raw, wanted) in alts.sorted(by: { $0.key < $1.key }) {
            let id: MediaID = try Validation.identifier(raw, field: "alts")
            guard let media = try state.media(id), media.post == post.id else {
                throw TimelineError.invalid("alts", "\(id) is not a photo of this post")
            }
            let alt = try wanted.flatMap(Validation.alt)
            if alt != media.alt { events.append(.mediaUpdated(MediaUpdated(mediaId: id, uploaderId: me.id, alt: alt))) }
        }
        if let poll { events += try editedPoll(poll, on: post) }
        return Decision(events: events, outcome: .success(.post(post.id)))
    }
}

// MARK: - Commands

/// `editPost`: the author changes their post's caption (`caption` absent keeps it; null or
/// empty clears it) and its photos' alt texts (`alts`: media id → text, null clearing it).
package struct EditPostCommand: CommandDefinition {
    /// The command's public name, `editPost`.
    package static let name = "editPost"
    /// The `post` field.
    package let post: String
    /// The new caption; `.some(nil)` clears it, `nil` keeps it.
    package let caption: String??
    /// New alt texts of the post's photos, by media id (`nil`: clear it).
    package let alts: [String: String?]
    /// The post's poll from now on: `nil` keeps it, `.some(nil)` takes it away.
    package let poll: PollDraft??

    /// A `editPost` command with these fields.
    package init(post: String, caption: String??, alts: [String: String?] = [:], poll: PollDraft?? = nil) {
        self.post = post
        self.caption = caption
        self.alts = alts
        self.poll = poll
    }

    /// Reads `editPost`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        post = try fields.string("post")
        caption = fields.has("caption") ? .some(try fields.optionalString("caption")) : nil
        alts = try fields.optionalTexts("alts") ?? [:]
        poll = fields.has("pollOptions") ? .some(try PollFields.read(fields)) : nil
    }

    /// Writes `editPost`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("post", post)
        if let caption { fields.set("caption", json: caption.map(JSONValue.string) ?? .null) }
        if !alts.isEmpty {
            let texts = alts.sorted { $0.key < $1.key }
                .map { (key: $0.key, value: $0.value.map(JSONValue.string) ?? .null) }
            fields.set("alts", json: .object(texts))
        }
        switch poll {
        case .some(.some(let poll)): PollFields.write(poll, to: &fields)
        case .some(.none): fields.set("pollOptions", json: .null)
        case .none: break
        }
    }

    /// Decides `editPost` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.editPost(post, caption: caption, alts: alts, poll: poll, by: $0) }
    }
}

extension Command {
    /// The author changes their post's caption: `caption` nil keeps it, `.some(nil)` or "" clears
    /// it. Its hashtags are indexed anew; its place in timelines does not move.
    /// `poll`: `nil` keeps the post's poll, `.some(nil)` takes it away, another poll replaces it
    /// (its votes start over; the same options and kind of choice keep it as it is).
    public static func editPost(
        post: String, caption: String??, alts: [String: String?] = [:], poll: PollDraft?? = nil
    ) -> Command {
        Command(EditPostCommand(post: post, caption: caption, alts: alts, poll: poll))
    }
}

// MARK: - JSON Schemas of the payloads

extension PostEdited {
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "caption": "The new caption (absent: none, or its author was erased)."
    ]
}

// MARK: - JSON Schemas of the commands

extension EditPostCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "caption": "The new caption; null or empty clears it, absent keeps it.",
        "alts": "New alt texts of the post's photos, by media id (null or empty clears one; at most 1,500 "
            + "characters each). Each must be a photo of this post.",
        "pollOptions": "The post's poll from now on (absent keeps it; null takes it away): 2–4 options, each 1–50 "
            + "characters. The same options and kind of choice keep the poll, its votes and expiry; others "
            + "replace it and its votes start over."
    ].merging(PollFields.memberDescriptions) { a, _ in a }
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "post": .identifier,
        "caption": JSONSchema.string.nullable,
        "alts": JSONSchema.map(of: JSONSchema.string.nullable).with("maxProperties", 100),
        "pollOptions": (PollFields.memberSchemas["pollOptions"] ?? .string).nullable
    ].merging(PollFields.memberSchemas) { a, _ in a }
}
