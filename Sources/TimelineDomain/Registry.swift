import Foundation

// The registry: every command type and every event of Timeline. A command is defined once, in
// its feature's file (`Features/`), by a `CommandDefinition` type listed here. An event is a
// case here: the exhaustive switches below then fail to build until each has its arm, and the
// payload's `EventPayload` conformance asks for the rest (docs/adding-a-command.md).

// MARK: - Commands

extension Command {
    /// Every command type, each defined in its feature's file.
    package static let definitions: [any CommandDefinition.Type] = [
        CreateUserCommand.self, SignInCommand.self, SignOutCommand.self, SignOutEverywhereCommand.self,
        UpdateProfileCommand.self,
        FollowCommand.self, UnfollowCommand.self, AddPostCommand.self, DeletePostCommand.self,
        AddCommentCommand.self, DeleteCommentCommand.self, LikeCommand.self, UnlikeCommand.self,
        ReblogCommand.self, UnreblogCommand.self,
        BookmarkCommand.self, UnbookmarkCommand.self, BlockCommand.self, UnblockCommand.self, MuteCommand.self,
        UnmuteCommand.self,
        ApproveFollowRequestCommand.self, RejectFollowRequestCommand.self,
        UploadMediaCommand.self, UpdateMediaCommand.self, DeleteMediaCommand.self, ExpireMediaCommand.self,
        UploadVideoCommand.self, FinishVideoCommand.self,
        GrantRoleCommand.self, RevokeRoleCommand.self, ReportUserCommand.self, DismissUserReportsCommand.self,
        SuspendUserCommand.self,
        UnsuspendUserCommand.self, RegisterAppCommand.self, AuthorizeAppCommand.self, DismissActivityCommand.self,
        SubscribePushCommand.self, UnsubscribePushCommand.self,
        EndPushSubscriptionCommand.self, RedeemAuthorizationCommand.self,
        IssueAppTokenCommand.self, CheckSignInCommand.self, RevokeTokenCommand.self,
        MarkActivityReadCommand.self, EditPostCommand.self,
        ReportPostCommand.self, RemovePostCommand.self, DismissReportsCommand.self, EraseUserCommand.self,
        RequestPasswordResetCommand.self, RequestPasswordResetByEmailCommand.self, ResetPasswordCommand.self,
        ChangePasswordCommand.self,
        ChangeEmailCommand.self,
        SetInstanceTextCommand.self, AddInstanceRuleCommand.self, RemoveInstanceRuleCommand.self,
        AddAnnouncementCommand.self, RemoveAnnouncementCommand.self, DismissAnnouncementCommand.self,
        AddAnnouncementReactionCommand.self, RemoveAnnouncementReactionCommand.self,
        HideTrendCommand.self, ShowTrendCommand.self,
        SetNotificationPolicyCommand.self, AcceptNotificationRequestCommand.self,
        DismissNotificationRequestCommand.self,
        CreateFilterCommand.self, UpdateFilterCommand.self, DeleteFilterCommand.self, AddFilterKeywordCommand.self,
        UpdateFilterKeywordCommand.self, RemoveFilterKeywordCommand.self, AddFilterStatusCommand.self,
        RemoveFilterStatusCommand.self,
        VoteCommand.self,
        PinCommand.self, UnpinCommand.self, MuteConversationCommand.self, UnmuteConversationCommand.self,
        SetAccountNoteCommand.self, RemoveFromFollowersCommand.self, EndorseCommand.self, UnendorseCommand.self,
        FeatureTagCommand.self, UnfeatureTagCommand.self,
        DismissSuggestionCommand.self, GenerateAnnualReportCommand.self, ReadAnnualReportCommand.self,
        FollowTagCommand.self, UnfollowTagCommand.self,
        CreateListCommand.self, UpdateListCommand.self, DeleteListCommand.self, AddToListCommand.self,
        RemoveFromListCommand.self,
        CreateCollectionCommand.self, UpdateCollectionCommand.self, DeleteCollectionCommand.self,
        AddToCollectionCommand.self, RemoveFromCollectionCommand.self, RevokeCollectionItemCommand.self,
        MarkConversationReadCommand.self, RemoveConversationCommand.self,
        SchedulePostCommand.self, ReschedulePostCommand.self, CancelScheduledPostCommand.self,
        PublishScheduledPostCommand.self,
        EnrollTwoFactorCommand.self, ConfirmTwoFactorCommand.self, DisableTwoFactorCommand.self,
        PostStoryCommand.self, PostVideoStoryCommand.self, ViewStoryCommand.self, ReplyToStoryCommand.self,
        HighlightStoryCommand.self,
        UnhighlightStoryCommand.self, DeleteStoryCommand.self, ExpireStoryCommand.self,
        CreateActorKeyCommand.self, RecordRemoteAccountCommand.self, BlockDomainCommand.self, UnblockDomainCommand.self,
        ReceiveRemotePostCommand.self, BlockAccountDomainCommand.self, UnblockAccountDomainCommand.self,
        ReceiveRemoteCommentCommand.self
    ]
}

// MARK: - Events

/// Every fact Timeline records. Each case's payload is an immutable value; the type names are
/// stable public names (`UserCreated`, …) and each has a schema version.
public enum Event: Equatable, Sendable {
    /// A user signed up (or was imported): `UserCreated`.
    case userCreated(UserCreated)
    /// A user changed their username, bio, url, profile photo or discoverability: `ProfileUpdated`.
    case profileUpdated(ProfileUpdated)
    /// A session started: `SignedIn`.
    case signedIn(SignedIn)
    /// A session ended: `SignedOut`.
    case signedOut(SignedOut)
    /// Every session of a user ended: `SignedOutEverywhere`.
    case signedOutEverywhere(SignedOutEverywhere)
    /// A sign-in failed: `SignInFailed`.
    case signInFailed(SignInFailed)
    /// A photo was posted: `PostAdded`.
    case postAdded(PostAdded)
    /// A post was placed (where its photo was taken), right after its `PostAdded`: `PostPlaced`.
    case postPlaced(PostPlaced)
    /// A post's poll was set (with the post, or anew by an edit): `PollSet`.
    case pollSet(PollSet)
    /// An edit took a post's poll away: `PollRemoved`.
    case pollRemoved(PollRemoved)
    /// A user voted in a poll: `PollVoted`.
    case pollVoted(PollVoted)
    /// A post from before the image pipeline got its variants: `PostImageProcessed`.
    case postImageProcessed(PostImageProcessed)
    /// A post was deleted: `PostDeleted`.
    case postDeleted(PostDeleted)
    /// A comment was added: `CommentAdded`.
    case commentAdded(CommentAdded)
    /// A comment was deleted: `CommentDeleted`.
    case commentDeleted(CommentDeleted)
    /// A user liked a post: `LikeAdded`.
    case likeAdded(Like)
    /// A user took a like back: `LikeRemoved`.
    case likeRemoved(Like)
    /// A user boosted a post (a status of its own): `PostBoosted`.
    case postBoosted(Boost)
    /// A boost went (taken back, a block, an erasure): `BoostRemoved`.
    case boostRemoved(Boost)
    /// A follower hid a followee's boosts from their home timeline: `BoostsHidden`.
    case boostsHidden(Follow)
    /// A follower showed a followee's boosts again: `BoostsShown`.
    case boostsShown(Follow)
    /// A user followed another: `Followed`.
    case followed(Follow)
    /// A user stopped following another: `Unfollowed`.
    case unfollowed(Follow)
    /// A post was reported: `PostReported`.
    case postReported(PostReported)
    /// An operator removed a post: `PostRemoved`.
    case postRemoved(PostRemoved)
    /// An operator dismissed the reports standing against a post: `ReportsDismissed`.
    case reportsDismissed(ReportsDismissed)
    /// A user was erased (their key destroyed): `UserErased`.
    case userErased(UserErased)
    /// An operator issued a password-reset token: `PasswordResetRequested`.
    case passwordResetRequested(PasswordResetRequested)
    /// A password was set (with a reset token or the current password): `PasswordChanged`.
    case passwordChanged(PasswordChanged)
    /// A user changed their email: `EmailChanged`.
    case emailChanged(EmailChanged)
    /// A user saved a post to their bookmarks: `Bookmarked`.
    case bookmarked(Bookmark)
    /// A user took a post out of their bookmarks: `Unbookmarked`.
    case unbookmarked(Bookmark)
    /// A user blocked another: `Blocked`.
    case blocked(Block)
    /// A user lifted a block: `Unblocked`.
    case unblocked(Block)
    /// A user muted another: `Muted`.
    case muted(Mute)
    /// A user lifted a mute: `Unmuted`.
    case unmuted(Unmute)
    /// A user asked to follow a locked account: `FollowRequested`.
    case followRequested(Follow)
    /// A locked account's owner turned a follow request down: `FollowRequestRejected`.
    case followRequestRejected(Follow)
    /// A user took back their follow request (or a block or erasure ended it): `FollowRequestWithdrawn`.
    case followRequestWithdrawn(Follow)
    /// A follower asked to be notified of each post of the followee: `PostNotificationsOn`.
    case postNotificationsOn(Follow)
    /// A follower stopped being notified of the followee's posts: `PostNotificationsOff`.
    case postNotificationsOff(Follow)
    /// A photo was uploaded, to be attached to a post: `MediaUploaded`.
    case mediaUploaded(MediaUploaded)
    /// A photo's alt text changed: `MediaUpdated`.
    case mediaUpdated(MediaUpdated)
    /// A photo nobody attached went: `MediaDeleted`.
    case mediaDeleted(MediaDeleted)
    /// The operator granted a role: `RoleGranted`.
    case roleGranted(RoleChange)
    /// The operator revoked a role: `RoleRevoked`.
    case roleRevoked(RoleChange)
    /// Someone reported an account: `UserReported`.
    case userReported(UserReported)
    /// A moderator dismissed an account's reports: `UserReportsDismissed`.
    case userReportsDismissed(AccountDecision)
    /// A moderator suspended an account: `UserSuspended`.
    case userSuspended(AccountDecision)
    /// A moderator lifted a suspension: `UserUnsuspended`.
    case userUnsuspended(AccountDecision)
    /// An OAuth app was registered: `AppRegistered`.
    case appRegistered(AppRegistered)
    /// A person let an OAuth app act for them: `AppAuthorized`.
    case appAuthorized(AppAuthorized)
    /// An OAuth app got a token of its own: `AppTokenIssued`.
    case appTokenIssued(AppTokenIssued)
    /// An OAuth app revoked a token of its own: `AppTokenRevoked`.
    case appTokenRevoked(AppTokenRevoked)
    /// A user began enrolling an authenticator: `TwoFactorEnrolled`.
    case twoFactorEnrolled(TwoFactorEnrolled)
    /// A user turned two-factor sign-in on: `TwoFactorConfirmed`.
    case twoFactorConfirmed(TwoFactorConfirmed)
    /// A one-time code proved a sign-in: `TwoFactorCodeUsed`.
    case twoFactorCodeUsed(TwoFactorCodeUsed)
    /// A user turned two-factor sign-in off: `TwoFactorDisabled`.
    case twoFactorDisabled(TwoFactorDisabled)
    /// A video was uploaded, to be transcoded: `VideoUploaded`.
    case videoUploaded(VideoUploaded)
    /// A video upload was transcoded: `VideoProcessed`.
    case videoProcessed(VideoProcessed)
    /// A video upload could not be transcoded: `VideoFailed`.
    case videoFailed(VideoFailed)
    /// A story was posted: `StoryPosted`.
    case storyPosted(StoryPosted)
    /// A story was seen: `StoryViewed`.
    case storyViewed(StoryViewed)
    /// A story became a highlight: `StoryHighlighted`.
    case storyHighlighted(StoryChange)
    /// A story stopped being a highlight: `StoryUnhighlighted`.
    case storyUnhighlighted(StoryChange)
    /// A story was deleted: `StoryDeleted`.
    case storyDeleted(StoryChange)
    /// A story past its day let its photo go: `StoryExpired`.
    case storyExpired(StoryChange)
    /// A user dismissed activity items: `ActivityDismissed`.
    case activityDismissed(ActivityDismissed)
    /// A token subscribed to push notifications: `PushSubscribed`.
    case pushSubscribed(PushSubscribed)
    /// A token's push subscription ended: `PushUnsubscribed`.
    case pushUnsubscribed(PushUnsubscribed)
    /// A user read their activity up to an item: `ActivityRead`.
    case activityRead(ActivityRead)
    /// A post's caption was edited: `PostEdited`.
    case postEdited(PostEdited)
    /// A post's photo was marked sensitive, right after its `PostAdded`: `PostMarkedSensitive`.
    case postMarkedSensitive(PostMarkedSensitive)
    /// The operator set one of the instance's texts: `InstanceTextSet`.
    case instanceTextSet(InstanceTextSet)
    /// The operator added a server rule: `InstanceRuleAdded`.
    case instanceRuleAdded(InstanceRuleAdded)
    /// The operator took a server rule away: `InstanceRuleRemoved`.
    case instanceRuleRemoved(InstanceRuleRemoved)
    /// The operator made an announcement: `AnnouncementAdded`.
    case announcementAdded(AnnouncementAdded)
    /// The operator took an announcement away: `AnnouncementRemoved`.
    case announcementRemoved(AnnouncementRemoved)
    /// A user dismissed an announcement: `AnnouncementDismissed`.
    case announcementDismissed(AnnouncementDismissed)
    /// A user reacted to an announcement: `AnnouncementReactionAdded`.
    case announcementReactionAdded(AnnouncementReaction)
    /// A user took their reaction to an announcement back: `AnnouncementReactionRemoved`.
    case announcementReactionRemoved(AnnouncementReaction)
    /// A moderator hid a hashtag or a post from the trends: `TrendHidden`.
    case trendHidden(TrendDecision)
    /// A moderator let a hidden hashtag or post trend again: `TrendShown`.
    case trendShown(TrendDecision)
    /// A user made a list: `ListCreated`.
    case listCreated(ListSettings)
    /// A user changed a list: `ListUpdated`.
    case listUpdated(ListSettings)
    /// A user deleted a list: `ListDeleted`.
    case listDeleted(ListDeleted)
    /// A user put an account in a list: `ListAccountAdded`.
    case listAccountAdded(ListMember)
    /// A user took an account out of a list: `ListAccountRemoved`.
    case listAccountRemoved(ListMember)
    /// A user made a collection: `CollectionCreated`.
    case collectionCreated(CollectionSettings)
    /// A user changed a collection: `CollectionUpdated`.
    case collectionUpdated(CollectionSettings)
    /// A user deleted a collection: `CollectionDeleted`.
    case collectionDeleted(CollectionDeleted)
    /// A user featured an account in a collection: `CollectionItemAdded`.
    case collectionItemAdded(CollectionItemChange)
    /// A user took an account out of a collection: `CollectionItemRemoved`.
    case collectionItemRemoved(CollectionItemChange)
    /// A featured account took itself out of a collection: `CollectionItemRevoked`.
    case collectionItemRevoked(CollectionItemChange)
    /// A participant read a conversation: `ConversationRead`.
    case conversationRead(ConversationMark)
    /// A participant took a conversation out of their list: `ConversationRemoved`.
    case conversationRemoved(ConversationMark)
    /// A user scheduled a post: `PostScheduled`.
    case postScheduled(PostScheduled)
    /// A pending scheduled post got a new time: `ScheduledPostChanged`.
    case scheduledPostChanged(ScheduledPostChanged)
    /// A pending scheduled post was cancelled: `ScheduledPostCancelled`.
    case scheduledPostCancelled(ScheduledPostCancelled)
    /// A scheduled post was published (after its post's events): `ScheduledPostPublished`.
    case scheduledPostPublished(ScheduledPostPublished)
    /// A user set their notification policy: `NotificationPolicySet`.
    case notificationPolicySet(NotificationPolicySet)
    /// A user let one account's held notifications through: `NotificationRequestAccepted`.
    case notificationRequestAccepted(NotificationRequestAnswer)
    /// A user discarded one account's held notifications: `NotificationRequestDismissed`.
    case notificationRequestDismissed(NotificationRequestAnswer)
    /// A user's filter was created or changed (the filter as it stands): `FilterSaved`.
    case filterSaved(FilterSaved)
    /// A user deleted one of their filters: `FilterDeleted`.
    case filterDeleted(FilterDeleted)
    /// A user pinned their own post to their profile: `PostPinned`.
    case postPinned(Pin)
    /// A user unpinned their post: `PostUnpinned`.
    case postUnpinned(Pin)
    /// A user muted the thread of a post: `ConversationMuted`.
    case conversationMuted(ConversationMute)
    /// A user unmuted the thread of a post: `ConversationUnmuted`.
    case conversationUnmuted(ConversationMute)
    /// A user set their private note on an account: `AccountNoteSet`.
    case accountNoteSet(AccountNote)
    /// A user featured an account on their profile: `AccountEndorsed`.
    case accountEndorsed(AccountChoice)
    /// A user stopped featuring an account: `AccountUnendorsed`.
    case accountUnendorsed(AccountChoice)
    /// A user asked never to be suggested an account again: `SuggestionDismissed`.
    case suggestionDismissed(AccountChoice)
    /// A user asked for their annual report of a year: `AnnualReportGenerated`.
    case annualReportGenerated(AnnualReportMark)
    /// A user read their annual report of a year: `AnnualReportRead`.
    case annualReportRead(AnnualReportMark)
    /// A user featured a hashtag on their profile: `TagFeatured`.
    case tagFeatured(UserHashtag)
    /// A user stopped featuring a hashtag: `TagUnfeatured`.
    case tagUnfeatured(UserHashtag)
    /// A user followed a hashtag.
    case tagFollowed(UserHashtag)
    /// A user stopped following a hashtag.
    case tagUnfollowed(UserHashtag)
    /// A local user's actor got its RSA signing key: `ActorKeyCreated`.
    case actorKeyCreated(ActorKeyCreated)
    /// Another server's actor was seen (first, or changed): `RemoteAccountSeen`.
    case remoteAccountSeen(RemoteAccountSeen)
    /// The operator stopped federating with a server: `DomainBlocked`.
    case domainBlocked(DomainBlock)
    /// The operator federates with a server again: `DomainUnblocked`.
    case domainUnblocked(DomainBlock)
    /// A remote account's post is a `Note` of its server: `RemotePostSeen`.
    case remotePostSeen(RemotePostSeen)
    /// A user blocked every account of a server: `AccountDomainBlocked`.
    case accountDomainBlocked(AccountDomainBlock)
    /// A user lifted their block of a server: `AccountDomainUnblocked`.
    case accountDomainUnblocked(AccountDomainBlock)
    /// A remote account's comment is a `Note` of its server: `RemoteCommentSeen`.
    case remoteCommentSeen(RemoteCommentSeen)

    /// The stable type name stored in the envelope.
    public var typeName: EventType {
        switch self {
        case .userCreated: .userCreated
        case .profileUpdated: .profileUpdated
        case .signedIn: .signedIn
        case .signedOut: .signedOut
        case .signedOutEverywhere: .signedOutEverywhere
        case .signInFailed: .signInFailed
        case .postAdded: .postAdded
        case .postPlaced: .postPlaced
        case .pollSet: .pollSet
        case .pollRemoved: .pollRemoved
        case .pollVoted: .pollVoted
        case .postImageProcessed: .postImageProcessed
        case .postDeleted: .postDeleted
        case .commentAdded: .commentAdded
        case .commentDeleted: .commentDeleted
        case .likeAdded: .likeAdded
        case .likeRemoved: .likeRemoved
        case .postBoosted: .postBoosted
        case .boostRemoved: .boostRemoved
        case .boostsHidden: .boostsHidden
        case .boostsShown: .boostsShown
        case .followed: .followed
        case .unfollowed: .unfollowed
        case .postReported: .postReported
        case .postRemoved: .postRemoved
        case .reportsDismissed: .reportsDismissed
        case .userErased: .userErased
        case .passwordResetRequested: .passwordResetRequested
        case .passwordChanged: .passwordChanged
        case .emailChanged: .emailChanged
        case .bookmarked: .bookmarked
        case .unbookmarked: .unbookmarked
        case .blocked: .blocked
        case .unblocked: .unblocked
        case .muted: .muted
        case .unmuted: .unmuted
        case .followRequested: .followRequested
        case .followRequestRejected: .followRequestRejected
        case .followRequestWithdrawn: .followRequestWithdrawn
        case .postNotificationsOn: .postNotificationsOn
        case .postNotificationsOff: .postNotificationsOff
        case .mediaUploaded: .mediaUploaded
        case .mediaUpdated: .mediaUpdated
        case .mediaDeleted: .mediaDeleted
        case .roleGranted: .roleGranted
        case .roleRevoked: .roleRevoked
        case .userReported: .userReported
        case .userReportsDismissed: .userReportsDismissed
        case .userSuspended: .userSuspended
        case .userUnsuspended: .userUnsuspended
        case .appRegistered: .appRegistered
        case .appAuthorized: .appAuthorized
        case .appTokenIssued: .appTokenIssued
        case .appTokenRevoked: .appTokenRevoked
        case .twoFactorEnrolled: .twoFactorEnrolled
        case .twoFactorConfirmed: .twoFactorConfirmed
        case .twoFactorCodeUsed: .twoFactorCodeUsed
        case .twoFactorDisabled: .twoFactorDisabled
        case .videoUploaded: .videoUploaded
        case .videoProcessed: .videoProcessed
        case .videoFailed: .videoFailed
        case .storyPosted: .storyPosted
        case .storyViewed: .storyViewed
        case .storyHighlighted: .storyHighlighted
        case .storyUnhighlighted: .storyUnhighlighted
        case .storyDeleted: .storyDeleted
        case .storyExpired: .storyExpired
        case .activityDismissed: .activityDismissed
        case .pushSubscribed: .pushSubscribed
        case .pushUnsubscribed: .pushUnsubscribed
        case .activityRead: .activityRead
        case .postEdited: .postEdited
        case .postMarkedSensitive: .postMarkedSensitive
        case .instanceTextSet: .instanceTextSet
        case .instanceRuleAdded: .instanceRuleAdded
        case .instanceRuleRemoved: .instanceRuleRemoved
        case .announcementAdded: .announcementAdded
        case .announcementRemoved: .announcementRemoved
        case .announcementDismissed: .announcementDismissed
        case .announcementReactionAdded: .announcementReactionAdded
        case .announcementReactionRemoved: .announcementReactionRemoved
        case .trendHidden: .trendHidden
        case .trendShown: .trendShown
        case .listCreated: .listCreated
        case .listUpdated: .listUpdated
        case .listDeleted: .listDeleted
        case .listAccountAdded: .listAccountAdded
        case .listAccountRemoved: .listAccountRemoved
        case .collectionCreated: .collectionCreated
        case .collectionUpdated: .collectionUpdated
        case .collectionDeleted: .collectionDeleted
        case .collectionItemAdded: .collectionItemAdded
        case .collectionItemRemoved: .collectionItemRemoved
        case .collectionItemRevoked: .collectionItemRevoked
        case .conversationRead: .conversationRead
        case .conversationRemoved: .conversationRemoved
        case .postScheduled: .postScheduled
        case .scheduledPostChanged: .scheduledPostChanged
        case .scheduledPostCancelled: .scheduledPostCancelled
        case .scheduledPostPublished: .scheduledPostPublished
        case .notificationPolicySet: .notificationPolicySet
        case .notificationRequestAccepted: .notificationRequestAccepted
        case .notificationRequestDismissed: .notificationRequestDismissed
        case .filterSaved: .filterSaved
        case .filterDeleted: .filterDeleted
        case .postPinned: .postPinned
        case .postUnpinned: .postUnpinned
        case .conversationMuted: .conversationMuted
        case .conversationUnmuted: .conversationUnmuted
        case .accountNoteSet: .accountNoteSet
        case .accountEndorsed: .accountEndorsed
        case .accountUnendorsed: .accountUnendorsed
        case .suggestionDismissed: .suggestionDismissed
        case .annualReportGenerated: .annualReportGenerated
        case .annualReportRead: .annualReportRead
        case .tagFeatured: .tagFeatured
        case .tagUnfeatured: .tagUnfeatured
        case .tagFollowed: .tagFollowed
        case .tagUnfollowed: .tagUnfollowed
        case .actorKeyCreated: .actorKeyCreated
        case .remoteAccountSeen: .remoteAccountSeen
        case .domainBlocked: .domainBlocked
        case .domainUnblocked: .domainUnblocked
        case .remotePostSeen: .remotePostSeen
        case .accountDomainBlocked: .accountDomainBlocked
        case .accountDomainUnblocked: .accountDomainUnblocked
        case .remoteCommentSeen: .remoteCommentSeen
        }
    }

    /// The payload, as the feature that defines it describes it.
    package var payload: any EventPayload {
        switch self {
        case .userCreated(let e): e
        case .profileUpdated(let e): e
        case .signedIn(let e): e
        case .signedOut(let e): e
        case .signedOutEverywhere(let e): e
        case .signInFailed(let e): e
        case .postAdded(let e): e
        case .postPlaced(let e): e
        case .pollSet(let e): e
        case .pollRemoved(let e): e
        case .pollVoted(let e): e
        case .postImageProcessed(let e): e
        case .postDeleted(let e): e
        case .commentAdded(let e): e
        case .commentDeleted(let e): e
        case .likeAdded(let e): e
        case .likeRemoved(let e): e
        case .postBoosted(let e): e
        case .boostRemoved(let e): e
        case .boostsHidden(let e): e
        case .boostsShown(let e): e
        case .followed(let e): e
        case .unfollowed(let e): e
        case .postReported(let e): e
        case .postRemoved(let e): e
        case .reportsDismissed(let e): e
        case .userErased(let e): e
        case .passwordResetRequested(let e): e
        case .passwordChanged(let e): e
        case .emailChanged(let e): e
        case .bookmarked(let e): e
        case .unbookmarked(let e): e
        case .blocked(let e): e
        case .unblocked(let e): e
        case .muted(let e): e
        case .unmuted(let e): e
        case .followRequested(let e), .followRequestRejected(let e), .followRequestWithdrawn(let e),
            .postNotificationsOn(let e), .postNotificationsOff(let e):
            e
        case .mediaUploaded(let e): e
        case .mediaUpdated(let e): e
        case .mediaDeleted(let e): e
        case .roleGranted(let e), .roleRevoked(let e): e
        case .userReported(let e): e
        case .userReportsDismissed(let e), .userSuspended(let e), .userUnsuspended(let e): e
        case .appRegistered(let e): e
        case .appAuthorized(let e): e
        case .appTokenIssued(let e): e
        case .appTokenRevoked(let e): e
        case .twoFactorEnrolled(let e): e
        case .twoFactorConfirmed(let e): e
        case .twoFactorCodeUsed(let e): e
        case .twoFactorDisabled(let e): e
        case .videoUploaded(let e): e
        case .videoProcessed(let e): e
        case .videoFailed(let e): e
        case .storyPosted(let e): e
        case .storyViewed(let e): e
        case .storyHighlighted(let e), .storyUnhighlighted(let e), .storyDeleted(let e), .storyExpired(let e): e
        case .activityDismissed(let e): e
        case .pushSubscribed(let e): e
        case .pushUnsubscribed(let e): e
        case .activityRead(let e): e
        case .postEdited(let e): e
        case .postMarkedSensitive(let e): e
        case .instanceTextSet(let e): e
        case .instanceRuleAdded(let e): e
        case .instanceRuleRemoved(let e): e
        case .announcementAdded(let e): e
        case .announcementRemoved(let e): e
        case .announcementDismissed(let e): e
        case .announcementReactionAdded(let e): e
        case .announcementReactionRemoved(let e): e
        case .trendHidden(let e), .trendShown(let e): e
        case .listCreated(let e): e
        case .listUpdated(let e): e
        case .listDeleted(let e): e
        case .listAccountAdded(let e): e
        case .listAccountRemoved(let e): e
        case .collectionCreated(let e): e
        case .collectionUpdated(let e): e
        case .collectionDeleted(let e): e
        case .collectionItemAdded(let e): e
        case .collectionItemRemoved(let e): e
        case .collectionItemRevoked(let e): e
        case .conversationRead(let e): e
        case .conversationRemoved(let e): e
        case .postScheduled(let e): e
        case .scheduledPostChanged(let e): e
        case .scheduledPostCancelled(let e): e
        case .scheduledPostPublished(let e): e
        case .notificationPolicySet(let e): e
        case .notificationRequestAccepted(let e): e
        case .notificationRequestDismissed(let e): e
        case .filterSaved(let e): e
        case .filterDeleted(let e): e
        case .postPinned(let e): e
        case .postUnpinned(let e): e
        case .conversationMuted(let e): e
        case .conversationUnmuted(let e): e
        case .accountNoteSet(let e): e
        case .accountEndorsed(let e): e
        case .accountUnendorsed(let e): e
        case .suggestionDismissed(let e): e
        case .annualReportGenerated(let e): e
        case .annualReportRead(let e): e
        case .tagFeatured(let e): e
        case .tagUnfeatured(let e): e
        case .tagFollowed(let e): e
        case .tagUnfollowed(let e): e
        case .actorKeyCreated(let e): e
        case .remoteAccountSeen(let e): e
        case .domainBlocked(let e), .domainUnblocked(let e): e
        case .remotePostSeen(let e): e
        case .accountDomainBlocked(let e), .accountDomainUnblocked(let e): e
        case .remoteCommentSeen(let e): e
        }
    }
}

/// Stable event type names. The raw value is the public name.
public enum EventType: String, CaseIterable, Sendable {
    /// A user signed up (or was imported): `UserCreated`.
    case userCreated = "UserCreated"
    /// A user changed their username, bio, url, profile photo or discoverability: `ProfileUpdated`.
    case profileUpdated = "ProfileUpdated"
    /// A session started: `SignedIn`.
    case signedIn = "SignedIn"
    /// A session ended: `SignedOut`.
    case signedOut = "SignedOut"
    /// Every session of a user ended: `SignedOutEverywhere`.
    case signedOutEverywhere = "SignedOutEverywhere"
    /// A sign-in failed: `SignInFailed`.
    case signInFailed = "SignInFailed"
    /// A photo was posted: `PostAdded`.
    case postAdded = "PostAdded"
    /// A post was placed (where its photo was taken): `PostPlaced`.
    case postPlaced = "PostPlaced"
    /// A post's poll was set: `PollSet`.
    case pollSet = "PollSet"
    /// A post's poll was taken away: `PollRemoved`.
    case pollRemoved = "PollRemoved"
    /// A user voted in a poll: `PollVoted`.
    case pollVoted = "PollVoted"
    /// A post from before the image pipeline got its variants: `PostImageProcessed`.
    case postImageProcessed = "PostImageProcessed"
    /// A post was deleted: `PostDeleted`.
    case postDeleted = "PostDeleted"
    /// A comment was added: `CommentAdded`.
    case commentAdded = "CommentAdded"
    /// A comment was deleted: `CommentDeleted`.
    case commentDeleted = "CommentDeleted"
    /// A user liked a post: `LikeAdded`.
    case likeAdded = "LikeAdded"
    /// A user took a like back: `LikeRemoved`.
    case likeRemoved = "LikeRemoved"
    /// A user boosted a post.
    case postBoosted = "PostBoosted"
    /// A boost went.
    case boostRemoved = "BoostRemoved"
    /// A follower hid a followee's boosts.
    case boostsHidden = "BoostsHidden"
    /// A follower showed a followee's boosts again.
    case boostsShown = "BoostsShown"
    /// A user followed another: `Followed`.
    case followed = "Followed"
    /// A user stopped following another: `Unfollowed`.
    case unfollowed = "Unfollowed"
    /// A post was reported: `PostReported`.
    case postReported = "PostReported"
    /// An operator removed a post: `PostRemoved`.
    case postRemoved = "PostRemoved"
    /// An operator dismissed the reports standing against a post: `ReportsDismissed`.
    case reportsDismissed = "ReportsDismissed"
    /// A user was erased (their key destroyed): `UserErased`.
    case userErased = "UserErased"
    /// An operator issued a password-reset token: `PasswordResetRequested`.
    case passwordResetRequested = "PasswordResetRequested"
    /// A password was set (with a reset token or the current password): `PasswordChanged`.
    case passwordChanged = "PasswordChanged"
    /// A user changed their email: `EmailChanged`.
    case emailChanged = "EmailChanged"
    /// A user saved a post to their bookmarks: `Bookmarked`.
    case bookmarked = "Bookmarked"
    /// A user took a post out of their bookmarks: `Unbookmarked`.
    case unbookmarked = "Unbookmarked"
    /// A user blocked another: `Blocked`.
    case blocked = "Blocked"
    /// A user lifted a block: `Unblocked`.
    case unblocked = "Unblocked"
    /// A user muted another: `Muted`.
    case muted = "Muted"
    /// A user lifted a mute: `Unmuted`.
    case unmuted = "Unmuted"
    /// A user asked to follow a locked account.
    case followRequested = "FollowRequested"
    /// A locked account's owner turned a follow request down.
    case followRequestRejected = "FollowRequestRejected"
    /// A follow request was taken back.
    case followRequestWithdrawn = "FollowRequestWithdrawn"
    /// A follower asked to be notified of each post of the followee: `PostNotificationsOn`.
    case postNotificationsOn = "PostNotificationsOn"
    /// A follower stopped being notified of the followee's posts: `PostNotificationsOff`.
    case postNotificationsOff = "PostNotificationsOff"
    /// A photo was uploaded, to be attached to a post.
    case mediaUploaded = "MediaUploaded"
    /// A photo's alt text changed.
    case mediaUpdated = "MediaUpdated"
    /// A photo nobody attached went.
    case mediaDeleted = "MediaDeleted"
    /// The operator granted a role.
    case roleGranted = "RoleGranted"
    /// The operator revoked a role.
    case roleRevoked = "RoleRevoked"
    /// Someone reported an account.
    case userReported = "UserReported"
    /// A moderator dismissed an account's reports.
    case userReportsDismissed = "UserReportsDismissed"
    /// A moderator suspended an account.
    case userSuspended = "UserSuspended"
    /// A moderator lifted a suspension.
    case userUnsuspended = "UserUnsuspended"
    /// An OAuth app was registered.
    case appRegistered = "AppRegistered"
    /// A person authorized an OAuth app.
    case appAuthorized = "AppAuthorized"
    /// An OAuth app got a token of its own.
    case appTokenIssued = "AppTokenIssued"
    /// An OAuth app revoked a token of its own: `AppTokenRevoked`.
    case appTokenRevoked = "AppTokenRevoked"
    /// A user began enrolling an authenticator.
    case twoFactorEnrolled = "TwoFactorEnrolled"
    /// A user turned two-factor sign-in on.
    case twoFactorConfirmed = "TwoFactorConfirmed"
    /// A one-time code proved a sign-in.
    case twoFactorCodeUsed = "TwoFactorCodeUsed"
    /// A user turned two-factor sign-in off.
    case twoFactorDisabled = "TwoFactorDisabled"
    /// A video was uploaded, to be transcoded.
    case videoUploaded = "VideoUploaded"
    /// A video upload was transcoded.
    case videoProcessed = "VideoProcessed"
    /// A video upload could not be transcoded.
    case videoFailed = "VideoFailed"
    /// A story was posted.
    case storyPosted = "StoryPosted"
    /// A story was seen.
    case storyViewed = "StoryViewed"
    /// A story became a highlight.
    case storyHighlighted = "StoryHighlighted"
    /// A story stopped being a highlight.
    case storyUnhighlighted = "StoryUnhighlighted"
    /// A story was deleted.
    case storyDeleted = "StoryDeleted"
    /// A story past its day let its photo go.
    case storyExpired = "StoryExpired"
    /// A user dismissed activity items.
    case activityDismissed = "ActivityDismissed"
    /// A token subscribed to push notifications.
    case pushSubscribed = "PushSubscribed"
    /// A push subscription ended.
    case pushUnsubscribed = "PushUnsubscribed"
    /// A user read their activity up to an item: `ActivityRead`.
    case activityRead = "ActivityRead"
    /// A post's caption was edited: `PostEdited`.
    case postEdited = "PostEdited"
    /// A post's photo was marked sensitive: `PostMarkedSensitive`.
    case postMarkedSensitive = "PostMarkedSensitive"
    /// The operator set one of the instance's texts: `InstanceTextSet`.
    case instanceTextSet = "InstanceTextSet"
    /// The operator added a server rule: `InstanceRuleAdded`.
    case instanceRuleAdded = "InstanceRuleAdded"
    /// The operator took a server rule away: `InstanceRuleRemoved`.
    case instanceRuleRemoved = "InstanceRuleRemoved"
    /// The operator made an announcement: `AnnouncementAdded`.
    case announcementAdded = "AnnouncementAdded"
    /// The operator took an announcement away: `AnnouncementRemoved`.
    case announcementRemoved = "AnnouncementRemoved"
    /// A user dismissed an announcement: `AnnouncementDismissed`.
    case announcementDismissed = "AnnouncementDismissed"
    /// A user reacted to an announcement: `AnnouncementReactionAdded`.
    case announcementReactionAdded = "AnnouncementReactionAdded"
    /// A user took their reaction to an announcement back: `AnnouncementReactionRemoved`.
    case announcementReactionRemoved = "AnnouncementReactionRemoved"
    /// A moderator hid a hashtag or a post from the trends: `TrendHidden`.
    case trendHidden = "TrendHidden"
    /// A moderator let a hidden hashtag or post trend again: `TrendShown`.
    case trendShown = "TrendShown"
    /// A user made a list: `ListCreated`.
    case listCreated = "ListCreated"
    /// A user changed a list: `ListUpdated`.
    case listUpdated = "ListUpdated"
    /// A user deleted a list: `ListDeleted`.
    case listDeleted = "ListDeleted"
    /// A user put an account in a list: `ListAccountAdded`.
    case listAccountAdded = "ListAccountAdded"
    /// A user took an account out of a list: `ListAccountRemoved`.
    case listAccountRemoved = "ListAccountRemoved"
    /// A user made a collection: `CollectionCreated`.
    case collectionCreated = "CollectionCreated"
    /// A user changed a collection: `CollectionUpdated`.
    case collectionUpdated = "CollectionUpdated"
    /// A user deleted a collection: `CollectionDeleted`.
    case collectionDeleted = "CollectionDeleted"
    /// A user featured an account in a collection: `CollectionItemAdded`.
    case collectionItemAdded = "CollectionItemAdded"
    /// A user took an account out of a collection: `CollectionItemRemoved`.
    case collectionItemRemoved = "CollectionItemRemoved"
    /// A featured account took itself out of a collection: `CollectionItemRevoked`.
    case collectionItemRevoked = "CollectionItemRevoked"
    /// A participant read a conversation: `ConversationRead`.
    case conversationRead = "ConversationRead"
    /// A participant took a conversation out of their list: `ConversationRemoved`.
    case conversationRemoved = "ConversationRemoved"
    /// A user scheduled a post: `PostScheduled`.
    case postScheduled = "PostScheduled"
    /// A pending scheduled post got a new time: `ScheduledPostChanged`.
    case scheduledPostChanged = "ScheduledPostChanged"
    /// A pending scheduled post was cancelled: `ScheduledPostCancelled`.
    case scheduledPostCancelled = "ScheduledPostCancelled"
    /// A scheduled post was published: `ScheduledPostPublished`.
    case scheduledPostPublished = "ScheduledPostPublished"
    /// A user set their notification policy: `NotificationPolicySet`.
    case notificationPolicySet = "NotificationPolicySet"
    /// A user let one account's held notifications through: `NotificationRequestAccepted`.
    case notificationRequestAccepted = "NotificationRequestAccepted"
    /// A user discarded one account's held notifications: `NotificationRequestDismissed`.
    case notificationRequestDismissed = "NotificationRequestDismissed"
    /// A user's filter was created or changed (the filter as it stands): `FilterSaved`.
    case filterSaved = "FilterSaved"
    /// A user deleted one of their filters: `FilterDeleted`.
    case filterDeleted = "FilterDeleted"
    /// A user pinned their own post to their profile: `PostPinned`.
    case postPinned = "PostPinned"
    /// A user unpinned their post: `PostUnpinned`.
    case postUnpinned = "PostUnpinned"
    /// A user muted the thread of a post: `ConversationMuted`.
    case conversationMuted = "ConversationMuted"
    /// A user unmuted the thread of a post: `ConversationUnmuted`.
    case conversationUnmuted = "ConversationUnmuted"
    /// A user set their private note on an account: `AccountNoteSet`.
    case accountNoteSet = "AccountNoteSet"
    /// A user featured an account on their profile: `AccountEndorsed`.
    case accountEndorsed = "AccountEndorsed"
    /// A user stopped featuring an account: `AccountUnendorsed`.
    case accountUnendorsed = "AccountUnendorsed"
    /// A user asked never to be suggested an account again: `SuggestionDismissed`.
    case suggestionDismissed = "SuggestionDismissed"
    /// A user asked for their annual report of a year: `AnnualReportGenerated`.
    case annualReportGenerated = "AnnualReportGenerated"
    /// A user read their annual report of a year: `AnnualReportRead`.
    case annualReportRead = "AnnualReportRead"
    /// A user featured a hashtag on their profile: `TagFeatured`.
    case tagFeatured = "TagFeatured"
    /// A user stopped featuring a hashtag: `TagUnfeatured`.
    case tagUnfeatured = "TagUnfeatured"
    /// A user followed a hashtag.
    case tagFollowed = "TagFollowed"
    /// A user stopped following a hashtag.
    case tagUnfollowed = "TagUnfollowed"
    /// A local user's actor got its RSA signing key.
    case actorKeyCreated = "ActorKeyCreated"
    /// Another server's actor was seen.
    case remoteAccountSeen = "RemoteAccountSeen"
    /// The operator stopped federating with a server.
    case domainBlocked = "DomainBlocked"
    /// The operator federates with a server again.
    case domainUnblocked = "DomainUnblocked"
    /// A remote account's post is a Note of its server.
    case remotePostSeen = "RemotePostSeen"
    /// A user blocked every account of a server.
    case accountDomainBlocked = "AccountDomainBlocked"
    /// A user lifted their block of a server.
    case accountDomainUnblocked = "AccountDomainUnblocked"
    /// A remote account's comment is a Note of its server.
    case remoteCommentSeen = "RemoteCommentSeen"

    /// The payload type events of this type carry.
    /// The payload type of this event's type (one type may carry several events: `Follow`).
    package var payloadType: any EventPayload.Type {
        switch self {
        case .userCreated: UserCreated.self
        case .profileUpdated: ProfileUpdated.self
        case .signedIn: SignedIn.self
        case .signedOut: SignedOut.self
        case .signedOutEverywhere: SignedOutEverywhere.self
        case .signInFailed: SignInFailed.self
        case .postAdded: PostAdded.self
        case .postPlaced: PostPlaced.self
        case .pollSet: PollSet.self
        case .pollRemoved: PollRemoved.self
        case .pollVoted: PollVoted.self
        case .postImageProcessed: PostImageProcessed.self
        case .postDeleted: PostDeleted.self
        case .commentAdded: CommentAdded.self
        case .commentDeleted: CommentDeleted.self
        case .likeAdded: Like.self
        case .likeRemoved: Like.self
        case .postBoosted, .boostRemoved: Boost.self
        case .boostsHidden, .boostsShown: Follow.self
        case .followed: Follow.self
        case .unfollowed: Follow.self
        case .postReported: PostReported.self
        case .postRemoved: PostRemoved.self
        case .reportsDismissed: ReportsDismissed.self
        case .userErased: UserErased.self
        case .passwordResetRequested: PasswordResetRequested.self
        case .passwordChanged: PasswordChanged.self
        case .emailChanged: EmailChanged.self
        case .bookmarked: Bookmark.self
        case .unbookmarked: Bookmark.self
        case .blocked: Block.self
        case .unblocked: Block.self
        case .muted: Mute.self
        case .unmuted: Unmute.self
        case .followRequested, .followRequestRejected, .followRequestWithdrawn, .postNotificationsOn,
            .postNotificationsOff:
            Follow.self
        case .mediaUploaded: MediaUploaded.self
        case .mediaUpdated: MediaUpdated.self
        case .mediaDeleted: MediaDeleted.self
        case .roleGranted, .roleRevoked: RoleChange.self
        case .userReported: UserReported.self
        case .userReportsDismissed, .userSuspended, .userUnsuspended: AccountDecision.self
        case .appRegistered: AppRegistered.self
        case .appAuthorized: AppAuthorized.self
        case .appTokenIssued: AppTokenIssued.self
        case .appTokenRevoked: AppTokenRevoked.self
        case .twoFactorEnrolled: TwoFactorEnrolled.self
        case .twoFactorConfirmed: TwoFactorConfirmed.self
        case .twoFactorCodeUsed: TwoFactorCodeUsed.self
        case .twoFactorDisabled: TwoFactorDisabled.self
        case .videoUploaded: VideoUploaded.self
        case .videoProcessed: VideoProcessed.self
        case .videoFailed: VideoFailed.self
        case .storyPosted: StoryPosted.self
        case .storyViewed: StoryViewed.self
        case .storyHighlighted, .storyUnhighlighted, .storyDeleted, .storyExpired: StoryChange.self
        case .activityDismissed: ActivityDismissed.self
        case .pushSubscribed: PushSubscribed.self
        case .pushUnsubscribed: PushUnsubscribed.self
        case .activityRead: ActivityRead.self
        case .postEdited: PostEdited.self
        case .postMarkedSensitive: PostMarkedSensitive.self
        case .instanceTextSet: InstanceTextSet.self
        case .instanceRuleAdded: InstanceRuleAdded.self
        case .instanceRuleRemoved: InstanceRuleRemoved.self
        case .announcementAdded: AnnouncementAdded.self
        case .announcementRemoved: AnnouncementRemoved.self
        case .announcementDismissed: AnnouncementDismissed.self
        case .announcementReactionAdded: AnnouncementReaction.self
        case .announcementReactionRemoved: AnnouncementReaction.self
        case .trendHidden, .trendShown: TrendDecision.self
        case .listCreated, .listUpdated: ListSettings.self
        case .listDeleted: ListDeleted.self
        case .listAccountAdded, .listAccountRemoved: ListMember.self
        case .collectionCreated, .collectionUpdated: CollectionSettings.self
        case .collectionDeleted: CollectionDeleted.self
        case .collectionItemAdded, .collectionItemRemoved, .collectionItemRevoked: CollectionItemChange.self
        case .conversationRead, .conversationRemoved: ConversationMark.self
        case .postScheduled: PostScheduled.self
        case .scheduledPostChanged: ScheduledPostChanged.self
        case .scheduledPostCancelled: ScheduledPostCancelled.self
        case .scheduledPostPublished: ScheduledPostPublished.self
        case .notificationPolicySet: NotificationPolicySet.self
        case .notificationRequestAccepted, .notificationRequestDismissed: NotificationRequestAnswer.self
        case .filterSaved: FilterSaved.self
        case .filterDeleted: FilterDeleted.self
        case .postPinned, .postUnpinned: Pin.self
        case .conversationMuted, .conversationUnmuted: ConversationMute.self
        case .accountNoteSet: AccountNote.self
        case .accountEndorsed, .accountUnendorsed, .suggestionDismissed: AccountChoice.self
        case .annualReportGenerated, .annualReportRead: AnnualReportMark.self
        case .tagFeatured, .tagUnfeatured, .tagFollowed, .tagUnfollowed: UserHashtag.self
        case .actorKeyCreated: ActorKeyCreated.self
        case .remoteAccountSeen: RemoteAccountSeen.self
        case .domainBlocked, .domainUnblocked: DomainBlock.self
        case .remotePostSeen: RemotePostSeen.self
        case .accountDomainBlocked, .accountDomainUnblocked: AccountDomainBlock.self
        case .remoteCommentSeen: RemoteCommentSeen.self
        }
    }

    /// Reads a stored payload of this type (see `EventPayload.init(from:_:)`).
    package func decodePayload(_ r: inout ByteReader, _ opener: inout PayloadOpener) throws -> Event {
        switch self {
        case .userCreated: .userCreated(try UserCreated(from: &r, &opener))
        case .profileUpdated: .profileUpdated(try ProfileUpdated(from: &r, &opener))
        case .signedIn: .signedIn(try SignedIn(from: &r, &opener))
        case .signedOut: .signedOut(try SignedOut(from: &r, &opener))
        case .signedOutEverywhere: .signedOutEverywhere(try SignedOutEverywhere(from: &r, &opener))
        case .signInFailed: .signInFailed(try SignInFailed(from: &r, &opener))
        case .postAdded: .postAdded(try PostAdded(from: &r, &opener))
        case .postPlaced: .postPlaced(try PostPlaced(from: &r, &opener))
        case .pollSet: .pollSet(try PollSet(from: &r, &opener))
        case .pollRemoved: .pollRemoved(try PollRemoved(from: &r, &opener))
        case .pollVoted: .pollVoted(try PollVoted(from: &r, &opener))
        case .postImageProcessed: .postImageProcessed(try PostImageProcessed(from: &r, &opener))
        case .postDeleted: .postDeleted(try PostDeleted(from: &r, &opener))
        case .commentAdded: .commentAdded(try CommentAdded(from: &r, &opener))
        case .commentDeleted: .commentDeleted(try CommentDeleted(from: &r, &opener))
        case .likeAdded: .likeAdded(try Like(from: &r, &opener))
        case .likeRemoved: .likeRemoved(try Like(from: &r, &opener))
        case .postBoosted: .postBoosted(try Boost(from: &r, &opener))
        case .boostRemoved: .boostRemoved(try Boost(from: &r, &opener))
        case .boostsHidden: .boostsHidden(try Follow(from: &r, &opener))
        case .boostsShown: .boostsShown(try Follow(from: &r, &opener))
        case .followed: .followed(try Follow(from: &r, &opener))
        case .unfollowed: .unfollowed(try Follow(from: &r, &opener))
        case .postReported: .postReported(try PostReported(from: &r, &opener))
        case .postRemoved: .postRemoved(try PostRemoved(from: &r, &opener))
        case .reportsDismissed: .reportsDismissed(try ReportsDismissed(from: &r, &opener))
        case .userErased: .userErased(try UserErased(from: &r, &opener))
        case .passwordResetRequested: .passwordResetRequested(try PasswordResetRequested(from: &r, &opener))
        case .passwordChanged: .passwordChanged(try PasswordChanged(from: &r, &opener))
        case .emailChanged: .emailChanged(try EmailChanged(from: &r, &opener))
        case .bookmarked: .bookmarked(try Bookmark(from: &r, &opener))
        case .unbookmarked: .unbookmarked(try Bookmark(from: &r, &opener))
        case .blocked: .blocked(try Block(from: &r, &opener))
        case .unblocked: .unblocked(try Block(from: &r, &opener))
        case .muted: .muted(try Mute(from: &r, &opener))
        case .unmuted: .unmuted(try Unmute(from: &r, &opener))
        case .followRequested: .followRequested(try Follow(from: &r, &opener))
        case .followRequestRejected: .followRequestRejected(try Follow(from: &r, &opener))
        case .followRequestWithdrawn: .followRequestWithdrawn(try Follow(from: &r, &opener))
        case .postNotificationsOn: .postNotificationsOn(try Follow(from: &r, &opener))
        case .postNotificationsOff: .postNotificationsOff(try Follow(from: &r, &opener))
        case .mediaUploaded: .mediaUploaded(try MediaUploaded(from: &r, &opener))
        case .mediaUpdated: .mediaUpdated(try MediaUpdated(from: &r, &opener))
        case .mediaDeleted: .mediaDeleted(try MediaDeleted(from: &r, &opener))
        case .roleGranted: .roleGranted(try RoleChange(from: &r, &opener))
        case .roleRevoked: .roleRevoked(try RoleChange(from: &r, &opener))
        case .userReported: .userReported(try UserReported(from: &r, &opener))
        case .userReportsDismissed: .userReportsDismissed(try AccountDecision(from: &r, &opener))
        case .userSuspended: .userSuspended(try AccountDecision(from: &r, &opener))
        case .userUnsuspended: .userUnsuspended(try AccountDecision(from: &r, &opener))
        case .appRegistered: .appRegistered(try AppRegistered(from: &r, &opener))
        case .appAuthorized: .appAuthorized(try AppAuthorized(from: &r, &opener))
        case .appTokenIssued: .appTokenIssued(try AppTokenIssued(from: &r, &opener))
        case .appTokenRevoked: .appTokenRevoked(try AppTokenRevoked(from: &r, &opener))
        case .twoFactorEnrolled: .twoFactorEnrolled(try TwoFactorEnrolled(from: &r, &opener))
        case .twoFactorConfirmed: .twoFactorConfirmed(try TwoFactorConfirmed(from: &r, &opener))
        case .twoFactorCodeUsed: .twoFactorCodeUsed(try TwoFactorCodeUsed(from: &r, &opener))
        case .twoFactorDisabled: .twoFactorDisabled(try TwoFactorDisabled(from: &r, &opener))
        case .videoUploaded: .videoUploaded(try VideoUploaded(from: &r, &opener))
        case .videoProcessed: .videoProcessed(try VideoProcessed(from: &r, &opener))
        case .videoFailed: .videoFailed(try VideoFailed(from: &r, &opener))
        case .storyPosted: .storyPosted(try StoryPosted(from: &r, &opener))
        case .storyViewed: .storyViewed(try StoryViewed(from: &r, &opener))
        case .storyHighlighted: .storyHighlighted(try StoryChange(from: &r, &opener))
        case .storyUnhighlighted: .storyUnhighlighted(try StoryChange(from: &r, &opener))
        case .storyDeleted: .storyDeleted(try StoryChange(from: &r, &opener))
        case .storyExpired: .storyExpired(try StoryChange(from: &r, &opener))
        case .activityDismissed: .activityDismissed(try ActivityDismissed(from: &r, &opener))
        case .pushSubscribed: .pushSubscribed(try PushSubscribed(from: &r, &opener))
        case .pushUnsubscribed: .pushUnsubscribed(try PushUnsubscribed(from: &r, &opener))
        case .activityRead: .activityRead(try ActivityRead(from: &r, &opener))
        case .postEdited: .postEdited(try PostEdited(from: &r, &opener))
        case .postMarkedSensitive: .postMarkedSensitive(try PostMarkedSensitive(from: &r, &opener))
        case .instanceTextSet: .instanceTextSet(try InstanceTextSet(from: &r, &opener))
        case .instanceRuleAdded: .instanceRuleAdded(try InstanceRuleAdded(from: &r, &opener))
        case .instanceRuleRemoved: .instanceRuleRemoved(try InstanceRuleRemoved(from: &r, &opener))
        case .announcementAdded: .announcementAdded(try AnnouncementAdded(from: &r, &opener))
        case .announcementRemoved: .announcementRemoved(try AnnouncementRemoved(from: &r, &opener))
        case .announcementDismissed: .announcementDismissed(try AnnouncementDismissed(from: &r, &opener))
        case .announcementReactionAdded: .announcementReactionAdded(try AnnouncementReaction(from: &r, &opener))
        case .announcementReactionRemoved: .announcementReactionRemoved(try AnnouncementReaction(from: &r, &opener))
        case .trendHidden: .trendHidden(try TrendDecision(from: &r, &opener))
        case .trendShown: .trendShown(try TrendDecision(from: &r, &opener))
        case .listCreated: .listCreated(try ListSettings(from: &r, &opener))
        case .listUpdated: .listUpdated(try ListSettings(from: &r, &opener))
        case .listDeleted: .listDeleted(try ListDeleted(from: &r, &opener))
        case .listAccountAdded: .listAccountAdded(try ListMember(from: &r, &opener))
        case .listAccountRemoved: .listAccountRemoved(try ListMember(from: &r, &opener))
        case .collectionCreated: .collectionCreated(try CollectionSettings(from: &r, &opener))
        case .collectionUpdated: .collectionUpdated(try CollectionSettings(from: &r, &opener))
        case .collectionDeleted: .collectionDeleted(try CollectionDeleted(from: &r, &opener))
        case .collectionItemAdded: .collectionItemAdded(try CollectionItemChange(from: &r, &opener))
        case .collectionItemRemoved: .collectionItemRemoved(try CollectionItemChange(from: &r, &opener))
        case .collectionItemRevoked: .collectionItemRevoked(try CollectionItemChange(from: &r, &opener))
        case .conversationRead: .conversationRead(try ConversationMark(from: &r, &opener))
        case .conversationRemoved: .conversationRemoved(try ConversationMark(from: &r, &opener))
        case .postScheduled: .postScheduled(try PostScheduled(from: &r, &opener))
        case .scheduledPostChanged: .scheduledPostChanged(try ScheduledPostChanged(from: &r, &opener))
        case .scheduledPostCancelled: .scheduledPostCancelled(try ScheduledPostCancelled(from: &r, &opener))
        case .scheduledPostPublished: .scheduledPostPublished(try ScheduledPostPublished(from: &r, &opener))
        case .notificationPolicySet: .notificationPolicySet(try NotificationPolicySet(from: &r, &opener))
        case .notificationRequestAccepted:
            .notificationRequestAccepted(try NotificationRequestAnswer(from: &r, &opener))
        case .notificationRequestDismissed:
            .notificationRequestDismissed(try NotificationRequestAnswer(from: &r, &opener))
        case .filterSaved: .filterSaved(try FilterSaved(from: &r, &opener))
        case .filterDeleted: .filterDeleted(try FilterDeleted(from: &r, &opener))
        case .postPinned: .postPinned(try Pin(from: &r, &opener))
        case .postUnpinned: .postUnpinned(try Pin(from: &r, &opener))
        case .conversationMuted: .conversationMuted(try ConversationMute(from: &r, &opener))
        case .conversationUnmuted: .conversationUnmuted(try ConversationMute(from: &r, &opener))
        case .accountNoteSet: .accountNoteSet(try AccountNote(from: &r, &opener))
        case .accountEndorsed: .accountEndorsed(try AccountChoice(from: &r, &opener))
        case .accountUnendorsed: .accountUnendorsed(try AccountChoice(from: &r, &opener))
        case .suggestionDismissed: .suggestionDismissed(try AccountChoice(from: &r, &opener))
        case .annualReportGenerated: .annualReportGenerated(try AnnualReportMark(from: &r, &opener))
        case .annualReportRead: .annualReportRead(try AnnualReportMark(from: &r, &opener))
        case .tagFeatured: .tagFeatured(try UserHashtag(from: &r, &opener))
        case .tagUnfeatured: .tagUnfeatured(try UserHashtag(from: &r, &opener))
        case .tagFollowed: .tagFollowed(try UserHashtag(from: &r, &opener))
        case .tagUnfollowed: .tagUnfollowed(try UserHashtag(from: &r, &opener))
        case .actorKeyCreated: .actorKeyCreated(try ActorKeyCreated(from: &r, &opener))
        case .remoteAccountSeen: .remoteAccountSeen(try RemoteAccountSeen(from: &r, &opener))
        case .domainBlocked: .domainBlocked(try DomainBlock(from: &r, &opener))
        case .domainUnblocked: .domainUnblocked(try DomainBlock(from: &r, &opener))
        case .remotePostSeen: .remotePostSeen(try RemotePostSeen(from: &r, &opener))
        case .accountDomainBlocked: .accountDomainBlocked(try AccountDomainBlock(from: &r, &opener))
        case .remoteCommentSeen: .remoteCommentSeen(try RemoteCommentSeen(from: &r, &opener))
        case .accountDomainUnblocked: .accountDomainUnblocked(try AccountDomainBlock(from: &r, &opener))
        }
    }
}
