import JSONModel

// Private accounts: a locked account (`updateProfile` `locked`) is followed only with its
// owner's consent. `follow` records `FollowRequested`; the owner's `approveFollowRequest` records
// the `Followed` itself, `rejectFollowRequest` records `FollowRequestRejected`; `unfollow` of a
// pending request records `FollowRequestWithdrawn`, as do a block and an erasure. Unlocking
// approves every pending request. A post's `visibility` says who sees it: everyone, only the
// author's followers, or only the users it addresses (direct; to anyone else it does not exist).

/// Who sees a post.
public enum PostVisibility: String, Sendable, Equatable, CaseIterable, Codable, SchemaEnumeration {
    /// Everyone who may see its author.
    case `public`
    /// Its author and their (approved) followers only.
    case followers
    /// Its author and the users it addresses (its `@mentions` when posted) only: a direct
    /// message (Mastodon's `direct`). See `Features/DirectMessages.swift`.
    case direct
}

extension Decider {
    /// The pending request from `user` to `me`, as the follow it would become (`not_found` when
    /// there is none).
    func pendingRequest(from user: String, to me: UserRecord) throws -> Follow {
        let follower: UserID = try Validation.identifier(user, field: "user")
        guard try state.followRequested(follower, me.id) else {
            throw TimelineError.notFound("follow request", follower.rawValue)
        }
        return Follow(followerId: follower, followeeId: me.id)
    }

    /// The follows that approving all of `me`'s pending requests makes (unlocking does it).
    func approvingAllRequests(to me: UserRecord) throws -> [Event] {
        try state.followRequests(to: me.id).map { .followed(Follow(followerId: $0, followeeId: me.id)) }
    }

    /// The events that end the requests between `a` and `b`, either way (a block ends them).
    func endingRequests(between a: UserID, _ b: UserID) throws -> [Event] {
        var events: [Event] = []
        if try state.followRequested(a, b) {
            events.append(.followRequestWithdrawn(Follow(followerId: a, followeeId: b)))
        }
        if try state.followRequested(b, a) {
            events.append(.followRequestWithdrawn(Follow(followerId: b, followeeId: a)))
        }
        return events
    }
}

// MARK: - Commands

/// `approveFollowRequest`: the acting user lets `user`, who asked, follow them (`Followed`).
package struct ApproveFollowRequestCommand: OneFieldCommand {
    /// The command's public name, `approveFollowRequest`, and its one field, `user`.
    package static let name = "approveFollowRequest", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `approveFollowRequest` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `approveFollowRequest` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let follow = try decider.pendingRequest(from: value, to: me)
            return Decision(events: [.followed(follow)], outcome: .success(.changed(true)))
        }
    }
}

extension Command {
    /// The acting user approves `user`'s request to follow them (`not_found` when there is none).
    public static func approveFollowRequest(user: String) -> Command {
        Command(ApproveFollowRequestCommand(value: user))
    }
}

/// `rejectFollowRequest`: the acting user turns down `user`'s request to follow them.
package struct RejectFollowRequestCommand: OneFieldCommand {
    /// The command's public name, `rejectFollowRequest`, and its one field, `user`.
    package static let name = "rejectFollowRequest", field = "user"
    /// The `user` field, raw user input.
    package let value: String

    /// A `rejectFollowRequest` command naming `user` `value`.
    package init(value: String) { self.value = value }

    /// Decides `rejectFollowRequest` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { me in
            let follow = try decider.pendingRequest(from: value, to: me)
            return Decision(events: [.followRequestRejected(follow)], outcome: .success(.changed(true)))
        }
    }
}

extension Command {
    /// The acting user turns down `user`'s request to follow them (`not_found` when there is none).
    public static func rejectFollowRequest(user: String) -> Command { Command(RejectFollowRequestCommand(value: user)) }
}

// MARK: - JSON Schemas of the commands

extension ApproveFollowRequestCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "Who asked to follow the acting user."
    ]
}

extension RejectFollowRequestCommand {
    /// What the fields are.
    package static let memberDescriptions: [String: String] = [
        "user": "Who asked to follow the acting user."
    ]
}
