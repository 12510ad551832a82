/// What a Mastodon route promises, for its OpenAPI document (`MastodonOpenAPI`): written
/// beside the route, so the table and the document cannot drift apart.
struct MastodonDoc: Sendable {
    /// One line: what the route does.
    var summary: String
    /// The entity it answers with.
    var returns: MastodonSchema
    /// Its query parameters (all strings; a name ending in `[]` is a list).
    var query: [String] = []
    /// Its form fields, if it takes a body (form-urlencoded, JSON or multipart alike).
    var form: [String] = []
    /// The form's file fields (a multipart body).
    var files: [String] = []
    /// Whether it is a page of Mastodon's (`max_id`, `since_id`, `min_id`, `limit`, `Link`).
    var paged = false
    /// Other answers it may give (a redirect), besides its errors.
    var otherStatuses: [Int] = []

    init(
        _ summary: String, returns: MastodonSchema, query: [String] = [], form: [String] = [], files: [String] = [],
        paged: Bool = false, otherStatuses: [Int] = []
    ) {
        self.summary = summary
        self.returns = returns
        self.query = query
        self.form = form
        self.files = files
        self.paged = paged
        self.otherStatuses = otherStatuses
    }
}

/// The answers of the Mastodon API, each a component schema of its OpenAPI document (a list
/// of an entity is an array of it).
enum MastodonSchema: String, Sendable {
    case account = "Account", accounts = "[Account]", credentialAccount = "CredentialAccount"
    case status = "Status", statuses = "[Status]", statusEdits = "[StatusEdit]", statusSource = "StatusSource",
        context = "Context"
    case relationship = "Relationship", relationships = "[Relationship]"
    case media = "MediaAttachment", notification = "Notification", notifications = "[Notification]"
    case groupedNotifications = "GroupedNotificationsResults", count = "CountResponse"
    case notificationPolicy = "NotificationPolicy", notificationRequest = "NotificationRequest",
        notificationRequests = "[NotificationRequest]", notificationRequestsMerged = "NotificationRequestsMerged",
        v1NotificationPolicy = "V1NotificationPolicy"
    case pushSubscription = "WebPushSubscription"
    case application = "Application", token = "Token", markers = "Markers", report = "Report", search = "Search"
    case instanceV1 = "InstanceV1", instanceV2 = "Instance", oauthServer = "OAuthServerMetadata", empty = "Empty"
    case rules = "[Rule]", extendedDescription = "ExtendedDescription", privacyPolicy = "PrivacyPolicy",
        termsOfService = "TermsOfService", translationLanguages = "TranslationLanguages", peers = "Peers",
        domainBlocks = "DomainBlocks", instanceDomainBlocks = "[DomainBlock]",
        instanceActivity = "[InstanceActivity]", announcements = "[Announcement]"
    case preferences = "Preferences", customEmojis = "[CustomEmoji]", suggestions = "[Suggestion]"
    case list = "List", lists = "[List]"
    case conversation = "Conversation", conversations = "[Conversation]"
    case scheduledStatus = "ScheduledStatus", scheduledStatuses = "[ScheduledStatus]"
    case oembed = "OEmbedResponse", userInfo = "UserInfo", tag = "Tag", tags = "[Tag]",
        familiarFollowers = "[FamiliarFollowers]", featuredTag = "FeaturedTag", featuredTags = "[FeaturedTag]"
    case filter = "Filter", filters = "[Filter]", filterKeyword = "FilterKeyword", filterKeywords = "[FilterKeyword]",
        filterStatus = "FilterStatus", filterStatuses = "[FilterStatus]", v1Filter = "V1Filter",
        v1Filters = "[V1Filter]"
    case poll = "Poll"
    case profile = "Profile"
    case annualReports = "WrappedAnnualReports", annualReportState = "AnnualReportState"
    case collectionWithAccounts = "CollectionWithAccounts", wrappedCollection = "WrappedCollection",
        wrappedCollections = "WrappedCollections", wrappedCollectionItem = "WrappedCollectionItem"
    /// `text/plain` (the streaming health check).
    case text = "text"
    /// An HTML page (the authorize page).
    case page = "page"
    /// An endless stream (Server-Sent Events, or a WebSocket).
    case stream = "stream"
}
