import JSONModel
import TimelineDomain

// The JSON forms of the notification policy's reads (`notificationPolicy`,
// `notificationRequests`, `notificationRequest`): their types, schemas and conversions.

extension ResultJSON {
    /// A user's notification policy with what it holds now (`notificationPolicy.schema.json`).
    struct NotificationPolicy: Codable, Sendable, SchemaDocumented {
        var forNotFollowing: String
        var forNotFollowers: String
        var forNewAccounts: String
        var forPrivateMentions: String
        var forLimitedAccounts: String
        var pendingRequests: Int
        var pendingNotifications: Int
    }

    /// The notifications held from one account (`notificationRequest.schema.json`).
    struct NotificationRequest: Codable, Sendable, SchemaDocumented {
        var account: String
        var count: Int
        var createdAt: String
        var updatedAt: String
        var last: ActivityItem
    }
}

extension ResultJSON.NotificationPolicy: NamedResult {
    static let schemaName = "notificationPolicy"
    static let schemaDescription: String? =
        "What the user's activity does with the notifications of accounts in each category (`accept`, `filter`: "
        + "held as a notification request, `drop`), with how many requests and notifications it holds."
    static let memberDescriptions = [
        "forNotFollowing": "Accounts the user does not follow.",
        "forNotFollowers": "Accounts that do not follow the user.",
        "forNewAccounts": "Accounts created less than 30 days before the notification.",
        "forPrivateMentions": "Private mentions (Timeline has none).",
        "forLimitedAccounts": "Accounts the moderators limited (Timeline limits none).",
        "pendingRequests": "How many accounts have notifications held.",
        "pendingNotifications": "How many notifications are held."
    ]
    static let memberSchemas: [String: JSONSchema] = {
        let action = JSONSchema.enumeration(NotificationFilterAction.allCases.map(\.rawValue))
        return [
            "forNotFollowing": action, "forNotFollowers": action, "forNewAccounts": action,
            "forPrivateMentions": action, "forLimitedAccounts": action,
            "pendingRequests": ResultJSON.count(from: 0), "pendingNotifications": ResultJSON.count(from: 0)
        ]
    }()

    init(_ view: NotificationPolicyView) {
        let policy = view.policy
        forNotFollowing = policy.forNotFollowing.rawValue
        forNotFollowers = policy.forNotFollowers.rawValue
        forNewAccounts = policy.forNewAccounts.rawValue
        forPrivateMentions = policy.forPrivateMentions.rawValue
        forLimitedAccounts = policy.forLimitedAccounts.rawValue
        pendingRequests = view.pendingRequests
        pendingNotifications = view.pendingNotifications
    }
}

extension ResultJSON.NotificationRequest: NamedResult {
    static let schemaName = "notificationRequest"
    static let schemaDescription: String? =
        "The notifications the user's notification policy holds from one account (its id is the account's)."
    static let memberDescriptions = [
        "account": "The account whose notifications are held.",
        "count": "How many are held.",
        "createdAt": "When the oldest held one came.",
        "updatedAt": "When the newest held one came.",
        "last": "The newest held notification."
    ]
    static let memberSchemas = [
        "account": ResultJSON.identifier, "count": ResultJSON.count(from: 1), "createdAt": ResultJSON.timestamp,
        "updatedAt": ResultJSON.timestamp, "last": ResultJSON.reference(ResultJSON.ActivityItem.self)
    ]

    init(_ request: Timeline.NotificationRequest) {
        account = request.account.rawValue
        count = request.count
        createdAt = JSONOutput.timestamp(request.createdAt)
        updatedAt = JSONOutput.timestamp(request.updatedAt)
        last = ResultJSON.ActivityItem(request.last)
    }
}
