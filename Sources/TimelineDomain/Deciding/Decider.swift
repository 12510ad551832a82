/// Decides commands against a state, in a context: the shared checks are here, and each
/// command's decision is in its feature's file (`Features/`), called by its `CommandDefinition`.
package struct Decider<State: DecisionState> {
    let state: State
    let context: DecisionContext

    /// Refuses every caller but the operator: a user or session with `forbidden`, nobody with
    /// `unauthenticated`.
    func requireOperator(_ actor: Actor, _ what: String) throws {
        guard actor == .operator else {
            _ = try resolve(actor)
            throw TimelineError(.forbidden, "only an operator can \(what)")
        }
    }

    /// The signed-in user `actor` stands for.
    func resolve(_ actor: Actor) throws -> UserRecord {
        switch actor {
        case .anonymous, .operator:
            throw TimelineError(.unauthenticated, "this command needs a signed-in user")
        case .user(let id):
            guard let user = try state.user(id) else { throw TimelineError(.unauthenticated, "no user with id \(id)") }
            return user
        case .session(let hash):
            guard let session = try state.session(hash: hash), session.expiresAt > context.now,
                let user = try state.user(session.user)
            else { throw TimelineError(.unauthenticated, "the session is not valid or has expired") }
            return user
        }
    }

    /// Decides a command of a signed-in user, recorded as acting.
    func acting(_ actor: Actor, _ decide: (UserRecord) throws -> Decision) throws -> Decision {
        let me = try resolve(actor)
        var decision = try decide(me)
        decision.actor = me.id
        return decision
    }

    /// The user `raw` names, for `me` to `verb` (follow, block): a valid id, not `me`, and a
    /// user that exists.
    func otherUser(_ raw: String, of me: UserRecord, _ verb: String) throws -> UserID {
        let target: UserID = try Validation.identifier(raw, field: "user")
        guard target != me.id else { throw TimelineError.invalid("user", "you cannot \(verb) yourself") }
        guard try state.user(target) != nil else { throw TimelineError.notFound("user", target.rawValue) }
        return target
    }

    /// Whether `a` blocks `b` or `b` blocks `a`.
    func blockedEitherWay(_ a: UserID, _ b: UserID) throws -> Bool {
        try state.blocks(a, b) || state.blocks(b, a)
    }

    /// The post `raw` names, which must exist.
    func existingPost(_ raw: String) throws -> PostRecord {
        let id: PostID = try Validation.identifier(raw, field: "post")
        guard let post = try state.post(id) else { throw TimelineError.notFound("post", id.rawValue) }
        return post
    }

    /// A post `me` can see: one for followers only that `me` does not follow, one hidden by
    /// reports (see `DecisionContext.hideAfterReports`), or one whose author blocks `me` is
    /// `not_found` to everyone but its author, as the read side answers — a `forbidden` would
    /// tell that it exists. (A post of someone `me` blocks is known to `me`: its commands answer
    /// the block themselves.)
    func visiblePost(_ raw: String, to me: UserRecord, vouched: Bool = false) throws -> PostRecord {
        let post = try existingPost(raw)
        guard try !isHidden(post, from: me, vouched: vouched) else {
            throw TimelineError.notFound("post", post.id.rawValue)
        }
        return post
    }

    /// Whether `post` is out of `me`'s sight: hidden by the privacy policy for a command, or its
    /// author blocks `me`. `vouched`: `me` counts as a follower of its author (`receiveRemoteComment`).
    func isHidden(_ post: PostRecord, from me: UserRecord, vouched: Bool = false) throws -> Bool {
        guard post.author != me.id else { return false }
        return try state.hides(post, from: me.id, threshold: context.hideAfterReports, vouched: vouched)
            || state.blocks(post.author, me.id)
    }

    /// `me`'s own post `raw`, to `verb` (edit, delete). Someone else's post that `me` may not
    /// see (`visiblePost`'s rule, or a block either way, as the read side hides it) is
    /// `not_found`, exactly as an unknown id: a `forbidden` would tell that it exists. Someone
    /// else's post `me` may see is `forbidden`.
    func ownPost(_ raw: String, of me: UserRecord, _ verb: String) throws -> PostRecord {
        let post = try existingPost(raw)
        guard post.author != me.id else { return post }
        if try isHidden(post, from: me) || state.blocks(me.id, post.author) {
            throw TimelineError.notFound("post", post.id.rawValue)
        }
        throw TimelineError(.forbidden, "only the author can \(verb) a post")
    }
}

/// `nil` for empty text (an optional field given as "" is left out).
func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
