import Foundation
import Testing
@testable import Timeline
import TimelineDomain

extension InMemoryState {
    /// Folds one logged event in, as the LMDB projections do. Exhaustive: a new event does not
    /// build until the in-memory state knows what it changes.
    mutating func apply(_ envelope: EventEnvelope) {
        func updateUser(_ id: UserID, _ change: (inout UserRecord) -> Void) {
            if users[id] != nil { change(&users[id]!) }
        }
        func updatePost(_ id: PostID, _ change: (inout PostRecord) -> Void) {
            if posts[id] != nil { change(&posts[id]!) }
        }
        func removePost(_ post: PostID, author: UserID) {
            if let record = posts[post], record.visibility == .direct {
                let people = conversationParticipants(author: record.author, addressees: record.addressees)
                if let id = conversationIDs[people] {
                    conversationMessages[id]?.remove(post)
                    if conversationMessages[id]?.isEmpty ?? true {
                        listedConversations = listedConversations.filter { $0[1] != id.rawValue }
                    }
                }
            }
            posts[post] = nil
            comments = comments.filter { $0.value.post != post }
            likeEdges = likeEdges.filter { $0[1] != post.rawValue }
            bookmarkEdges = bookmarkEdges.filter { $0[1] != post.rawValue }
            pinEdges = pinEdges.filter { $0[1] != post.rawValue }
            conversationMuteEdges = conversationMuteEdges.filter { $0[1] != post.rawValue }
            reportEdges = reportEdges.filter { $0[1] != post.rawValue }
            dismissedReports = dismissedReports.filter { $0[1] != post.rawValue }
            media = media.filter { $0.value.post != post }
            for poll in pollRecords.values where poll.post == post { dropPoll(poll.id) }
            boostRecords = boostRecords.filter { $0.value.post != post }
            updateUser(author) { $0.postCount -= 1 }
        }
        func dropPoll(_ id: PollID) {
            pollRecords[id] = nil
            pollVoters = pollVoters.filter { $0[0] != id.rawValue }
        }
        switch envelope.event {
        case .userCreated(let e):
            users[e.userId] = UserRecord(
                id: e.userId, username: e.username, emailHash: e.email.map(hashEmail), passwordHash: e.passwordHash,
                bio: e.bio, url: e.url, createdAt: envelope.timestamp)
        case .profileUpdated(let e):
            updateUser(e.userId) { user in
                if let name = e.username { user.username = name }
                if let bio = e.bio { user.bio = bio.isEmpty ? nil : bio }
                if let url = e.url { user.url = url.isEmpty ? nil : url }
                if let discoverable = e.discoverable { user.discoverable = discoverable }
                if let locked = e.locked { user.locked = locked }
            }
        case .signedIn(let e):
            sessions[e.sessionHash] = SessionRecord(
                user: e.userId, expiresAt: e.expiresAt, app: e.appId, scopes: e.scopes)
            issued[e.sessionHash] = envelope.sequence
            if let redeemed = e.authorizationHash { authorizations[redeemed] = nil }
        case .signedOut(let e):
            sessions[e.sessionHash] = nil
            pushSubscriptions[e.sessionHash] = nil
        case .signedOutEverywhere(let e):
            credentialChanges[e.userId] = envelope.sequence
        case .signInFailed(let e):
            let recent = failures[e.limiterKey, default: []].filter { $0 >= envelope.timestamp - SignInPolicy.window }
            failures[e.limiterKey] = recent + [envelope.timestamp]
        case .postAdded(let e):
            posts[e.postId] = PostRecord(
                id: e.postId, author: e.authorId, image: e.imageId, caption: e.caption,
                hashtags: e.hashtags, createdAt: envelope.timestamp,
                width: e.width, height: e.height, variants: e.variants, visibility: e.visibility,
                addressees: e.addressees)
            updateUser(e.authorId) { $0.postCount += 1 }
            if e.visibility == .direct {
                let people = conversationParticipants(author: e.authorId, addressees: e.addressees)
                let id = conversationIDs[people] ?? ConversationID(e.postId.rawValue)
                conversationIDs[people] = id
                conversationMessages[id, default: []].insert(e.postId)
                for person in people { listedConversations.insert([person.rawValue, id.rawValue]) }
            }
            for id in e.media { media[id]?.post = e.postId }
        case .mediaUploaded(let e):
            media[e.mediaId] = MediaRecord(
                id: e.mediaId, uploader: e.uploaderId, uploadedAt: envelope.timestamp, post: nil,
                width: e.width, height: e.height, variants: e.variants, alt: e.alt)
            media[e.mediaId]?.blurhash = e.blurhash
        case .videoUploaded(let e):
            media[e.mediaId] = MediaRecord(
                id: e.mediaId, uploader: e.uploaderId, uploadedAt: envelope.timestamp, post: nil, width: 0, height: 0,
                variants: ImageVariants(full: ImageID(""), feed: ImageID(""), thumb: ImageID("")), alt: e.alt,
                video: .processing)
        case .videoProcessed(let e):
            media[e.mediaId]?.width = e.width
            media[e.mediaId]?.height = e.height
            media[e.mediaId]?.variants = e.poster
            media[e.mediaId]?.video = .ready(e.video)
            media[e.mediaId]?.blurhash = e.blurhash
        case .videoFailed(let e):
            media[e.mediaId]?.video = .failed(e.reason)
        case .mediaUpdated(let e):
            media[e.mediaId]?.alt = e.alt
        case .mediaDeleted(let e):
            media[e.mediaId] = nil
        case .appRegistered(let e):
            apps[e.appId] = AppRecord(e)
        case .appAuthorized(let e):
            authorizations[e.codeHash] = AuthorizationRecord(e)
            issued[e.codeHash] = envelope.sequence
        case .activityDismissed(let e):
            // Deciding asks only whether an item is there; the items are those a test gave.
            if let item = e.item { activityItems[e.userId]?.remove(item) } else { activityItems[e.userId] = nil }
        case .pushSubscribed(let e):
            pushSubscriptions[e.sessionHash] = nil
            if let endpoint = e.endpoint, let p256dh = e.p256dh, let auth = e.auth {
                pushSubscriptions[e.sessionHash] = PushSubscriptionRecord(
                    user: e.userId, endpoint: endpoint, p256dh: p256dh, auth: auth,
                    standard: e.standard, alerts: e.alerts, policy: e.policy)
            }
        case .pushUnsubscribed(let e):
            pushSubscriptions[e.sessionHash] = nil
        case .appTokenIssued(let e):
            appTokens[e.tokenHash] = AppTokenRecord(app: e.appId, scopes: e.scopes, expiresAt: e.expiresAt)
        case .appTokenRevoked(let e):
            appTokens[e.tokenHash] = nil
        case .twoFactorEnrolled(let e):
            twoFactors[e.userId] = TwoFactorRecord(nonce: e.nonce)
        case .twoFactorConfirmed(let e):
            twoFactors[e.userId]?.confirmed = true
            twoFactors[e.userId]?.lastStep = e.step
            twoFactors[e.userId]?.recoveryCodeHashes = e.recoveryCodeHashes
        case .twoFactorCodeUsed(let e):
            if let step = e.step { twoFactors[e.userId]?.lastStep = step }
            twoFactors[e.userId]?.recoveryCodeHashes.removeAll { $0 == e.recoveryCodeHash }
        case .twoFactorDisabled(let e):
            twoFactors[e.userId] = nil
        case .actorKeyCreated(let e):
            actorKeys.insert(e.userId)
        case .domainBlocked(let e):
            blockedDomains.insert(e.host)
        case .domainUnblocked(let e):
            blockedDomains.remove(e.host)
        case .remotePostSeen(let e):
            remotePosts[e.object] = e.postId
        case .remoteCommentSeen(let e):
            remoteComments[e.object] = e.commentId
        case .accountDomainBlocked(let e):
            accountDomainBlocks.insert([e.userId.rawValue, e.host])
        case .accountDomainUnblocked(let e):
            accountDomainBlocks.remove([e.userId.rawValue, e.host])
        case .remoteAccountSeen(let e):
            remoteAccounts[e.actor] = RemoteAccountRecord(e)
            if users[e.userId] == nil {
                users[e.userId] = UserRecord(
                    id: e.userId, username: e.username, emailHash: nil, passwordHash: nil, bio: nil, url: nil,
                    createdAt: envelope.timestamp)
            }
            updateUser(e.userId) { user in
                user.username = e.username
                user.locked = e.locked
            }
        case .storyPosted(let e):
            storyRecords[e.storyId] = StoryRecord(
                id: e.storyId, author: e.authorId, postedAt: envelope.timestamp, width: e.width, height: e.height,
                variants: e.variants, blurhash: e.blurhash, video: e.video)
            if let video = e.video { media[video.media]?.story = e.storyId }
        case .storyViewed(let e):
            storyViews.insert([e.storyId.rawValue, e.viewerId.rawValue])
        case .storyHighlighted(let e):
            storyRecords[e.storyId]?.highlighted = true
        case .storyUnhighlighted(let e):
            storyRecords[e.storyId]?.highlighted = false
        case .storyDeleted(let e), .storyExpired(let e):
            if let video = storyRecords[e.storyId]?.video { media[video.media] = nil }
            storyRecords[e.storyId] = nil
            storyViews = storyViews.filter { $0[0] != e.storyId.rawValue }
        case .roleGranted(let e):
            updateUser(e.userId) { $0.moderator = true }
        case .roleRevoked(let e):
            updateUser(e.userId) { $0.moderator = false }
        case .userSuspended(let e):
            updateUser(e.userId) { $0.suspended = true }
            credentialChanges[e.userId] = envelope.sequence
        case .userUnsuspended(let e):
            updateUser(e.userId) { $0.suspended = false }
        case .userReported(let e):
            userReportEdges.insert([e.reporterId, e.userId])
        case .userReportsDismissed(let e):
            userReportEdges = userReportEdges.filter { $0[1] != e.userId }
        case .instanceTextSet(let e):
            instanceTexts[e.field] = e.text.isEmpty ? nil : e.text
        case .instanceRuleAdded(let e):
            rules.append(InstanceRuleRecord(id: e.ruleId, text: e.text, hint: e.hint))
        case .instanceRuleRemoved(let e):
            rules.removeAll { $0.id == e.ruleId }
        case .filterSaved(let e):
            if let i = filterRecords.firstIndex(where: { $0.filterId == e.filterId }) {
                filterRecords[i] = e
            } else {
                filterRecords.append(e)
            }
        case .filterDeleted(let e):
            filterRecords.removeAll { $0.filterId == e.filterId }
        case .announcementAdded(let e):
            announcementRecords[e.announcementId] = AnnouncementRecord(
                id: e.announcementId, text: e.text, startsAt: e.startsAt, endsAt: e.endsAt, allDay: e.allDay,
                publishedAt: envelope.timestamp)
        case .announcementRemoved(let e):
            announcementRecords[e.announcementId] = nil
            reactionLists[e.announcementId] = nil
            dismissals = dismissals.filter { $0[0] != e.announcementId.rawValue }
        case .announcementDismissed(let e):
            dismissals.insert([e.announcementId.rawValue, e.userId.rawValue])
        case .announcementReactionAdded(let e):
            var list = reactionLists[e.announcementId] ?? []
            if let i = list.firstIndex(where: { $0.name == e.name }) {
                list[i].users.append(e.userId)
            } else {
                list.append(AnnouncementReactionRecord(name: e.name, users: [e.userId]))
            }
            reactionLists[e.announcementId] = list
        case .announcementReactionRemoved(let e):
            var list = reactionLists[e.announcementId] ?? []
            if let i = list.firstIndex(where: { $0.name == e.name }) {
                list[i].users.removeAll { $0 == e.userId }
                if list[i].users.isEmpty { list.remove(at: i) }
            }
            reactionLists[e.announcementId] = list
        case .trendHidden(let e): hiddenTrends.insert([e.kind.rawValue, e.subject])
        case .trendShown(let e): hiddenTrends.remove([e.kind.rawValue, e.subject])
        case .notificationPolicySet(let e):
            notificationPolicies[e.userId] = e.policy
        case .listCreated(let e):
            listRecords.append(ListRecord(e))
        case .listUpdated(let e):
            if let i = listRecords.firstIndex(where: { $0.id == e.listId }) { listRecords[i] = ListRecord(e) }
        case .listDeleted(let e):
            listRecords.removeAll { $0.id == e.listId }
            listMembers = listMembers.filter { $0[0] != e.listId.rawValue }
        case .listAccountAdded(let e):
            listMembers.insert([e.listId.rawValue, e.accountId.rawValue])
        case .listAccountRemoved(let e):
            listMembers.remove([e.listId.rawValue, e.accountId.rawValue])
        case .collectionCreated(let e):
            collectionRecords.append(
                CollectionRecord(settings: e, createdAt: envelope.timestamp, updatedAt: envelope.timestamp))
        case .collectionUpdated(let e):
            if let i = collectionRecords.firstIndex(where: { $0.id == e.collectionId }) {
                collectionRecords[i].settings = e
                collectionRecords[i].updatedAt = envelope.timestamp
            }
        case .collectionDeleted(let e):
            collectionRecords.removeAll { $0.id == e.collectionId }
            collectionItemRecords.removeAll { $0.collection == e.collectionId }
        case .collectionItemAdded(let e):
            collectionItemRecords.append(
                CollectionItemRecord(
                    id: e.itemId, collection: e.collectionId, account: e.accountId, state: .accepted,
                    createdAt: envelope.timestamp))
        case .collectionItemRemoved(let e):
            collectionItemRecords.removeAll { $0.id == e.itemId }
        case .collectionItemRevoked(let e):
            if let i = collectionItemRecords.firstIndex(where: { $0.id == e.itemId }) {
                collectionItemRecords[i].state = .revoked
            }
        case .conversationRead: break  // deciding asks only whether a conversation is listed
        case .conversationRemoved(let e):
            listedConversations.remove([e.userId.rawValue, e.conversationId.rawValue])
        case .postScheduled(let e): scheduleRecords[e.scheduleId] = ScheduledPostRecord(e)
        case .scheduledPostChanged(let e): scheduleRecords[e.scheduleId]?.publishAt = e.publishAt
        case .scheduledPostCancelled(let e): scheduleRecords[e.scheduleId] = nil
        case .scheduledPostPublished(let e): scheduleRecords[e.scheduleId] = nil
        case .notificationRequestAccepted(let e), .notificationRequestDismissed(let e):
            // Deciding asks only whether a request is held; the requests are those a test gave.
            heldRequests[e.userId]?.remove(e.accountId)
        case .pollSet(let e):
            dropPoll(e.pollId)
            pollRecords[e.pollId] = PollRecord(
                id: e.pollId, post: e.postId, author: e.authorId, options: e.options, multiple: e.multiple,
                hideTotals: e.hideTotals, expiresAt: e.expiresAt)
        case .pollRemoved(let e):
            dropPoll(e.pollId)
        case .pollVoted(let e):
            pollVoters.insert([e.pollId.rawValue, e.userId.rawValue])
        case .postPlaced, .postMarkedSensitive:
            break  // deciding never reads a post's place or whether it is sensitive
        case .postEdited(let e):
            updatePost(e.postId) { post in
                post.caption = e.caption
                post.hashtags = e.hashtags
            }
        case .postImageProcessed(let e):
            updatePost(e.postId) { post in
                post.image = e.variants.full
                post.width = e.width
                post.height = e.height
                post.variants = e.variants
            }
        case .postDeleted(let e):
            removePost(e.postId, author: e.authorId)
            remotePosts = remotePosts.filter { $0.value != e.postId }
        case .postRemoved(let e):
            removePost(e.postId, author: e.authorId)
            remotePosts = remotePosts.filter { $0.value != e.postId }
        case .reportsDismissed(let e):
            dismissedReports.formUnion(reportEdges.filter { $0[1] == e.postId.rawValue })
        case .commentAdded(let e):
            comments[e.commentId] = CommentRecord(
                id: e.commentId, post: e.postId, author: e.authorId, text: e.text,
                createdAt: envelope.timestamp, replyTo: e.replyTo)
            updatePost(e.postId) { $0.commentCount += 1 }
        case .commentDeleted(let e):
            comments[e.commentId] = nil
            remoteComments = remoteComments.filter { $0.value != e.commentId }
            updatePost(e.postId) { $0.commentCount -= 1 }
        case .likeAdded(let e):
            likeEdges.insert([e.userId.rawValue, e.postId.rawValue])
            updatePost(e.postId) { $0.likeCount += 1 }
        case .likeRemoved(let e):
            likeEdges.remove([e.userId.rawValue, e.postId.rawValue])
            updatePost(e.postId) { $0.likeCount -= 1 }
        case .followRequested(let e):
            requestEdges.append([e.followerId, e.followeeId])
        case .followRequestRejected(let e), .followRequestWithdrawn(let e):
            requestEdges.removeAll { $0 == [e.followerId, e.followeeId] }
            notifyEdges.remove([e.followerId, e.followeeId])
            hiddenBoostEdges.remove([e.followerId, e.followeeId])
        case .postBoosted(let e):
            boostRecords[e.boostId] = BoostRecord(
                id: e.boostId, post: e.postId, author: e.authorId, booster: e.userId, visibility: e.visibility,
                createdAt: envelope.timestamp)
        case .boostRemoved(let e):
            boostRecords[e.boostId] = nil
        case .boostsHidden(let e):
            hiddenBoostEdges.insert([e.followerId, e.followeeId])
        case .boostsShown(let e):
            hiddenBoostEdges.remove([e.followerId, e.followeeId])
        case .postNotificationsOn(let e):
            notifyEdges.insert([e.followerId, e.followeeId])
        case .postNotificationsOff(let e):
            notifyEdges.remove([e.followerId, e.followeeId])
        case .followed(let e):
            requestEdges.removeAll { $0 == [e.followerId, e.followeeId] }
            followEdges.insert([e.followerId, e.followeeId])
            updateUser(e.followerId) { $0.followingCount += 1 }
            updateUser(e.followeeId) { $0.followerCount += 1 }
        case .unfollowed(let e):
            endorsementEdges.remove([e.followerId, e.followeeId])
            followEdges.remove([e.followerId, e.followeeId])
            // An unfollow takes the account out of its follower's lists.
            for list in lists(of: e.followerId) { listMembers.remove([list.id.rawValue, e.followeeId.rawValue]) }
            notifyEdges.remove([e.followerId, e.followeeId])
            hiddenBoostEdges.remove([e.followerId, e.followeeId])
            updateUser(e.followerId) { $0.followingCount -= 1 }
            updateUser(e.followeeId) { $0.followerCount -= 1 }
        case .blocked(let e):
            blockEdges.insert([e.blockerId, e.blockedId])
            // Neither stays in the other's collections.
            let owners = Dictionary(collectionRecords.map { ($0.id, $0.owner) }) { a, _ in a }
            collectionItemRecords.removeAll {
                ($0.account == e.blockedId && owners[$0.collection] == e.blockerId)
                    || ($0.account == e.blockerId && owners[$0.collection] == e.blockedId)
            }
        case .unblocked(let e):
            blockEdges.remove([e.blockerId, e.blockedId])
        case .muted(let e):
            mutes[e.muterId, default: [:]][e.mutedId] = .some(e.until)
        case .unmuted(let e):
            mutes[e.muterId]?[e.mutedId] = nil
        case .activityRead(let e):
            activityMarkers[e.userId] = e.upTo
        case .bookmarked(let e):
            bookmarkEdges.insert([e.userId.rawValue, e.postId.rawValue])
        case .unbookmarked(let e):
            bookmarkEdges.remove([e.userId.rawValue, e.postId.rawValue])
        case .postReported(let e):
            reportEdges.insert([e.reporterId.rawValue, e.postId.rawValue])
        case .userErased(let e):
            twoFactors[e.userId] = nil
            actorKeys.remove(e.userId)
            remoteAccounts = remoteAccounts.filter { $0.value.userId != e.userId }
            for story in storyRecords.values where story.author == e.userId {
                if let video = story.video { media[video.media] = nil }
            }
            let stories = Set(storyRecords.values.filter { $0.author == e.userId }.map(\.id.rawValue))
            storyRecords = storyRecords.filter { $0.value.author != e.userId }
            storyViews = storyViews.filter { !stories.contains($0[0]) && $0[1] != e.userId.rawValue }
            let gone = Set(collections(of: e.userId).map(\.id))
            collectionItemRecords.removeAll { gone.contains($0.collection) || $0.account == e.userId }
            collectionRecords.removeAll { $0.owner == e.userId }
            listedConversations = listedConversations.filter { $0[0] != e.userId.rawValue }
            scheduleRecords = scheduleRecords.filter { $0.value.author != e.userId }
            pinEdges = pinEdges.filter { $0[0] != e.userId.rawValue }
            conversationMuteEdges = conversationMuteEdges.filter { $0[0] != e.userId.rawValue }
            accountNotes = accountNotes.filter { !$0.key.contains(e.userId) }
            endorsementEdges = endorsementEdges.filter { !$0.contains(e.userId) }
            dismissedSuggestionEdges = dismissedSuggestionEdges.filter { !$0.contains(e.userId) }
            annualReportMarks = annualReportMarks.filter { $0.key[0] != e.userId.rawValue }
            featuredTagEdges = featuredTagEdges.filter { $0[0] != e.userId.rawValue }
            followedTagEdges = followedTagEdges.filter { $0[0] != e.userId.rawValue }
            for list in lists(of: e.userId) { listMembers = listMembers.filter { $0[0] != list.id.rawValue } }
            listRecords.removeAll { $0.owner == e.userId }
            resetRequests[e.userId] = nil
            users[e.userId] = nil
            pushSubscriptions = pushSubscriptions.filter { $0.value.user != e.userId }
            activityMarkers[e.userId] = nil
            activityItems[e.userId] = nil
            notificationPolicies[e.userId] = nil
            heldRequests[e.userId] = nil
            filterRecords.removeAll { $0.userId == e.userId }
            hiddenBoostEdges = hiddenBoostEdges.filter { $0[0] != e.userId }
            reportEdges = reportEdges.filter { $0[0] != e.userId.rawValue }
            dismissedReports = dismissedReports.filter { $0[0] != e.userId.rawValue }
            userReportEdges = userReportEdges.filter { !$0.contains(e.userId) }
            dismissals = dismissals.filter { $0[1] != e.userId.rawValue }
            for (id, list) in reactionLists {
                reactionLists[id] = list.compactMap { reaction in
                    var reaction = reaction
                    reaction.users.removeAll { $0 == e.userId }
                    return reaction.users.isEmpty ? nil : reaction
                }
            }
        case .passwordResetRequested(let e):
            resets[e.tokenHash] = SessionRecord(user: e.userId, expiresAt: e.expiresAt)
            issued[e.tokenHash] = envelope.sequence
            if e.nonce != nil { resetRequests[e.userId] = envelope.timestamp }
        case .passwordChanged(let e):
            updateUser(e.userId) { user in
                user.passwordHash = e.passwordHash
                if let email = e.email { user.emailHash = hashEmail(email) }
            }
            if let used = e.resetTokenHash { resets[used] = nil }
            credentialChanges[e.userId] = envelope.sequence
        case .emailChanged(let e):
            updateUser(e.userId) { user in if let email = e.email { user.emailHash = hashEmail(email) } }
        case .postPinned(let e): pinEdges.insert([e.userId.rawValue, e.postId.rawValue])
        case .postUnpinned(let e): pinEdges.remove([e.userId.rawValue, e.postId.rawValue])
        case .conversationMuted(let e): conversationMuteEdges.insert([e.userId.rawValue, e.postId.rawValue])
        case .conversationUnmuted(let e): conversationMuteEdges.remove([e.userId.rawValue, e.postId.rawValue])
        case .accountNoteSet(let e): accountNotes[[e.userId, e.targetId]] = e.note.isEmpty ? nil : e.note
        case .accountEndorsed(let e): endorsementEdges.insert([e.userId, e.targetId])
        case .accountUnendorsed(let e): endorsementEdges.remove([e.userId, e.targetId])
        case .suggestionDismissed(let e): dismissedSuggestionEdges.insert([e.userId, e.targetId])
        case .annualReportGenerated(let e): annualReportMarks[[e.userId.rawValue, String(e.year)]] = false
        case .annualReportRead(let e): annualReportMarks[[e.userId.rawValue, String(e.year)]] = true
        case .tagFeatured(let e): featuredTagEdges.insert([e.userId.rawValue, e.tag])
        case .tagUnfeatured(let e): featuredTagEdges.remove([e.userId.rawValue, e.tag])
        case .tagFollowed(let e): followedTagEdges.insert([e.userId.rawValue, e.tag])
        case .tagUnfollowed(let e): followedTagEdges.remove([e.userId.rawValue, e.tag])
        }
    }
}

/// One contract for every `DecisionState`: the tests' in-memory state (folded from the log) and
/// the LMDB one (`ReadView`, the projections) must answer every question `decide` asks alike,
/// after the same history. (The Eventuous habit: one store suite, every backend.)
@Suite struct DecisionStateContractTests {
    /// Every question deciding can ask, over every identifier the log names, as text.
    func answers(_ state: some DecisionState, log: [EventEnvelope], now: Int64) throws -> [String] {
        var users: [UserID] = [], posts: [PostID] = [], comments: [CommentID] = []
        var usernames: Set<String> = [], emails: Set<String> = [], tokens: Set<String> = [], limiters: Set<String> = []
        var announcements: [AnnouncementID] = [], polls: [PollID] = []
        var lists: [ListID] = [], collections: [CollectionID] = []
        for envelope in log {
            users += envelope.event.users
            if let post = envelope.event.post { posts.append(post) }
            switch envelope.event {
            case .userCreated(let e):
                usernames.insert(e.username)
                e.email.map { _ = emails.insert($0) }
            case .profileUpdated(let e): e.username.map { _ = usernames.insert($0) }
            case .emailChanged(let e): e.email.map { _ = emails.insert($0) }
            case .passwordChanged(let e): e.email.map { _ = emails.insert($0) }
            case .commentAdded(let e): comments.append(e.commentId)
            case .signedIn(let e): tokens.insert(e.sessionHash)
            case .appAuthorized(let e): tokens.insert(e.codeHash)
            case .appTokenIssued(let e): tokens.insert(e.tokenHash)
            case .pushSubscribed(let e): tokens.insert(e.sessionHash)
            case .passwordResetRequested(let e): tokens.insert(e.tokenHash)
            case .signInFailed(let e): limiters.insert(e.limiterKey)
            case .announcementAdded(let e): announcements.append(e.announcementId)
            case .pollSet(let e): polls.append(e.pollId)
            case .listCreated(let e): lists.append(e.listId)
            case .collectionCreated(let e): collections.append(e.collectionId)
            default: break  // the ids every event names were taken above
            }
        }
        users = Array(Set(users)).sorted { $0.rawValue < $1.rawValue }
        posts = Array(Set(posts)).sorted { $0.rawValue < $1.rawValue }
        var out: [String] = []
        for user in users {
            out.append("user \(user): \(String(describing: try state.user(user)))")
            out.append("footprint \(user): \(try state.footprint(of: user))")
            out.append("notification policy \(user): \(try state.notificationPolicy(of: user))")
            out.append("filters \(user): \(try state.filters(of: user))")
            for filter in try state.filters(of: user) {
                for id in [filter.filterId.rawValue] + filter.keywords.map(\.id) + filter.statuses.map(\.id) {
                    out.append("filter holding \(id): \(String(describing: try state.filter(holding: id)))")
                }
            }
            out.append("pin count \(user): \(try state.pinCount(user))")
            for year in [2023, 2024] {
                out.append(
                    "annual report \(user) \(year): \(String(describing: try state.annualReportRead(user, year)))")
            }
            out.append("featured tag count \(user): \(try state.featuredTagCount(user))")
            out.append("followed tag count \(user): \(try state.followedTagCount(user))")
            for tag in ["tag0", "tag1", "cats"] {
                out.append("features \(user) \(tag): \(try state.featuresTag(user, tag))")
                out.append("follows tag \(user) \(tag): \(try state.followsTag(user, tag))")
            }
            for other in users {
                out.append("follows \(user) \(other): \(try state.follows(user, other))")
                out.append("notifies \(user) \(other): \(try state.notifies(user, other))")
                out.append("note \(user) \(other): \(String(describing: try state.accountNote(user, other)))")
                out.append("endorses \(user) \(other): \(try state.endorses(user, other))")
                out.append("dismissed suggestion \(user) \(other): \(try state.dismissedSuggestion(user, other))")
            }
            for poll in polls { out.append("voted \(user) \(poll): \(try state.voted(user, in: poll))") }
            for post in posts {
                out.append("likes \(user) \(post): \(try state.likes(user, post))")
                out.append("reported \(user) \(post): \(try state.reported(user, post))")
                out.append("pinned \(user) \(post): \(try state.pinned(user, post))")
                out.append("mutes conversation \(user) \(post): \(try state.mutesConversation(user, post))")
            }
        }
        for poll in polls { out.append("poll \(poll): \(String(describing: try state.poll(poll)))") }
        for id in collections {
            out.append("collection \(id): \(String(describing: try state.collection(id)))")
            out.append("collection items \(id): \(try state.collectionItems(id))")
        }
        for user in users { out.append("collections of \(user): \(try state.collections(of: user))") }
        for post in posts { out.append("poll of \(post): \(String(describing: try state.poll(ofPost: post)))") }
        for field in InstanceTextField.allCases { out.append("text \(field): \(try state.instanceText(field))") }
        out.append("rules: \(try state.instanceRules())")
        for post in posts { out.append("trend hidden \(post): \(try state.trendHidden(.post, post.rawValue))") }
        for tag in ["tag0", "tag1"] { out.append("trend hidden #\(tag): \(try state.trendHidden(.tag, tag))") }
        for id in announcements {
            out.append("announcement \(id): \(String(describing: try state.announcement(id)))")
            out.append("reactions \(id): \(try state.announcementReactions(id))")
            for user in users {
                out.append("dismissed \(id) \(user): \(try state.announcementDismissed(id, by: user))")
            }
        }
        for id in lists {
            out.append("list \(id): \(String(describing: try state.list(id)))")
            for user in users { out.append("list \(id) has \(user): \(try state.listHas(id, user))") }
        }
        for user in users { out.append("lists of \(user): \(try state.lists(of: user))") }
        for user in users {
            for post in posts {
                let listed = try state.conversationListed(ConversationID(post.rawValue), for: user)
                out.append("conversation \(post) listed for \(user): \(listed)")
            }
        }
        for name in usernames.sorted() {
            out.append("username \(name): \(String(describing: try state.userID(username: name)))")
        }
        for email in emails.sorted() {
            out.append("email \(email): \(String(describing: try state.userID(email: email)))")
        }
        for post in posts {
            out.append("post \(post): \(String(describing: try state.post(post)))")
            for limit in [1, 2, 100] {
                out.append("standing reports \(post) up to \(limit): \(try state.standingReports(post, upTo: limit))")
            }
        }
        for comment in comments { out.append("comment \(comment): \(String(describing: try state.comment(comment)))") }
        for token in tokens.sorted() {
            out.append("session \(token): \(String(describing: try state.session(hash: token)))")
            out.append("reset \(token): \(String(describing: try state.passwordReset(hash: token)))")
            out.append("authorization \(token): \(String(describing: try state.authorization(hash: token)))")
            out.append("app token \(token): \(String(describing: try state.appToken(hash: token)))")
            out.append("push \(token): \(String(describing: try state.pushSubscription(sessionHash: token)))")
        }
        for key in limiters.sorted() {
            for since in [0, now - SignInPolicy.window, now - 1_000, now] {
                out.append("failures \(key) since \(since): \(try state.signInFailures(limiterKey: key, since: since))")
            }
        }
        return out
    }

    /// A history that touches every event type: profiles, sessions (some revoked by password
    /// changes), failed sign-ins, posts with likes and comments (on one's own posts too),
    /// follows both ways, reports (some dismissed), a removed post, posts from before the image
    /// pipeline (one reprocessed), an email change and erasures.
    func history(_ service: TimelineService, clock: TestClock) async throws {
        let alice = try await service.createUser("alice"), bob = try await service.createUser("bob")
        let carol = try await service.createUser("carol"), dave = try await service.createUser("dave")
        for (a, b) in [(alice, bob), (bob, alice), (carol, alice), (carol, bob), (dave, carol), (alice, dave)] {
            _ = try await service.execute(
                .follow(user: b.id.rawValue, notify: a.id == bob.id || a.id == carol.id ? true : nil),
                as: .user(a.id.rawValue))
        }
        _ = try await service.execute(.follow(user: bob.id.rawValue, notify: false), as: .user(carol.id.rawValue))
        var posts: [Post] = []
        for (index, user) in [alice, bob, carol, alice, dave, carol].enumerated() {
            posts.append(
                try await service.addPost(by: user.id, caption: "post \(index) #tag\(index % 2)", image: index))
            clock.advance(1_000)
        }
        for user in [alice, bob, carol, dave] {
            for post in posts where post.id.rawValue.hashValue % 3 != 0 || post.author == user.id {
                _ = try await service.execute(.like(post: post.id.rawValue), as: .user(user.id.rawValue))
            }
            for post in posts.prefix(4) {
                _ = try await service.addComment(by: user.id, on: post.id, "from \(user.username)")
            }
        }
        _ = try await service.execute(.unlike(post: posts[1].id.rawValue), as: .user(alice.id.rawValue))
        // Direct messages: one conversation of three (read by one, removed by another), one
        // whose only message is deleted.
        func direct(_ text: String, _ author: UserID) async throws -> String {
            guard
                case .post(let post) = try await service.execute(
                    .addDirectPost(caption: text), as: .user(author.rawValue))
            else { throw TimelineError(.internal, "no post") }
            return post.id.rawValue
        }
        let opening = try await direct("@bob @carol lunch?", alice.id)
        _ = try await direct("@alice @carol yes", bob.id)
        _ = try await service.execute(.markConversationRead(conversation: opening), as: .user(carol.id.rawValue))
        _ = try await service.execute(.removeConversation(conversation: opening), as: .user(bob.id.rawValue))
        let lone = try await direct("@alice psst", dave.id)
        _ = try await service.execute(.deletePost(post: lone), as: .user(dave.id.rawValue))
        // Profile extras: pins (one of a post deleted below), muted conversations, notes and
        // endorsements (one ended by a removal from the followers).
        for (command, user) in [
            (Command.pin(post: posts[0].id.rawValue), alice), (.pin(post: posts[3].id.rawValue), alice),
            (.pin(post: posts[2].id.rawValue), carol), (.unpin(post: posts[2].id.rawValue), carol),
            (.muteConversation(post: posts[1].id.rawValue), carol),
            (.muteConversation(post: posts[0].id.rawValue), bob),
            (.unmuteConversation(post: posts[0].id.rawValue), bob),
            (.setAccountNote(user: bob.id.rawValue, note: "met at the lake"), alice),
            (.setAccountNote(user: carol.id.rawValue, note: "x"), alice),
            (.setAccountNote(user: carol.id.rawValue, note: ""), alice),
            (.endorse(user: bob.id.rawValue), alice), (.endorse(user: carol.id.rawValue), dave),
            (.removeFromFollowers(user: dave.id.rawValue), carol),
            (.featureTag(tag: "#Tag0"), alice), (.featureTag(tag: "cats"), alice), (.unfeatureTag(tag: "cats"), alice),
            (.featureTag(tag: "tag1"), dave),
            (.dismissSuggestion(user: carol.id.rawValue), bob), (.dismissSuggestion(user: carol.id.rawValue), bob),
            (.generateAnnualReport(year: "2023"), alice), (.readAnnualReport(year: "2023"), alice),
            (.generateAnnualReport(year: "2023"), bob),
            (.followTag(tag: "#Tag0"), alice), (.followTag(tag: "cats"), alice), (.unfollowTag(tag: "cats"), alice),
            (.followTag(tag: "tag1"), dave)
        ] {
            _ = try await service.execute(command, as: .user(user.id.rawValue))
        }
        _ = try await service.execute(.unfollow(user: alice.id.rawValue), as: .user(bob.id.rawValue))
        _ = try await service.execute(.deletePost(post: posts[3].id.rawValue), as: .user(alice.id.rawValue))
        _ = try await service.execute(
            .reportPost(post: posts[1].id.rawValue, reason: "spam"), as: .user(dave.id.rawValue))
        // Moderation: reports dismissed (and one made after), a post removed with its reports.
        for user in [bob, carol] {
            _ = try await service.execute(
                .reportPost(post: posts[0].id.rawValue, reason: "rude"), as: .user(user.id.rawValue))
        }
        _ = try await service.execute(.dismissReports(post: posts[0].id.rawValue), as: .operator)
        _ = try await service.execute(
            .reportPost(post: posts[0].id.rawValue, reason: "still rude"), as: .user(dave.id.rawValue))
        _ = try await service.execute(
            .reportPost(post: posts[5].id.rawValue, reason: "spam"), as: .user(bob.id.rawValue))
        _ = try await service.execute(.removePost(post: posts[5].id.rawValue, reason: "spam"), as: .operator)
        // A post from before the image pipeline, then given its variants (one left without).
        _ = try MediaReprocessTests.addOldPost(service, by: dave.id, gifBytes(40))
        _ = try service.reprocessMedia()
        _ = try MediaReprocessTests.addOldPost(service, by: bob.id, gifBytes(41))
        _ = try await service.execute(
            .updateProfile(username: "bobby", bio: "hi", url: "https://bob.example"), as: .user(bob.id.rawValue))
        _ = try await service.execute(.updateProfile(username: nil, bio: "", url: nil), as: .user(bob.id.rawValue))
        _ = try await service.execute(
            .updateProfile(username: nil, bio: nil, url: nil, discoverable: false), as: .user(dave.id.rawValue))
        // Sessions: one ended by sign-out, one by a password change, one alive.
        for user in [alice, bob, carol] {
            _ = try await service.execute(.signIn(email: "\(user.username)@example.com", password: "password-123"))
        }
        guard
            case .session(let token, _) = try await service.execute(
                .signIn(email: "dave@example.com", password: "password-123"))
        else { throw TimelineError(.internal, "no session") }
        _ = try await service.execute(.signOut(session: token))
        _ = try await service.execute(
            .changePassword(currentPassword: "password-123", newPassword: "password-456"), as: .user(alice.id.rawValue))
        _ = try await service.execute(
            .changeEmail(password: "password-123", email: "carol@new.example"), as: .user(carol.id.rawValue))
        // Reset tokens: one used, one revoked by that use, one open.
        guard
            case .token(let reset) = try await service.execute(
                .requestPasswordReset(user: dave.id.rawValue), as: .operator),
            case .token = try await service.execute(.requestPasswordReset(user: dave.id.rawValue), as: .operator)
        else { throw TimelineError(.internal, "no token") }
        _ = try await service.execute(.resetPassword(token: reset, password: "password-789", email: nil))
        _ = try await service.execute(.requestPasswordReset(user: bob.id.rawValue), as: .operator)
        for _ in 0..<3 { _ = try? await service.execute(.signIn(email: "bob@example.com", password: "wrong")) }
        clock.advance(5_000)
        _ = try? await service.execute(.signIn(email: "nobody@example.com", password: "wrong"))
        _ = try? await service.execute(.signIn(email: "bob@example.com", password: "wrong"), origin: "10.0.0.1")
        // The instance: texts (one set, then taken away), rules (one removed), announcements with
        // dismissals and reactions (one taken back; one announcement removed with its marks).
        _ = try await service.execute(.setInstanceText(field: "title", text: "Photos"), as: .operator)
        _ = try await service.execute(.setInstanceText(field: "privacyPolicy", text: "We keep little."), as: .operator)
        _ = try await service.execute(.setInstanceText(field: "privacyPolicy", text: ""), as: .operator)
        var made: [String] = []
        for text in ["Be kind", "No spam"] {
            guard case .created(let id) = try await service.execute(.addInstanceRule(text: text), as: .operator)
            else { throw TimelineError(.internal, "no rule") }
            made.append(id)
        }
        _ = try await service.execute(.removeInstanceRule(rule: made[0]), as: .operator)
        for text in ["Welcome", "Maintenance"] {
            guard case .created(let id) = try await service.execute(.addAnnouncement(text: text), as: .operator)
            else { throw TimelineError(.internal, "no announcement") }
            made.append(id)
        }
        for (user, name) in [(alice, "👍"), (bob, "👍"), (bob, "🎉"), (dave, "🎉"), (carol, "😀")] {
            for id in made.suffix(2) {
                _ = try await service.execute(
                    .addAnnouncementReaction(announcement: id, name: name), as: .user(user.id.rawValue))
            }
        }
        _ = try await service.execute(
            .removeAnnouncementReaction(announcement: made[2], name: "👍"), as: .user(alice.id.rawValue))
        _ = try await service.execute(.dismissAnnouncement(announcement: made[2]), as: .user(bob.id.rawValue))
        _ = try await service.execute(.dismissAnnouncement(announcement: made[2]), as: .user(carol.id.rawValue))
        _ = try await service.execute(.dismissAnnouncement(announcement: made[3]), as: .user(dave.id.rawValue))
        _ = try await service.execute(.removeAnnouncement(announcement: made[3]), as: .operator)
        // Trends: a tag and a post hidden, the post shown again.
        _ = try await service.execute(.hideTrend(tag: "#Tag0"), as: .operator)
        _ = try await service.execute(.hideTrend(post: posts[2].id.rawValue), as: .operator)
        _ = try await service.execute(.hideTrend(post: posts[0].id.rawValue), as: .operator)
        _ = try await service.execute(.showTrend(post: posts[0].id.rawValue), as: .operator)
        // Polls: one voted in (carol too, erased below), one edited (its votes start over) and
        // one taken away by an edit.
        var pollPosts: [Post] = []
        for (index, multiple) in [false, true, false].enumerated() {
            guard
                case .post(let post) = try await service.execute(
                    .addPost(
                        image: gifBase64(20 + index), caption: "poll \(index)",
                        poll: PollDraft(options: ["a", "b", "c"], expiresIn: 3_600, multiple: multiple)),
                    as: .user(alice.id.rawValue))
            else { throw TimelineError(.internal, "no post") }
            pollPosts.append(post)
        }
        for (user, choices) in [(alice, [0]), (bob, [1]), (carol, [1]), (dave, [2])] {
            for post in pollPosts {
                guard let poll = try service.poll(of: post.id, viewer: user.id) else { continue }
                _ = try await service.execute(
                    .vote(poll: poll.id.rawValue, choices: poll.multiple ? choices + [0] : choices),
                    as: .user(user.id.rawValue))
            }
        }
        _ = try await service.execute(
            .editPost(
                post: pollPosts[1].id.rawValue, caption: nil,
                poll: .some(PollDraft(options: ["x", "y"], expiresIn: 600))),
            as: .user(alice.id.rawValue))
        _ = try await service.execute(
            .editPost(post: pollPosts[2].id.rawValue, caption: nil, poll: .some(nil)), as: .user(alice.id.rawValue))
        // Lists: alice's with bob and dave (dave taken out again), one deleted; carol's
        // (exclusive) goes with her erasure, and she leaves dave's list with the unfollow it makes.
        func list(_ user: Profile, _ title: String, exclusive: Bool? = nil, _ members: [Profile]) async throws
            -> String
        {
            guard
                case .created(let id) = try await service.execute(
                    .createList(title: title, exclusive: exclusive), as: .user(user.id.rawValue))
            else { throw TimelineError(.internal, "no list") }
            _ = try await service.execute(
                .addToList(list: id, users: members.map(\.id.rawValue)), as: .user(user.id.rawValue))
            return id
        }
        let friends = try await list(alice, "Friends", [bob, dave])
        _ = try await service.execute(
            .removeFromList(list: friends, users: [dave.id.rawValue]), as: .user(alice.id.rawValue))
        let old = try await list(alice, "Old", [bob])
        _ = try await service.execute(.deleteList(list: old), as: .user(alice.id.rawValue))
        _ = try await list(carol, "Mine", exclusive: true, [alice, bob])
        // Carol removed dave from her followers (above): he follows her again to list her.
        _ = try await service.execute(.follow(user: carol.id.rawValue), as: .user(dave.id.rawValue))
        let davesList = try await list(dave, "Carol", [carol])
        _ = try await service.execute(
            .updateList(list: davesList, title: "Carol's", repliesPolicy: "none"), as: .user(dave.id.rawValue))
        // Collections: alice features bob and carol (bob revokes, carol is taken out, dave, not
        // discoverable, cannot be added); carol's goes with her erasure; dave's of alice and bob
        // loses alice when she blocks him (and unblocks after).
        func collection(_ user: Profile, _ name: String, _ members: [Profile]) async throws -> String {
            guard
                case .created(let id) = try await service.execute(
                    .createCollection(name: name, accounts: members.map(\.id.rawValue)), as: .user(user.id.rawValue))
            else { throw TimelineError(.internal, "no collection") }
            return id
        }
        let starters = try await collection(alice, "Starters", [bob])
        await #expect(throws: TimelineError.self) {
            try await service.execute(
                .addToCollection(collection: starters, account: dave.id.rawValue), as: .user(alice.id.rawValue))
        }
        guard
            case .created(let carolItem) = try await service.execute(
                .addToCollection(collection: starters, account: carol.id.rawValue), as: .user(alice.id.rawValue))
        else { throw TimelineError(.internal, "no item") }
        _ = try await service.execute(
            .removeFromCollection(collection: starters, item: carolItem), as: .user(alice.id.rawValue))
        _ = try await service.execute(
            .updateCollection(collection: starters, name: "Starter pack", language: "en", tag: "photo"),
            as: .user(alice.id.rawValue))
        let bobItem = try #require(
            try service.collection(CollectionID(starters), viewer: alice.id).items.first { $0.account == bob.id })
        _ = try await service.execute(
            .revokeCollectionItem(collection: starters, item: bobItem.id.rawValue), as: .user(bob.id.rawValue))
        let gone = try await collection(alice, "Gone", [bob])
        _ = try await service.execute(.deleteCollection(collection: gone), as: .user(alice.id.rawValue))
        _ = try await collection(carol, "Carol's", [alice])
        _ = try await collection(dave, "Dave's", [alice, bob])
        _ = try await service.execute(.block(user: dave.id.rawValue), as: .user(alice.id.rawValue))
        _ = try await service.execute(.unblock(user: dave.id.rawValue), as: .user(alice.id.rawValue))
        // Erasures: carol's posts, likes, comments and follows go with her.
        _ = try await service.execute(
            .eraseUser(user: carol.id.rawValue, password: "password-123"), as: .user(carol.id.rawValue))
    }

    @Test func bothStatesAnswerAlike() async throws {
        let clock = TestClock()
        let service = try openService(clock: clock)
        defer { service.close() }
        try await history(service, clock: clock)
        let log = try service.events(from: 1, limit: 100_000)
        var memory = InMemoryState()
        let keys = service.log.keys
        memory.hashEmail = { keys.emailHash($0) }
        for envelope in log { memory.apply(envelope) }
        let now = clock.nowMilliseconds()
        let lmdb = try service.read { view in try answers(view, log: log, now: now) }
        let inMemory = try answers(memory, log: log, now: now)
        #expect(lmdb.count == inMemory.count && lmdb.count > 80)
        for (a, b) in zip(lmdb, inMemory) where a != b { Issue.record("LMDB: \(a)\nin memory: \(b)") }
        // Carol reacted with 😀 before she was erased: her reaction went with her.
        #expect(log.contains { if case .announcementReactionAdded(let e) = $0.event { e.name == "😀" } else { false } })
        #expect(!lmdb.contains { $0.hasPrefix("reactions") && $0.contains("😀") }, "an erased user's reactions go")
        // And so decide alike: erasing each remaining user (the footprint's order and content
        // become events).
        for user in memory.users.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            let fromLMDB = try service.read { view in
                try decide(.eraseUser(user: user.rawValue), actor: .operator, state: view, context: context(now: now))
                    .events
            }
            let fromMemory = try decide(
                .eraseUser(user: user.rawValue), actor: .operator, state: memory, context: context(now: now)
            ).events
            #expect(fromLMDB == fromMemory)
            #expect(fromLMDB.count > 1)
        }
    }
}
