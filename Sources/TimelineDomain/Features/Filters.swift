import Foundation
import JSONModel

// Filters (Mastodon's v2 filters, "muted words"): a user's filter has a title, the contexts it
// applies in (home, notifications, public, thread, account), an action (warn, hide, blur), an
// optional expiry, keywords (each matched as a whole word or anywhere) and statuses. Every
// change — `createFilter`, `updateFilter`, `addFilterKeyword`, `updateFilterKeyword`,
// `removeFilterKeyword`, `addFilterStatus`, `removeFilterStatus` — records `FilterSaved`, the
// filter as it now stands (so the projection keeps it by replacing it, and a rebuild gives it
// back as it was); `deleteFilter` records `FilterDeleted`. Filters are applied when posts are
// read (`FilterMatching`): an expired filter matches nothing, with nothing written when it ends.

/// A filter's identifier; its keywords and statuses have identifiers of the same form.
public struct FilterID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Where a filter applies (Mastodon's `context`).
public enum FilterContext: String, Codable, Sendable, SchemaEnumeration {
    /// The home timeline (and lists).
    case home
    /// Notifications.
    case notifications
    /// Public timelines: hashtags, places, search.
    case `public`
    /// A post's thread (its comments, its context).
    case thread
    /// An account's page.
    case account
}

/// What a filter does to a post it matches (Mastodon's `filter_action`).
public enum FilterAction: String, Codable, Sendable, SchemaEnumeration {
    /// The post is shown behind a warning naming the filter.
    case warn
    /// The post is not shown.
    case hide
    /// The post's media are hidden behind a warning.
    case blur
}

/// A keyword of a filter.
public struct FilterKeyword: Equatable, Sendable, Codable {
    /// The keyword's identifier.
    public var id: String
    /// The word or phrase to match (case-insensitively).
    public var keyword: String
    /// Whether it matches only whole words (at word boundaries).
    public var wholeWord: Bool
    /// A keyword.
    public init(id: String, keyword: String, wholeWord: Bool) {
        self.id = id
        self.keyword = keyword
        self.wholeWord = wholeWord
    }
}

/// A post a filter names.
public struct FilterStatus: Equatable, Sendable, Codable {
    /// The filter status's identifier.
    public var id: String
    /// The post.
    public var postId: PostID
    /// A filter status.
    public init(id: String, postId: PostID) {
        self.id = id
        self.postId = postId
    }
}

/// The payload of `FilterSaved`: a filter as it stands after a change (the read models keep it
/// as it is: it is also the filter's record).
public struct FilterSaved: Equatable, Sendable, Codable {
    /// The filter's identifier.
    public var filterId: FilterID
    /// Whose filter it is.
    public var userId: UserID
    /// Its title.
    public var title: String
    /// Where it applies.
    public var context: [FilterContext]
    /// What it does to a post it matches.
    public var action: FilterAction
    /// When it ends by itself (ms since 1970); `nil`: never.
    public var expiresAt: Int64?
    /// Its keywords, in the order they were added.
    public var keywords: [FilterKeyword]
    /// The posts it names, in the order they were added.
    public var statuses: [FilterStatus]
    /// A `FilterSaved` payload.
    public init(
        filterId: FilterID, userId: UserID, title: String, context: [FilterContext], action: FilterAction,
        expiresAt: Int64?, keywords: [FilterKeyword] = [], statuses: [FilterStatus] = []
    ) {
        self.filterId = filterId
        self.userId = userId
        self.title = title
        self.context = context
        self.action = action
        self.expiresAt = expiresAt
        self.keywords = keywords
        self.statuses = statuses
    }

    /// Whether it still applies at `now` (an expired filter matches nothing).
    public func isActive(at now: Int64) -> Bool { expiresAt.map { $0 > now } ?? true }
}

extension FilterSaved: EventPayload {
    /// The aggregate: the owner's stream.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `FilterSaved` payload names: `userId`.
    package var users: [UserID] { [userId] }

    /// Writes a `FilterSaved` payload at `currentVersion`: the title and keywords sealed with
    /// the owner's key (what a user mutes is personal).
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(filterId.rawValue)
        w.string(userId.rawValue)
        // The title and the words are sealed; the keywords' ids stay readable, so an erased
        // user's filters still number what they numbered (a rebuild gives the same ids).
        try sealer.seal(userId, into: &w) { s in
            s.string(title)
            s.strings(keywords.map(\.keyword))
        }
        w.varint(UInt64(keywords.count))
        for k in keywords {
            w.string(k.id)
            w.u8(k.wholeWord ? 1 : 0)
        }
        w.strings(context.map(\.rawValue))
        w.string(action.rawValue)
        w.u8(expiresAt == nil ? 0 : 1)
        if let expiresAt { w.int64(expiresAt) }
        w.varint(UInt64(statuses.count))
        for s in statuses {
            w.string(s.id)
            w.string(s.postId.rawValue)
        }
    }

    /// Reads a stored `FilterSaved` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        let id = FilterID(try r.string()), user = UserID(try r.string())
        let personal = try opener.personal(user, from: &r) { s in (try s.string(), try s.strings()) }
        var keywords: [FilterKeyword] = []
        for index in 0..<Int(try r.varint()) {
            let id = try r.string(), whole = try r.u8() != 0
            let words = personal?.1 ?? []
            keywords.append(FilterKeyword(id: id, keyword: index < words.count ? words[index] : "", wholeWord: whole))
        }
        let context = try r.strings().compactMap(FilterContext.init(rawValue:))
        guard let action = FilterAction(rawValue: try r.string()) else {
            throw CorruptRecord(message: "unknown filter action")
        }
        let expires = try r.u8() == 0 ? nil : try r.int64()
        var statuses: [FilterStatus] = []
        for _ in 0..<(try r.varint()) {
            statuses.append(FilterStatus(id: try r.string(), postId: PostID(try r.string())))
        }
        self.init(
            filterId: id, userId: user, title: personal?.0 ?? "", context: context, action: action, expiresAt: expires,
            keywords: keywords, statuses: statuses)
    }

    /// The title is left out once the owner is erased (the keywords' words read back as "").
    package static var erasedMembers: [String] { ["title"] }

    /// A one-line human summary of a `FilterSaved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) saved filter \(filterId) (\(action.rawValue) in \(context.map(\.rawValue).joined(separator: ", ")); "
            + "\(keywords.count) keywords, \(statuses.count) posts)"
    }
}

/// The payload of `FilterDeleted`: a user deleted one of their filters.
public struct FilterDeleted: Equatable, Sendable, Codable {
    /// The filter's identifier.
    public var filterId: FilterID
    /// Whose filter it was.
    public var userId: UserID
    /// A `FilterDeleted` payload.
    public init(filterId: FilterID, userId: UserID) {
        self.filterId = filterId
        self.userId = userId
    }
}

extension FilterDeleted: EventPayload {
    /// The aggregate: the owner's stream.
    package var stream: String { StreamName.user(userId) }
    /// Every user a `FilterDeleted` payload names: `userId`.
    package var users: [UserID] { [userId] }
    /// Writes a `FilterDeleted` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(filterId.rawValue)
        w.string(userId.rawValue)
    }
    /// Reads a stored `FilterDeleted` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(filterId: FilterID(try r.string()), userId: UserID(try r.string()))
    }
    /// A one-line human summary of a `FilterDeleted` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "\(name(userId)) deleted filter \(filterId)"
    }
}

// MARK: - Matching

/// One filter's match on a post (Mastodon's `FilterResult`).
public struct FilterMatch: Equatable, Sendable {
    /// The filter that matched.
    public var filter: FilterSaved
    /// The text of the post each matching keyword matched, as the post writes it (nil: none).
    public var keywordMatches: [String]?
    /// The post's id when the filter names it (nil: it does not).
    public var statusMatches: [String]?
    /// A match.
    public init(filter: FilterSaved, keywordMatches: [String]?, statusMatches: [String]?) {
        self.filter = filter
        self.keywordMatches = keywordMatches
        self.statusMatches = statusMatches
    }
}

/// What a reader's filters make of a post in one context: hidden, or shown with the matches
/// (warn and blur). The one place filters are matched: every surface asks it.
public struct FilterVerdict: Equatable, Sendable {
    /// Every filter that matched (hide ones too).
    public var matches: [FilterMatch]
    /// Whether a matching filter hides the post.
    public var hidden: Bool { matches.contains { $0.filter.action == .hide } }
    /// The matches shown with the post (those of warn and blur filters).
    public var shown: [FilterMatch] { matches.filter { $0.filter.action != .hide } }
    /// A verdict of these matches.
    public init(matches: [FilterMatch]) { self.matches = matches }
}

/// Matches a reader's filters against posts, as Mastodon does: a keyword matches
/// case-insensitively, anywhere, or — `wholeWord` — only where a word starts (when the keyword
/// starts with a word character) and ends (when it ends with one); a filter status matches its
/// post. Only filters active at `now` in `context` apply. Pure: the read models give it the
/// filters and the post's searchable text (its content warning, caption and photo
/// descriptions, as Mastodon's searchable text is).
public struct FilterMatching: Sendable {
    /// The filters that apply.
    public let filters: [FilterSaved]

    /// The filters of `all` that apply in `context` at `now`.
    public init(_ all: [FilterSaved], context: FilterContext, now: Int64) {
        filters = all.filter { $0.isActive(at: now) && $0.context.contains(context) }
    }

    /// Whether no filter applies (nothing to match).
    public var isEmpty: Bool { filters.isEmpty }

    /// The verdict on the post `postId` whose searchable text is `text`.
    public func verdict(postId: String, text: String) -> FilterVerdict {
        var matches: [FilterMatch] = []
        for filter in filters {
            var words: [String] = []
            for keyword in filter.keywords {
                if let found = Self.find(keyword.keyword, in: text, wholeWord: keyword.wholeWord),
                    !words.contains(found)
                {
                    words.append(found)
                }
            }
            let named = filter.statuses.contains { $0.postId.rawValue == postId }
            guard !words.isEmpty || named else { continue }
            matches.append(
                FilterMatch(
                    filter: filter, keywordMatches: words.isEmpty ? nil : words, statusMatches: named ? [postId] : nil))
        }
        return FilterVerdict(matches: matches)
    }

    /// The first place `keyword` occurs in `text` (case-insensitively; at word boundaries when
    /// `wholeWord`), as `text` writes it; nil when nowhere.
    public static func find(_ keyword: String, in text: String, wholeWord: Bool) -> String? {
        guard !keyword.isEmpty else { return nil }
        let needStart = wholeWord && keyword.first.map(isWord) == true
        let needEnd = wholeWord && keyword.last.map(isWord) == true
        var searchStart = text.startIndex
        while searchStart < text.endIndex,
            let range = text.range(of: keyword, options: [.caseInsensitive], range: searchStart..<text.endIndex)
        {
            let startsWord =
                !needStart || range.lowerBound == text.startIndex || !isWord(text[text.index(before: range.lowerBound)])
            let endsWord = !needEnd || range.upperBound == text.endIndex || !isWord(text[range.upperBound])
            if startsWord && endsWord { return String(text[range]) }
            searchStart = text.index(after: range.lowerBound)
        }
        return nil
    }

    /// A word character (Ruby's `[[:word:]]`): a letter, a mark, a digit or a connector (`_`).
    static func isWord(_ c: Character) -> Bool {
        c.unicodeScalars.allSatisfy { s in
            let p = s.properties
            return p.isAlphabetic || p.numericType == .decimal || p.generalCategory == .connectorPunctuation
                || p.generalCategory == .nonspacingMark || p.generalCategory == .spacingMark
        }
    }
}

// MARK: - Deciding

/// A keyword as a command gives it (`createFilter`, `updateFilter`): a new one (no `id`), a
/// change to one (`id`), or its removal (`id` and `destroy`).
public struct FilterKeywordInput: Equatable, Sendable {
    /// The keyword changed or removed; nil: a new one.
    public var id: String?
    /// The word or phrase.
    public var keyword: String?
    /// Whether it matches whole words only (new keywords: true, as Mastodon's default).
    public var wholeWord: Bool?
    /// Whether the keyword `id` is removed.
    public var destroy: Bool
    /// A keyword input.
    public init(id: String? = nil, keyword: String? = nil, wholeWord: Bool? = nil, destroy: Bool = false) {
        self.id = id
        self.keyword = keyword
        self.wholeWord = wholeWord
        self.destroy = destroy
    }

    /// Reads one keyword object (`{id?, keyword?, wholeWord?, destroy?}`) of the field `field`.
    init(_ object: JSONValue, field: String) throws(TimelineError) {
        destroy = false
        guard case .object(let members) = object else { throw .invalid(field, "\(field) must be a list of objects") }
        for (key, value) in members {
            switch (key, value) {
            case ("id", .string(let s)): id = s
            case ("keyword", .string(let s)): keyword = s
            case ("wholeWord", .bool(let b)): wholeWord = b
            case ("destroy", .bool(let b)): destroy = b
            case (_, .null): continue
            default: throw .invalid(field, "\(field): \(key.prefix(32)) is not a keyword's field of that type")
            }
        }
    }

    /// The JSON object of the input.
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let id { members.append(("id", .string(id))) }
        if let keyword { members.append(("keyword", .string(keyword))) }
        if let wholeWord { members.append(("wholeWord", .bool(wholeWord))) }
        if destroy { members.append(("destroy", .bool(true))) }
        return .object(members)
    }
}

/// The limits of filters.
public enum FilterPolicy {
    /// The longest title, in characters.
    public static let maxTitle = 256
    /// The longest keyword, in characters.
    public static let maxKeyword = 512
    /// How many filters one user may have.
    public static let maxFilters = 100
    /// How many keywords one filter may have.
    public static let maxKeywords = 100
    /// How many posts one filter may name.
    public static let maxStatuses = 100
    /// The longest expiry, in seconds (a year).
    public static let maxExpiresIn = 365 * 24 * 3600
}

extension Decider {
    /// The acting user's filter that is, or holds as a keyword or status, `raw` (`not_found`
    /// otherwise: another user's filter is as unknown as none).
    private func ownFilter(_ raw: String, of me: UserRecord, field: String) throws -> FilterSaved {
        guard let id = FilterID.parse(raw), let filter = try state.filter(holding: id.rawValue), filter.userId == me.id
        else { throw TimelineError(.notFound, "no \(field) \(raw.prefix(64))", field: field) }
        return filter
    }

    private func contexts(_ raw: [String]) throws(TimelineError) -> [FilterContext] {
        var out: [FilterContext] = []
        for item in raw {
            guard let c = FilterContext(rawValue: item) else {
                throw .invalid("context", "context must be among home, notifications, public, thread, account")
            }
            if !out.contains(c) { out.append(c) }
        }
        guard !out.isEmpty else { throw .invalid("context", "context must name at least one place") }
        return out
    }

    private func expiry(_ seconds: Int) throws(TimelineError) -> Int64? {
        guard seconds != 0 else { return nil }
        guard (1...FilterPolicy.maxExpiresIn).contains(seconds) else {
            throw .invalid("expiresIn", "expiresIn must be 0 (never) or 1–\(FilterPolicy.maxExpiresIn) seconds")
        }
        return context.now + Int64(seconds) * 1000
    }

    private func keywordText(_ raw: String) throws(TimelineError) -> String {
        let text = try Validation.text(raw, field: "keyword", max: FilterPolicy.maxKeyword, allowEmpty: false)
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalid("keyword", "keyword must not be blank")
        }
        return text
    }

    /// Applies keyword inputs (new, changed, removed) to `filter`.
    private func applyKeywords(_ inputs: [FilterKeywordInput], to filter: inout FilterSaved) throws {
        for input in inputs {
            if let id = input.id {
                guard let index = filter.keywords.firstIndex(where: { $0.id == id }) else {
                    throw TimelineError(.notFound, "no keyword \(id.prefix(64)) in this filter", field: "keywords")
                }
                if input.destroy {
                    filter.keywords.remove(at: index)
                    continue
                }
                if let keyword = input.keyword { filter.keywords[index].keyword = try keywordText(keyword) }
                if let whole = input.wholeWord { filter.keywords[index].wholeWord = whole }
            } else if !input.destroy {
                guard let keyword = input.keyword else {
                    throw TimelineError.invalid("keywords", "a new keyword needs its keyword")
                }
                filter.keywords.append(
                    FilterKeyword(
                        id: context.newID(), keyword: try keywordText(keyword), wholeWord: input.wholeWord ?? true))
            }
        }
        guard filter.keywords.count <= FilterPolicy.maxKeywords else {
            throw TimelineError.invalid("keywords", "a filter holds at most \(FilterPolicy.maxKeywords) keywords")
        }
    }

    /// A new filter of the acting user's.
    func createFilter(
        title: String, context raw: [String], action: String?, expiresIn: Int?, keywords: [FilterKeywordInput],
        by me: UserRecord
    ) throws -> Decision {
        guard try state.filters(of: me.id).count < FilterPolicy.maxFilters else {
            throw TimelineError.invalid("title", "you have \(FilterPolicy.maxFilters) filters already")
        }
        var filter = FilterSaved(
            filterId: FilterID(context.newID()), userId: me.id,
            title: try Validation.text(title, field: "title", max: FilterPolicy.maxTitle, allowEmpty: false),
            context: try contexts(raw), action: try filterAction(action ?? "warn"),
            expiresAt: try expiry(expiresIn ?? 0))
        try applyKeywords(keywords.filter { $0.id == nil }, to: &filter)
        return Decision(events: [.filterSaved(filter)], outcome: .success(.created(filter.filterId.rawValue)))
    }

    private func filterAction(_ raw: String) throws(TimelineError) -> FilterAction {
        guard let action = FilterAction(rawValue: raw) else {
            throw .invalid("action", "action must be warn, hide or blur")
        }
        return action
    }

    /// Changes what is given of the acting user's filter `raw` (`expiresIn` 0: never expires).
    func updateFilter(
        _ raw: String, title: String?, context rawContext: [String]?, action: String?, expiresIn: Int?,
        keywords: [FilterKeywordInput], by me: UserRecord
    ) throws -> Decision {
        var filter = try ownFilter(raw, of: me, field: "filter")
        let before = filter
        if let title {
            filter.title = try Validation.text(title, field: "title", max: FilterPolicy.maxTitle, allowEmpty: false)
        }
        if let rawContext { filter.context = try contexts(rawContext) }
        if let action { filter.action = try filterAction(action) }
        if let expiresIn { filter.expiresAt = try expiry(expiresIn) }
        try applyKeywords(keywords, to: &filter)
        guard filter != before else { return Decision(outcome: .success(.changed(false))) }
        return Decision(events: [.filterSaved(filter)], outcome: .success(.changed(true)))
    }

    /// Deletes the acting user's filter `raw`, its keywords and statuses with it.
    func deleteFilter(_ raw: String, by me: UserRecord) throws -> Decision {
        let filter = try ownFilter(raw, of: me, field: "filter")
        guard filter.filterId.rawValue == raw else {
            throw TimelineError(.notFound, "no filter \(raw)", field: "filter")
        }
        return Decision(
            events: [.filterDeleted(FilterDeleted(filterId: filter.filterId, userId: me.id))], outcome: .success(.done))
    }

    /// A keyword added to the acting user's filter `raw`; answers its id.
    func addFilterKeyword(_ raw: String, keyword: String, wholeWord: Bool?, by me: UserRecord) throws -> Decision {
        var filter = try ownFilter(raw, of: me, field: "filter")
        guard filter.filterId.rawValue == raw else {
            throw TimelineError(.notFound, "no filter \(raw)", field: "filter")
        }
        try applyKeywords([FilterKeywordInput(keyword: keyword, wholeWord: wholeWord)], to: &filter)
        return Decision(
            events: [.filterSaved(filter)], outcome: .success(.created(filter.keywords.last!.id)))
    }

    /// Changes a keyword of one of the acting user's filters.
    func updateFilterKeyword(_ raw: String, keyword: String?, wholeWord: Bool?, by me: UserRecord) throws -> Decision {
        var filter = try ownFilter(raw, of: me, field: "keyword")
        guard filter.keywords.contains(where: { $0.id == raw }) else {
            throw TimelineError(.notFound, "no keyword \(raw)", field: "keyword")
        }
        let before = filter
        try applyKeywords([FilterKeywordInput(id: raw, keyword: keyword, wholeWord: wholeWord)], to: &filter)
        guard filter != before else { return Decision(outcome: .success(.changed(false))) }
        return Decision(events: [.filterSaved(filter)], outcome: .success(.changed(true)))
    }

    /// Removes a keyword of one of the acting user's filters.
    func removeFilterKeyword(_ raw: String, by me: UserRecord) throws -> Decision {
        var filter = try ownFilter(raw, of: me, field: "keyword")
        guard let index = filter.keywords.firstIndex(where: { $0.id == raw }) else {
            throw TimelineError(.notFound, "no keyword \(raw)", field: "keyword")
        }
        filter.keywords.remove(at: index)
        return Decision(events: [.filterSaved(filter)], outcome: .success(.done))
    }

    /// A post added to the acting user's filter `raw` (one they may see: any other is
    /// `not_found`, as unknown as none); answers the filter status's id.
    func addFilterStatus(_ raw: String, post: String, by me: UserRecord) throws -> Decision {
        var filter = try ownFilter(raw, of: me, field: "filter")
        guard filter.filterId.rawValue == raw else {
            throw TimelineError(.notFound, "no filter \(raw)", field: "filter")
        }
        let post = try visiblePost(post, to: me)
        if let standing = filter.statuses.first(where: { $0.postId == post.id }) {
            return Decision(outcome: .success(.created(standing.id)))
        }
        guard filter.statuses.count < FilterPolicy.maxStatuses else {
            throw TimelineError.invalid("post", "a filter names at most \(FilterPolicy.maxStatuses) posts")
        }
        let status = FilterStatus(id: context.newID(), postId: post.id)
        filter.statuses.append(status)
        return Decision(events: [.filterSaved(filter)], outcome: .success(.created(status.id)))
    }

    /// Removes a post from one of the acting user's filters.
    func removeFilterStatus(_ raw: String, by me: UserRecord) throws -> Decision {
        var filter = try ownFilter(raw, of: me, field: "filterStatus")
        guard let index = filter.statuses.firstIndex(where: { $0.id == raw }) else {
            throw TimelineError(.notFound, "no filter status \(raw)", field: "filterStatus")
        }
        filter.statuses.remove(at: index)
        return Decision(events: [.filterSaved(filter)], outcome: .success(.done))
    }
}

// MARK: - Commands

extension CommandFields {
    /// The keyword inputs of `field` (a list of `{id?, keyword?, wholeWord?, destroy?}`).
    fileprivate func keywordInputs(_ field: String) throws(TimelineError) -> [FilterKeywordInput] {
        var out: [FilterKeywordInput] = []
        for item in try optionalObjects(field) ?? [] { out.append(try FilterKeywordInput(item, field: field)) }
        return out
    }
}

/// `createFilter`: a new filter of the acting user's, with its first keywords; answers its id.
package struct CreateFilterCommand: CommandDefinition {
    /// The command's public name, `createFilter`.
    package static let name = "createFilter"
    /// The `title` field.
    package let title: String
    /// The `context` field.
    package let context: [String]
    /// The `action` field (warn when absent).
    package let action: String?
    /// The `expiresIn` field, seconds (0 or absent: never).
    package let expiresIn: Int?
    /// The `keywords` field.
    package let keywords: [FilterKeywordInput]

    /// A `createFilter` command with these fields.
    package init(title: String, context: [String], action: String?, expiresIn: Int?, keywords: [FilterKeywordInput]) {
        self.title = title
        self.context = context
        self.action = action
        self.expiresIn = expiresIn
        self.keywords = keywords
    }

    /// Reads `createFilter`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        title = try fields.string("title")
        context = try fields.optionalList("context") ?? []
        action = try fields.optionalString("action")
        expiresIn = try fields.optionalInteger("expiresIn")
        keywords = try fields.keywordInputs("keywords")
    }

    /// Writes `createFilter`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("title", title)
        fields.set("context", strings: context)
        fields.set("action", action)
        if let expiresIn { fields.set("expiresIn", json: .integer(expiresIn)) }
        if !keywords.isEmpty { fields.set("keywords", json: .array(keywords.map(\.json))) }
    }

    /// Decides `createFilter` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.createFilter(
                title: title, context: context, action: action, expiresIn: expiresIn, keywords: keywords, by: $0)
        }
    }
}

/// `updateFilter`: changes what it gives of one of the acting user's filters.
package struct UpdateFilterCommand: CommandDefinition {
    /// The command's public name, `updateFilter`.
    package static let name = "updateFilter"
    /// The `filter` field.
    package let filter: String
    /// The `title` field.
    package let title: String?
    /// The `context` field.
    package let context: [String]?
    /// The `action` field.
    package let action: String?
    /// The `expiresIn` field, seconds (0: never).
    package let expiresIn: Int?
    /// The `keywords` field: keywords added, changed or removed.
    package let keywords: [FilterKeywordInput]

    /// An `updateFilter` command with these fields.
    package init(
        filter: String, title: String?, context: [String]?, action: String?, expiresIn: Int?,
        keywords: [FilterKeywordInput]
    ) {
        self.filter = filter
        self.title = title
        self.context = context
        self.action = action
        self.expiresIn = expiresIn
        self.keywords = keywords
    }

    /// Reads `updateFilter`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        filter = try fields.string("filter")
        title = try fields.optionalString("title")
        context = try fields.optionalList("context")
        action = try fields.optionalString("action")
        expiresIn = try fields.optionalInteger("expiresIn")
        keywords = try fields.keywordInputs("keywords")
    }

    /// Writes `updateFilter`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("filter", filter)
        fields.set("title", title)
        if let context { fields.set("context", strings: context) }
        fields.set("action", action)
        if let expiresIn { fields.set("expiresIn", json: .integer(expiresIn)) }
        if !keywords.isEmpty { fields.set("keywords", json: .array(keywords.map(\.json))) }
    }

    /// Decides `updateFilter` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.updateFilter(
                filter, title: title, context: context, action: action, expiresIn: expiresIn, keywords: keywords,
                by: $0)
        }
    }
}

/// `deleteFilter`: deletes one of the acting user's filters.
package struct DeleteFilterCommand: OneFieldCommand {
    /// The command's public name, `deleteFilter`, and its one field, `filter`.
    package static let name = "deleteFilter", field = "filter"
    /// The `filter` field, raw user input.
    package let value: String
    /// A `deleteFilter` command naming `filter` `value`.
    package init(value: String) { self.value = value }
    /// Decides `deleteFilter` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.deleteFilter(value, by: $0) }
    }
}

/// `addFilterKeyword`: a keyword added to one of the acting user's filters; answers its id.
package struct AddFilterKeywordCommand: CommandDefinition {
    /// The command's public name, `addFilterKeyword`.
    package static let name = "addFilterKeyword"
    /// The `filter` field.
    package let filter: String
    /// The `keyword` field.
    package let keyword: String
    /// The `wholeWord` field (true when absent).
    package let wholeWord: Bool?
    /// An `addFilterKeyword` command with these fields.
    package init(filter: String, keyword: String, wholeWord: Bool?) {
        self.filter = filter
        self.keyword = keyword
        self.wholeWord = wholeWord
    }
    /// Reads `addFilterKeyword`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        filter = try fields.string("filter")
        keyword = try fields.string("keyword")
        wholeWord = try fields.optionalBool("wholeWord")
    }
    /// Writes `addFilterKeyword`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("filter", filter)
        fields.set("keyword", keyword)
        fields.set("wholeWord", wholeWord)
    }
    /// Decides `addFilterKeyword` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.addFilterKeyword(filter, keyword: keyword, wholeWord: wholeWord, by: $0)
        }
    }
}

/// `updateFilterKeyword`: changes a keyword of one of the acting user's filters.
package struct UpdateFilterKeywordCommand: CommandDefinition {
    /// The command's public name, `updateFilterKeyword`.
    package static let name = "updateFilterKeyword"
    /// The `keyword` field: the keyword's id.
    package let keywordId: String
    /// The `text` field: the new word or phrase.
    package let text: String?
    /// The `wholeWord` field.
    package let wholeWord: Bool?
    /// An `updateFilterKeyword` command with these fields.
    package init(keywordId: String, text: String?, wholeWord: Bool?) {
        self.keywordId = keywordId
        self.text = text
        self.wholeWord = wholeWord
    }
    /// Reads `updateFilterKeyword`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        keywordId = try fields.string("keyword")
        text = try fields.optionalString("text")
        wholeWord = try fields.optionalBool("wholeWord")
    }
    /// Writes `updateFilterKeyword`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("keyword", keywordId)
        fields.set("text", text)
        fields.set("wholeWord", wholeWord)
    }
    /// Decides `updateFilterKeyword` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) {
            try decider.updateFilterKeyword(keywordId, keyword: text, wholeWord: wholeWord, by: $0)
        }
    }
}

/// `removeFilterKeyword`: removes a keyword of one of the acting user's filters.
package struct RemoveFilterKeywordCommand: OneFieldCommand {
    /// The command's public name, `removeFilterKeyword`, and its one field, `keyword` (its id).
    package static let name = "removeFilterKeyword", field = "keyword"
    /// The `keyword` field, raw user input.
    package let value: String
    /// A `removeFilterKeyword` command naming `keyword` `value`.
    package init(value: String) { self.value = value }
    /// Decides `removeFilterKeyword` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.removeFilterKeyword(value, by: $0) }
    }
}

/// `addFilterStatus`: a post added to one of the acting user's filters; answers its id.
package struct AddFilterStatusCommand: CommandDefinition {
    /// The command's public name, `addFilterStatus`.
    package static let name = "addFilterStatus"
    /// The `filter` field.
    package let filter: String
    /// The `post` field.
    package let post: String
    /// An `addFilterStatus` command with these fields.
    package init(filter: String, post: String) {
        self.filter = filter
        self.post = post
    }
    /// Reads `addFilterStatus`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        filter = try fields.string("filter")
        post = try fields.string("post")
    }
    /// Writes `addFilterStatus`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("filter", filter)
        fields.set("post", post)
    }
    /// Decides `addFilterStatus` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.addFilterStatus(filter, post: post, by: $0) }
    }
}

/// `removeFilterStatus`: removes a post from one of the acting user's filters.
package struct RemoveFilterStatusCommand: OneFieldCommand {
    /// The command's public name, `removeFilterStatus`, and its one field, `filterStatus`.
    package static let name = "removeFilterStatus", field = "filterStatus"
    /// The `filterStatus` field, raw user input.
    package let value: String
    /// A `removeFilterStatus` command naming `filterStatus` `value`.
    package init(value: String) { self.value = value }
    /// Decides `removeFilterStatus` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.acting(actor) { try decider.removeFilterStatus(value, by: $0) }
    }
}

extension Command {
    /// A new filter of the acting user's (`action` warn when nil; `expiresIn` seconds, 0 or nil:
    /// never); answers its id.
    public static func createFilter(
        title: String, context: [String], action: String? = nil, expiresIn: Int? = nil,
        keywords: [FilterKeywordInput] = []
    ) -> Command {
        Command(
            CreateFilterCommand(
                title: title, context: context, action: action, expiresIn: expiresIn, keywords: keywords))
    }
    /// Changes what is given of one of the acting user's filters (`expiresIn` 0: never expires).
    public static func updateFilter(
        filter: String, title: String? = nil, context: [String]? = nil, action: String? = nil, expiresIn: Int? = nil,
        keywords: [FilterKeywordInput] = []
    ) -> Command {
        Command(
            UpdateFilterCommand(
                filter: filter, title: title, context: context, action: action, expiresIn: expiresIn,
                keywords: keywords))
    }
    /// Deletes one of the acting user's filters.
    public static func deleteFilter(filter: String) -> Command { Command(DeleteFilterCommand(value: filter)) }
    /// Adds a keyword to one of the acting user's filters; answers its id.
    public static func addFilterKeyword(filter: String, keyword: String, wholeWord: Bool? = nil) -> Command {
        Command(AddFilterKeywordCommand(filter: filter, keyword: keyword, wholeWord: wholeWord))
    }
    /// Changes a keyword (by its id) of one of the acting user's filters.
    public static func updateFilterKeyword(keyword: String, text: String? = nil, wholeWord: Bool? = nil) -> Command {
        Command(UpdateFilterKeywordCommand(keywordId: keyword, text: text, wholeWord: wholeWord))
    }
    /// Removes a keyword (by its id) of one of the acting user's filters.
    public static func removeFilterKeyword(keyword: String) -> Command {
        Command(RemoveFilterKeywordCommand(value: keyword))
    }
    /// Adds a post to one of the acting user's filters; answers the filter status's id.
    public static func addFilterStatus(filter: String, post: String) -> Command {
        Command(AddFilterStatusCommand(filter: filter, post: post))
    }
    /// Removes a post (by the filter status's id) from one of the acting user's filters.
    public static func removeFilterStatus(filterStatus: String) -> Command {
        Command(RemoveFilterStatusCommand(value: filterStatus))
    }
}

// MARK: - JSON Schemas

extension FilterSaved {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "A user's filter as it stands after a change (created, updated, a keyword or post added, changed or removed)."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "expiresAt": "When the filter ends by itself (ms since 1970); absent: never.",
        "keywords": "Its keywords, each matched case-insensitively, as a whole word or anywhere.",
        "statuses": "The posts it names."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "title": JSONSchema.string.with("maxLength", .integer(FilterPolicy.maxTitle)),
        "context": JSONSchema.array(of: FilterContext.jsonSchema).with("minItems", 1).with("uniqueItems", true)
    ]
}

extension FilterDeleted {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? = "A user deleted one of their filters, its keywords and posts."
}

/// The schema of a `keywords` field's items.
private let keywordInputSchema = JSONSchema.object(
    [
        ("id", .identifier), ("keyword", JSONSchema.string.with("maxLength", .integer(FilterPolicy.maxKeyword))),
        ("wholeWord", .boolean), ("destroy", .boolean)
    ], required: []
).with("additionalProperties", false)

extension CreateFilterCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "A new filter of the acting user's (FilterSaved); answers {id}. Keywords without id are added."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "context": JSONSchema.array(of: FilterContext.jsonSchema).with("minItems", 1),
        "action": FilterAction.jsonSchema,
        "expiresIn": JSONSchema.integer.with("minimum", 0).with("maximum", .integer(FilterPolicy.maxExpiresIn)),
        "keywords": JSONSchema.array(of: keywordInputSchema)
    ]
}

extension UpdateFilterCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Changes what it gives of one of the acting user's filters (FilterSaved); expiresIn 0: never expires; "
        + "keywords: new ones (no id), changed ones (id), removed ones (id and destroy)."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "filter": .identifier,
        "context": JSONSchema.array(of: FilterContext.jsonSchema).with("minItems", 1),
        "action": FilterAction.jsonSchema,
        "expiresIn": JSONSchema.integer.with("minimum", 0).with("maximum", .integer(FilterPolicy.maxExpiresIn)),
        "keywords": JSONSchema.array(of: keywordInputSchema)
    ]
}

extension DeleteFilterCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? = "Deletes one of the acting user's filters (FilterDeleted)."
}

extension AddFilterKeywordCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Adds a keyword to one of the acting user's filters (FilterSaved); answers {id}, the keyword's."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "filter": .identifier, "keyword": JSONSchema.string.with("minLength", 1)
    ]
}

extension UpdateFilterKeywordCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Changes a keyword (named by its id) of one of the acting user's filters (FilterSaved); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["keyword": .identifier]
}

extension RemoveFilterKeywordCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Removes a keyword (named by its id) of one of the acting user's filters (FilterSaved)."
}

extension AddFilterStatusCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Adds a post the user may see to one of their filters (FilterSaved); answers {id}, the filter status's. "
        + "A post they may not see is not_found."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = ["filter": .identifier, "post": .identifier]
}

extension RemoveFilterStatusCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Removes a post (named by the filter status's id) from one of the acting user's filters (FilterSaved)."
}
