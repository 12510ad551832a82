import Foundation
import Testing
import TimelineDomain

/// The pure domain: deciding commands against an in-memory state, with no storage at all.
struct InMemoryState: DecisionState {
    var users: [UserID: UserRecord] = [:]
    var posts: [PostID: PostRecord] = [:]
    var comments: [CommentID: CommentRecord] = [:]
    var followEdges: Set<[UserID]> = []
    var likeEdges: Set<[String]> = []
    var bookmarkEdges: Set<[String]> = []
    var blockEdges: Set<[UserID]> = []
    /// Pending follow requests, [follower, followee], oldest first.
    var requestEdges: [[UserID]] = []
    /// Who asked to be notified of whose posts, [follower, followee].
    var notifyEdges: Set<[UserID]> = []
    /// Standing boosts, by id.
    var boostRecords: [PostID: BoostRecord] = [:]
    /// Who hid whose boosts, [follower, followee].
    var hiddenBoostEdges: Set<[UserID]> = []
    /// Uploaded media, attached or not.
    var media: [MediaID: MediaRecord] = [:]
    /// Registered OAuth apps.
    var apps: [String: AppRecord] = [:]
    /// Unredeemed authorization codes and apps' own tokens, by hash.
    var authorizations: [String: AuthorizationRecord] = [:]
    var appTokens: [String: AppTokenRecord] = [:]
    var pushSubscriptions: [String: PushSubscriptionRecord] = [:]
    /// Each user's two-factor sign-in.
    var twoFactors: [UserID: TwoFactorRecord] = [:]
    /// The users whose actor has its signing key.
    var actorKeys: Set<UserID> = []
    /// The remote accounts seen, by actor id.
    var remoteAccounts: [String: RemoteAccountRecord] = [:]
    /// The remote posts, by their Note's id.
    var remotePosts: [String: PostID] = [:]
    /// The remote comments, by their Note's id.
    var remoteComments: [String: CommentID] = [:]
    /// The servers each user blocks, [user, host].
    var accountDomainBlocks: Set<[String]> = []
    /// The servers the operator blocked.
    var blockedDomains: Set<String> = []
    /// Stories, and who saw which, [story, viewer].
    var storyRecords: [StoryID: StoryRecord] = [:]
    var storyViews: Set<[String]> = []
    /// Standing account reports, [reporter, reported].
    var userReportEdges: Set<[UserID]> = []
    /// Mutes, muter → muted → when it ends (nil: until unmuted).
    var mutes: [UserID: [UserID: Int64?]] = [:]
    /// Activity read markers.
    var activityMarkers: [UserID: String] = [:]
    /// Each user's activity item ids: only those a test gives (activity is the projection's to
    /// derive; deciding asks only whether an item is there).
    var activityItems: [UserID: Set<String>] = [:]
    var reportEdges: Set<[String]> = []
    /// The reports (of `reportEdges`) an operator dismissed: they no longer count.
    var dismissedReports: Set<[String]> = []
    var sessions: [String: SessionRecord] = [:]
    var failures: [String: [Int64]] = [:]
    var resets: [String: SessionRecord] = [:]
    var resetRequests: [UserID: Int64] = [:]
    /// The log sequence that issued each session or reset token (by hash; 0 when set by hand).
    var issued: [String: UInt64] = [:]
    /// The sequence of each user's last password change: tokens issued before it are void.
    var credentialChanges: [UserID: UInt64] = [:]
    /// How users' emails are kept (`UserRecord.emailHash`): as they are, like the tests'
    /// `DecisionContext.hashEmail`, unless a test folds a real log (then the key store's).
    var hashEmail: (String) -> String = { $0 }
    /// The instance's texts and rules, the announcements, who dismissed which, and reactions.
    var instanceTexts: [InstanceTextField: String] = [:]
    var rules: [InstanceRuleRecord] = []
    var announcementRecords: [AnnouncementID: AnnouncementRecord] = [:]
    var dismissals: Set<[String]> = []
    var reactionLists: [AnnouncementID: [AnnouncementReactionRecord]] = [:]
    /// Pinned posts [user, post], muted conversations [user, post], notes [writer, target] and
    /// endorsements [user, target] (ProfileExtrasTests.swift reads them).
    var pinEdges: Set<[String]> = []
    var conversationMuteEdges: Set<[String]> = []
    var accountNotes: [[UserID]: String] = [:]
    var endorsementEdges: Set<[UserID]> = []
    /// Dismissed suggestions [user, target].
    var dismissedSuggestionEdges: Set<[UserID]> = []
    /// Annual reports asked for [user, year] → read.
    var annualReportMarks: [[String]: Bool] = [:]
    /// Featured hashtags [user, tag].
    var featuredTagEdges: Set<[String]> = []
    var followedTagEdges: Set<[String]> = []

    func instanceText(_ field: InstanceTextField) -> String { instanceTexts[field] ?? "" }
    func instanceRules() -> [InstanceRuleRecord] { rules }
    func announcement(_ id: AnnouncementID) -> AnnouncementRecord? { announcementRecords[id] }
    func announcementDismissed(_ id: AnnouncementID, by user: UserID) -> Bool {
        dismissals.contains([id.rawValue, user.rawValue])
    }
    func announcementReactions(_ id: AnnouncementID) -> [AnnouncementReactionRecord] { reactionLists[id] ?? [] }
    /// The lists (in the order made) and their members, [list, account].
    var listRecords: [ListRecord] = []
    var listMembers: Set<[String]> = []
    func list(_ id: ListID) -> ListRecord? { listRecords.first { $0.id == id } }
    func lists(of owner: UserID) -> [ListRecord] { listRecords.filter { $0.owner == owner } }
    func listHas(_ id: ListID, _ account: UserID) -> Bool { listMembers.contains([id.rawValue, account.rawValue]) }
    /// The collections (in the order made) and their items (in the order added).
    var collectionRecords: [CollectionRecord] = []
    var collectionItemRecords: [CollectionItemRecord] = []
    func collection(_ id: CollectionID) -> CollectionRecord? { collectionRecords.first { $0.id == id } }
    func collections(of owner: UserID) -> [CollectionRecord] { collectionRecords.filter { $0.owner == owner } }
    func collectionItems(_ id: CollectionID) -> [CollectionItemRecord] {
        collectionItemRecords.filter { $0.collection == id }
    }
    /// Conversations of direct messages: participants' key → id; each one's messages; each
    /// user's listed conversations.
    var conversationIDs: [[UserID]: ConversationID] = [:]
    var conversationMessages: [ConversationID: Set<PostID>] = [:]
    var listedConversations: Set<[String]> = []
    func conversationListed(_ id: ConversationID, for user: UserID) -> Bool {
        listedConversations.contains([user.rawValue, id.rawValue])
    }
    /// Each user's notification policy, and the accounts whose notifications a test says are held.
    var notificationPolicies: [UserID: NotificationPolicy] = [:]
    var heldRequests: [UserID: Set<UserID>] = [:]
    func notificationPolicy(of user: UserID) -> NotificationPolicy { notificationPolicies[user] ?? .standard }
    func holdsNotificationRequest(of user: UserID, from account: UserID) -> Bool {
        heldRequests[user]?.contains(account) == true
    }
    /// The hashtags and posts hidden from the trends (`kind ‖ subject`).
    var hiddenTrends: Set<[String]> = []
    func trendHidden(_ kind: TrendKind, _ subject: String) -> Bool { hiddenTrends.contains([kind.rawValue, subject]) }
    /// Every user's filters, in the order they were made.
    var filterRecords: [FilterSaved] = []
    func filter(holding id: String) -> FilterSaved? {
        filterRecords.first { f in
            f.filterId.rawValue == id || f.keywords.contains { $0.id == id } || f.statuses.contains { $0.id == id }
        }
    }
    func filters(of user: UserID) -> [FilterSaved] { filterRecords.filter { $0.userId == user } }

    /// Polls, and who voted in which ([poll, user]).
    var pollRecords: [PollID: PollRecord] = [:]
    var pollVoters: Set<[String]> = []
    /// Pending scheduled posts.
    var scheduleRecords: [ScheduledPostID: ScheduledPostRecord] = [:]
    func poll(_ id: PollID) -> PollRecord? { pollRecords[id] }
    func poll(ofPost post: PostID) -> PollRecord? { pollRecords.values.first { $0.post == post } }
    func voted(_ user: UserID, in poll: PollID) -> Bool { pollVoters.contains([poll.rawValue, user.rawValue]) }

    func user(_ id: UserID) -> UserRecord? { users[id] }
    func userID(username: String) -> UserID? { users.values.first { $0.username == username }?.id }
    func userID(email: String) -> UserID? { users.values.first { $0.emailHash == hashEmail(email) }?.id }
    func post(_ id: PostID) -> PostRecord? { posts[id] }
    func comment(_ id: CommentID) -> CommentRecord? { comments[id] }
    func follows(_ a: UserID, _ b: UserID) -> Bool { followEdges.contains([a, b]) }
    func followRequested(_ a: UserID, _ b: UserID) -> Bool { requestEdges.contains([a, b]) }
    func followRequests(to user: UserID) -> [UserID] { requestEdges.filter { $0[1] == user }.map { $0[0] } }
    func notifies(_ a: UserID, _ b: UserID) -> Bool { notifyEdges.contains([a, b]) }
    func media(_ id: MediaID) -> MediaRecord? { media[id] }
    func app(_ id: String) -> AppRecord? { apps[id] }
    func authorization(hash: String) -> AuthorizationRecord? {
        guard let record = authorizations[hash] else { return nil }
        guard let changed = credentialChanges[record.user] else { return record }
        return issued[hash, default: 0] > changed ? record : nil
    }
    func appToken(hash: String) -> AppTokenRecord? { appTokens[hash] }
    func twoFactor(_ user: UserID) -> TwoFactorRecord? { twoFactors[user] }
    func hasActorKey(_ user: UserID) -> Bool { actorKeys.contains(user) }
    func remoteAccount(actor: String) -> RemoteAccountRecord? { remoteAccounts[actor] }
    func remotePost(object: String) -> PostID? { remotePosts[object] }
    func remoteComment(object: String) -> CommentID? { remoteComments[object] }
    func remoteAccounts(onHost host: String) -> [UserID] {
        remoteAccounts.values.filter { Validation.host(of: $0.seen.actor) == host }.map(\.userId).sorted()
    }
    func blocksDomain(_ user: UserID, _ host: String) -> Bool { accountDomainBlocks.contains([user.rawValue, host]) }
    func blockedEitherWay(_ a: UserID, _ b: UserID) -> Bool {
        func hides(_ viewer: UserID, _ user: UserID) -> Bool {
            remoteAccounts.values.contains {
                $0.userId == user && blocksDomain(viewer, Validation.host(of: $0.seen.actor) ?? "")
            }
        }
        return blocks(a, b) || blocks(b, a) || hides(a, b) || hides(b, a)
    }
    func domainBlocked(_ host: String) -> Bool { blockedDomains.contains(host) }
    func story(_ id: StoryID) -> StoryRecord? { storyRecords[id] }
    func hasViewed(_ story: StoryID, _ viewer: UserID) -> Bool {
        storyViews.contains([story.rawValue, viewer.rawValue])
    }
    func pushSubscription(sessionHash: String) -> PushSubscriptionRecord? { pushSubscriptions[sessionHash] }
    func userReported(_ reporter: UserID, _ user: UserID) -> Bool { userReportEdges.contains([reporter, user]) }
    func userReportCount(_ user: UserID) -> Int { userReportEdges.filter { $0[1] == user }.count }
    func unattachedMedia(uploadedBefore time: Int64, limit: Int) -> [MediaRecord] {
        Array(
            media.values.filter { $0.post == nil && $0.uploadedAt < time && scheduledPost(holding: $0.id) == nil }
                .sorted {
                    ($0.uploadedAt, $0.id) < ($1.uploadedAt, $1.id)
                }.prefix(limit))
    }
    func likes(_ u: UserID, _ p: PostID) -> Bool { likeEdges.contains([u.rawValue, p.rawValue]) }
    func boost(by user: UserID, of post: PostID) -> PostID? {
        boostRecords.values.first { $0.booster == user && $0.post == post }?.id
    }
    func boostRecord(_ id: PostID) -> BoostRecord? { boostRecords[id] }
    func boosts(by user: UserID) -> [BoostRecord] {
        boostRecords.values.filter { $0.booster == user }.sorted { $0.id < $1.id }
    }
    func showsBoosts(_ a: UserID, _ b: UserID) -> Bool { !hiddenBoostEdges.contains([a, b]) }
    func blocks(_ a: UserID, _ b: UserID) -> Bool { blockEdges.contains([a, b]) }
    func activityMarker(of user: UserID) -> String? { activityMarkers[user] }
    func newestActivity(of user: UserID) -> String? { activityItems[user]?.max() }
    func holdsActivity(of user: UserID, item: String?) -> Bool {
        item.map { activityItems[user]?.contains($0) == true } ?? !(activityItems[user] ?? []).isEmpty
    }
    func mute(_ muter: UserID, _ muted: UserID) -> MuteRecord? { mutes[muter]?[muted].map { MuteRecord(until: $0) } }
    func bookmarks(_ u: UserID, _ p: PostID) -> Bool { bookmarkEdges.contains([u.rawValue, p.rawValue]) }
    func reported(_ u: UserID, _ p: PostID) -> Bool { reportEdges.contains([u.rawValue, p.rawValue]) }
    func standingReports(_ p: PostID, upTo limit: Int) -> Int {
        min(limit, reportEdges.subtracting(dismissedReports).filter { $0[1] == p.rawValue }.count)
    }
    /// The standing reports (the double keeps no account ages, activity or origins: each counts).
    func countedReports(_ p: PostID, upTo limit: Int) -> Int { standingReports(p, upTo: limit) }
    func session(hash: String) -> SessionRecord? { sessions[hash].flatMap { unrevoked($0, hash: hash) } }
    func signInFailures(limiterKey: String, since: Int64) -> Int {
        failures[limiterKey, default: []].filter { $0 >= since }.count
    }
    func passwordReset(hash: String) -> SessionRecord? { resets[hash].flatMap { unrevoked($0, hash: hash) } }
    func lastPasswordResetRequest(_ user: UserID) -> Int64? { resetRequests[user] }

    private func unrevoked(_ record: SessionRecord, hash: String) -> SessionRecord? {
        guard let changed = credentialChanges[record.user] else { return record }
        return issued[hash, default: 0] > changed ? record : nil
    }

    /// As the LMDB state: in identifier order; likes and comments only on others' posts (the
    /// user's own posts take theirs with them).
    func footprint(of user: UserID) -> UserFootprint {
        var footprint = UserFootprint()
        footprint.following = followEdges.filter { $0[0] == user }.map { $0[1] }.sorted { $0.rawValue < $1.rawValue }
        footprint.followers = followEdges.filter { $0[1] == user }.map { $0[0] }.sorted { $0.rawValue < $1.rawValue }
        footprint.requested = requestEdges.filter { $0[0] == user }.map { $0[1] }.sorted { $0.rawValue < $1.rawValue }
        footprint.requestedBy = requestEdges.filter { $0[1] == user }.map { $0[0] }.sorted { $0.rawValue < $1.rawValue }
        footprint.unattachedMedia = unattachedMedia(uploadedBefore: .max, limit: .max).filter { $0.uploader == user }
            .map(\.id)
        footprint.posts = posts.values.filter { $0.author == user }.map(\.id).sorted { $0.rawValue < $1.rawValue }
        let own = Set(footprint.posts)
        footprint.likes = likeEdges.filter { $0[0] == user.rawValue }.map { PostID($0[1]) }.filter { !own.contains($0) }
            .sorted { $0.rawValue < $1.rawValue }
        footprint.bookmarks = bookmarkEdges.filter { $0[0] == user.rawValue }.map { PostID($0[1]) }.sorted {
            $0.rawValue < $1.rawValue
        }
        footprint.blocking = blockEdges.filter { $0[0] == user }.map { $0[1] }.sorted { $0.rawValue < $1.rawValue }
        footprint.blockedBy = blockEdges.filter { $0[1] == user }.map { $0[0] }.sorted { $0.rawValue < $1.rawValue }
        footprint.muting = (mutes[user] ?? [:]).keys.sorted { $0.rawValue < $1.rawValue }
        footprint.mutedBy = mutes.filter { $0.value[user] != nil }.map(\.key).sorted { $0.rawValue < $1.rawValue }
        footprint.comments = comments.values.filter { $0.author == user && !own.contains($0.post) }
            .sorted { $0.id.rawValue < $1.id.rawValue }
        return footprint
    }
}

func context(now: Int64 = 1_000) -> DecisionContext {
    var counter = 0
    var context = DecisionContext(
        now: now,
        newID: {
            counter += 1
            return String(format: "id%04d", counter)
        },
        hashToken: { "h:" + $0 }, contentID: { "img\($1.count)" },
        hashEmail: { $0 })  // emails as they are, like `InMemoryState.hashEmail`
    context.prepared.passwordHash = "$argon2id$stub"
    return context
}

let alice = UserRecord(
    id: UserID("alice1"), username: "alice", emailHash: "alice@example.com", passwordHash: "x", bio: nil, url: nil,
    createdAt: 0)
let bob = UserRecord(
    id: UserID("bob1"), username: "bob", emailHash: "bob@example.com", passwordHash: "x", bio: nil, url: nil,
    createdAt: 0)

@Suite struct DecideTests {
    var state: InMemoryState {
        var s = InMemoryState()
        s.users = [alice.id: alice, bob.id: bob]
        s.posts[PostID("p1")] = PostRecord(
            id: PostID("p1"), author: bob.id, image: ImageID("i"), caption: nil, hashtags: [], createdAt: 0)
        return s
    }

    @Test func createUserNormalisesAndRecordsOnlyTheHash() throws {
        let d = try decide(
            .createUser(
                username: "Carol.X", email: "Carol@Example.COM", password: "secret-password", bio: "hi", url: nil),
            actor: .anonymous, state: state, context: context())
        guard case .userCreated(let e) = d.events.first else {
            Issue.record("no UserCreated")
            return
        }
        #expect(e.username == "carol.x")
        #expect(e.email == "carol@example.com")
        #expect(e.passwordHash == "$argon2id$stub")
        #expect(d.actor == e.userId)
    }

    @Test func duplicateUsernameAndEmailAreRefused() {
        #expect(throws: TimelineError(.usernameTaken, "username alice is taken", field: "username")) {
            try decide(
                .createUser(
                    username: "ALICE", email: "new@example.com", password: "secret-password", bio: nil, url: nil),
                actor: .anonymous, state: state, context: context())
        }
        #expect(throws: TimelineError(.emailTaken, "email is already registered", field: "email")) {
            try decide(
                .createUser(
                    username: "new", email: "ALICE@example.com", password: "secret-password", bio: nil, url: nil),
                actor: .anonymous, state: state, context: context())
        }
    }

    @Test func followIsIdempotentAndNotOfOneself() throws {
        var s = state
        let first = try decide(.follow(user: bob.id.rawValue), actor: .user(alice.id), state: s, context: context())
        #expect(first.events == [.followed(Follow(followerId: alice.id, followeeId: bob.id))])
        s.followEdges.insert([alice.id, bob.id])
        let again = try decide(.follow(user: bob.id.rawValue), actor: .user(alice.id), state: s, context: context())
        #expect(again.events.isEmpty)
        #expect(again.outcome == .success(.changed(false)))
        #expect(throws: TimelineError.self) {
            try decide(.follow(user: alice.id.rawValue), actor: .user(alice.id), state: s, context: context())
        }
    }

    @Test func onlyTheAuthorDeletesAPost() {
        #expect(throws: TimelineError(.forbidden, "only the author can delete a post")) {
            try decide(.deletePost(post: "p1"), actor: .user(alice.id), state: state, context: context())
        }
    }

    @Test func erasureUndoesEverythingThenRecordsIt() throws {
        var s = state
        s.followEdges = [[alice.id, bob.id], [bob.id, alice.id]]
        s.likeEdges = [[alice.id.rawValue, "p1"]]
        s.comments[CommentID("c1")] = CommentRecord(
            id: CommentID("c1"), post: PostID("p1"), author: alice.id, text: "x", createdAt: 0)
        #expect(throws: TimelineError.invalid("password", "erasing your account needs your current password")) {
            try decide(.eraseUser(user: alice.id.rawValue), actor: .user(alice.id), state: s, context: context())
        }
        var verified = context()
        verified.prepared.verifiedUser = alice.id
        verified.prepared.verifiedPasswordHash = alice.passwordHash
        let d = try decide(
            .eraseUser(user: alice.id.rawValue, password: "the right one"), actor: .user(alice.id), state: s,
            context: verified)
        #expect(d.events.last == .userErased(UserErased(userId: alice.id)))
        #expect(d.events.contains(.likeRemoved(Like(postId: PostID("p1"), userId: alice.id))))
        #expect(d.events.contains(.commentDeleted(CommentDeleted(commentId: CommentID("c1"), postId: PostID("p1")))))
        #expect(d.events.filter { if case .unfollowed = $0 { true } else { false } }.count == 2)
        #expect(throws: TimelineError(.forbidden, "a user can only erase themself")) {
            try decide(
                .eraseUser(user: alice.id.rawValue, password: "x"), actor: .user(bob.id), state: s, context: context())
        }
        #expect(
            try decide(.eraseUser(user: alice.id.rawValue), actor: .operator, state: s, context: context()).actor == nil
        )
    }

    @Test func expiredSessionIsUnauthenticated() {
        var s = state
        s.sessions["h:tok"] = SessionRecord(user: alice.id, expiresAt: 500)
        #expect(throws: TimelineError.self) {
            try decide(.like(post: "p1"), actor: .session(hash: "h:tok"), state: s, context: context(now: 1_000))
        }
    }

    /// A password verified before deciding counts only if it is still the user's password
    /// when the command is decided (another change may have committed in between).
    @Test func changePasswordNeedsTheVerifiedPasswordToBeCurrent() throws {
        var ctx = context()
        ctx.prepared.verifiedUser = alice.id
        ctx.prepared.verifiedPasswordHash = "x"
        let change = Command.changePassword(currentPassword: "old-password", newPassword: "new-password")
        let d = try decide(change, actor: .user(alice.id), state: state, context: ctx)
        #expect(
            d.events == [
                .passwordChanged(
                    PasswordChanged(userId: alice.id, passwordHash: "$argon2id$stub", email: nil, resetTokenHash: nil))
            ])
        ctx.prepared.verifiedPasswordHash = "an older hash"
        let stale = try decide(change, actor: .user(alice.id), state: state, context: ctx)
        #expect(stale.events == [.signInFailed(SignInFailed(emailHash: "alice@example.com", userId: alice.id))])
        #expect(throws: TimelineError(.invalidCredentials, "wrong password")) { try stale.outcome.get() }
        // Verified for someone else: not alice's password.
        ctx.prepared.verifiedUser = bob.id
        ctx.prepared.verifiedPasswordHash = "x"
        #expect(
            try decide(change, actor: .user(alice.id), state: state, context: ctx).events.first?.typeName
                == .signInFailed)
    }

    @Test func failedSignInRecordsAnEventAndIsRateLimited() throws {
        var s = state
        let d = try decide(
            .signIn(email: "alice@example.com", password: "wrong"), actor: .anonymous, state: s, context: context())
        #expect(d.events == [.signInFailed(SignInFailed(emailHash: "alice@example.com", userId: alice.id))])
        guard case .failure(let error) = d.outcome else {
            Issue.record("a wrong password succeeded")
            return
        }
        #expect(error.code == .invalidCredentials)
        s.failures["alice@example.com"] = Array(repeating: 900, count: SignInPolicy.maxFailures)
        #expect(
            throws: TimelineError(
                .rateLimited, "too many failed sign-ins for this email from here; try again later", field: "email")
        ) {
            try decide(
                .signIn(email: "alice@example.com", password: "x"), actor: .anonymous, state: s, context: context())
        }
    }
}

@Suite struct ValidationTests {
    @Test(arguments: ["alice", "a.b_c", "Z9", String(repeating: "x", count: 30), "ａｌｉｃｅ"])
    func validUsernames(_ name: String) throws {
        let normalised = try Validation.username(name)
        #expect(normalised.allSatisfy { "abcdefghijklmnopqrstuvwxyz0123456789._".contains($0) })
    }

    @Test(arguments: ["", " ", "a b", "al!ce", String(repeating: "x", count: 31), "ali\u{0}ce", "élan", "\u{202E}alice"]
    )
    func invalidUsernames(_ name: String) {
        #expect(throws: TimelineError.self) { try Validation.username(name) }
    }

    @Test func fullWidthCannotImpersonate() throws {
        #expect(try Validation.username("ａlice") == "alice")
    }

    @Test(arguments: ["a@b.co", "First.Last+tag@Sub.Example.org"])
    func validEmails(_ email: String) throws { #expect(try Validation.email(email) == email.lowercased()) }

    @Test(arguments: ["", "a", "a@b", "@b.co", "a@@b.co", "a b@c.co", "a@-b.co", "a..b@c.co", "a@b..co"])
    func invalidEmails(_ email: String) { #expect(throws: TimelineError.self) { try Validation.email(email) } }

    @Test func hashtagsAreLowercasedDeduplicatedAndBounded() throws {
        #expect(try Validation.hashtags(in: "Sun #Sea and #SEA, #sky_2 #") == ["sea", "sky_2"])
        let many = (0..<31).map { "#t\($0)" }.joined(separator: " ")
        #expect(throws: TimelineError.self) { try Validation.hashtags(in: many) }
    }

    @Test func textRules() throws {
        #expect(try Validation.text("e\u{301}", field: "t", max: 5, allowEmpty: false) == "é")
        #expect(throws: TimelineError.self) { try Validation.text("a\u{7}b", field: "t", max: 5, allowEmpty: false) }
        #expect(throws: TimelineError.self) { try Validation.text("   ", field: "t", max: 5, allowEmpty: false) }
        #expect(throws: TimelineError.self) { try Validation.text("123456", field: "t", max: 5, allowEmpty: false) }
        #expect(try Validation.text("a\nb", field: "t", max: 5, allowEmpty: false) == "a\nb")
    }

    @Test func urlsMustBeHTTP() throws {
        #expect(try Validation.url("https://x.org/a?b") == "https://x.org/a?b")
        for bad in ["javascript:alert(1)", "ftp://x.org", "http://", "not a url", String(repeating: "h", count: 3000)] {
            #expect(throws: TimelineError.self) { try Validation.url(bad) }
        }
    }

    @Test func imagesAreRecognisedByContent() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]
        let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        let heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0]
        #expect(MediaType.sniff(jpeg) == .jpeg)
        #expect(MediaType.sniff(png) == .png)
        #expect(MediaType.sniff(Array("GIF89a..".utf8)) == .gif)
        #expect(MediaType.sniff(webp) == .webp)
        #expect(MediaType.sniff(heic) == .heic)
        #expect(MediaType.sniff(Array("<svg>".utf8)) == nil)
        #expect(throws: TimelineError.self) { try ImageUpload(base64: Data("hello".utf8).base64EncodedString()) }
        #expect(throws: TimelineError.self) { try ImageUpload(base64: "!!!not base64") }
        let huge = String(repeating: "A", count: 15 << 20)
        #expect(throws: TimelineError(.payloadTooLarge, "image must be at most 10 MiB", field: "image")) {
            try ImageUpload(base64: huge)
        }
    }
}

@Suite struct PushIDTests {
    @Test func idsAreStrictlyIncreasingAndTimeSortable() {
        var rng = SeededRandom(seed: 7)
        var generator = PushIDGenerator(random: { UInt64.random(in: 0...UInt64.max) })
        var previous = ""
        var time: Int64 = 1_700_000_000_000
        for _ in 0..<5_000 {
            time += Int64.random(in: -1...2, using: &rng)  // includes same-ms and a clock going back
            let id = generator.next(at: time)
            #expect(id.utf8.count == 20)
            #expect(previous.utf8.lexicographicallyPrecedes(id.utf8))
            #expect(IdentifierSyntax.isValid(id))
            previous = id
        }
        #expect(PushIDGenerator.timestamp(of: generator.next(at: 1_234_567)) != nil)
    }

    @Test func timestampRoundTrips() {
        var generator = PushIDGenerator(random: { 12345 })
        #expect(PushIDGenerator.timestamp(of: generator.next(at: 1_480_000_000_123)) == 1_480_000_000_123)
        #expect(PushIDGenerator.timestamp(of: "-K25Fj8qrMAtxXG3QCSn") != nil)
    }
}
