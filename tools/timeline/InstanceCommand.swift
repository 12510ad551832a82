import Foundation
import JSONModel
import Timeline

/// `timeline instance`: the instance's texts and rules, as the operator sets them (events in the
/// log: InstanceTextSet, InstanceRuleAdded, InstanceRuleRemoved).
enum InstanceCommand {
    static let help = """
        usage: timeline instance [--db PATH] show [--json]
               timeline instance [--db PATH] set FIELD TEXT | set FIELD --file FILE [--json]
               timeline instance [--db PATH] rules list [--json]
               timeline instance [--db PATH] rules add TEXT [--hint HINT] [--json]
               timeline instance [--db PATH] rules remove RULE_ID [--json]

        show    every text the operator set, and the rules
        set     set one of the instance's texts (plain text; blank lines part paragraphs); "" takes
                it away. FIELD: title, description, extended-description, privacy-policy,
                terms-of-service, contact-email. Mastodon apps read them at /api/v1/instance
                (title, description, contact email, rules) and /api/v1/instance/extended_description,
                privacy_policy and terms_of_service (not found until set)
        rules   the server's rules, in the order they were added (GET /api/v1/instance/rules):
                add answers the new rule's id (--json: {"id": …}); remove takes one away
        """

    /// The fields by their command-line names.
    static let fields: [(name: String, field: InstanceTextField)] = [
        ("title", .title), ("description", .description), ("extended-description", .extendedDescription),
        ("privacy-policy", .privacyPolicy), ("terms-of-service", .termsOfService), ("contact-email", .contactEmail)
    ]

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json", "file", "hint"])
        guard !args.has("help"), let verb = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        switch verb {
        case "show":
            let service = try TimelineTool.open(args, existing: true)
            defer { TimelineTool.close(service) }
            var texts: [String: String] = [:]
            for (name, field) in fields {
                if let text = try service.instanceText(field) { texts[name] = text.text }
            }
            let rules = try service.instanceRules()
            if args.has("json") {
                let members = texts.map { (key: $0.key, value: JSONValue.string($0.value)) }
                let listed: [JSONValue] = rules.map {
                    ["id": .string($0.id.rawValue), "text": .string($0.text), "hint": .string($0.hint)]
                }
                try emitJSON(JSONValue.object(members + [(key: "rules", value: .array(listed))]))
            } else {
                for (name, _) in fields {
                    print("\(name): " + (texts[name].map { $0.contains("\n") ? "\n\($0)" : $0 } ?? "(not set)"))
                }
                printRules(rules)
            }
            return 0
        case "set":
            guard args.positional.count == 2 || args.positional.count == 3,
                let field = fields.first(where: { $0.name == args.positional[1] })?.field
            else {
                throw UsageError(
                    "usage: timeline instance set FIELD TEXT|--file FILE (FIELD: \(fields.map(\.name).joined(separator: ", ")))"
                )
            }
            let text: String
            if let file = args.value("file") {
                guard args.positional.count == 2 else { throw UsageError("give TEXT or --file FILE, not both") }
                text = try String(contentsOfFile: file, encoding: .utf8)
            } else {
                guard args.positional.count == 3 else { throw UsageError("give TEXT or --file FILE") }
                text = args.positional[2]
            }
            let service = try TimelineTool.open(args, existing: true)
            defer { TimelineTool.close(service) }
            let result = try await service.execute(
                .setInstanceText(field: field.rawValue, text: text), as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                let name = args.positional[1]
                print(
                    result == .changed(false)
                        ? "\(name): unchanged"
                        : text.allSatisfy(\.isWhitespace) ? "\(name): taken away" : "\(name): set")
            }
            return 0
        case "rules":
            return try await rules(args)
        default:
            throw UsageError("unknown instance command \(verb)")
        }
    }

    static func rules(_ args: Arguments) async throws -> Int32 {
        let words = Array(args.positional.dropFirst())
        let service = try TimelineTool.open(args, existing: true)
        defer { TimelineTool.close(service) }
        switch (words.first, words.count) {
        case ("list", 1):
            let rules = try service.instanceRules()
            if args.has("json") {
                try emitJSON(["rules": rules.map { ["id": $0.id.rawValue, "text": $0.text, "hint": $0.hint] }])
            } else {
                printRules(rules)
            }
        case ("add", 2):
            let result = try await service.execute(
                .addInstanceRule(text: words[1], hint: args.value("hint")), as: .operator)
            guard case .created(let id) = result else { throw TimelineError(.internal, "no rule id") }
            if args.has("json") { emit(JSONOutput.line(JSONOutput.result(result))) } else { print("added rule \(id)") }
        case ("remove", 2):
            let result = try await service.execute(.removeInstanceRule(rule: words[1]), as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                print("removed rule \(words[1])")
            }
        default:
            throw UsageError("usage: timeline instance rules list | add TEXT [--hint HINT] | remove RULE_ID")
        }
        return 0
    }

    static func printRules(_ rules: [InstanceRuleRecord]) {
        if rules.isEmpty { print("no rules") }
        for (index, rule) in rules.enumerated() {
            print("\(index + 1). \(rule.text)  [\(rule.id.rawValue)]" + (rule.hint.isEmpty ? "" : "\n   \(rule.hint)"))
        }
    }
}

/// `timeline announcements`: the operator's announcements (AnnouncementAdded, AnnouncementRemoved).
enum AnnouncementsCommand {
    static let help = """
        usage: timeline announcements [--db PATH] list [--json]
               timeline announcements [--db PATH] add TEXT [--starts WHEN --ends WHEN [--all-day]] [--json]
               timeline announcements [--db PATH] remove ANNOUNCEMENT_ID [--json]

        list    every announcement, newest first, with its reactions; an ended one says so (Mastodon apps are shown those in effect:
                GET /api/v1/announcements)
        add     announce TEXT to every user; --starts and --ends (dates, 2026-12-24, or RFC 3339
                times, 2026-12-24T18:00:00Z) go together, and after --ends it is no longer shown;
                --all-day: the times are dates only. Answers the new id (--json: {"id": …})
        remove  take an announcement away, with its reactions and dismissals
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json", "starts", "ends", "all-day"])
        guard !args.has("help"), let verb = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args, existing: true)
        defer { TimelineTool.close(service) }
        switch (verb, args.positional.count) {
        case ("list", 1):
            let list = try service.announcements(viewer: nil, includeEnded: true)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            if args.has("json") {
                let items: [JSONValue] = list.map { a in
                    var item: JSONValue = [
                        "id": .string(a.record.id.rawValue), "text": .string(a.record.text),
                        "allDay": .bool(a.record.allDay),
                        "publishedAt": .string(JSONOutput.timestamp(a.record.publishedAt)),
                        "reactions": .array(a.reactions.map { ["name": .string($0.name), "count": .integer($0.count)] })
                    ]
                    if let starts = a.record.startsAt {
                        item = item.setting("startsAt", .string(JSONOutput.timestamp(starts)))
                    }
                    if let ends = a.record.endsAt { item = item.setting("endsAt", .string(JSONOutput.timestamp(ends))) }
                    return item
                }
                try emitJSON(["announcements": .array(items)] as JSONValue)
            } else {
                if list.isEmpty { print("no announcements") }
                for a in list {
                    let r = a.record
                    var line = "\(r.id.rawValue)  \(JSONOutput.timestamp(r.publishedAt))"
                    if let starts = r.startsAt, let ends = r.endsAt {
                        line += "  \(JSONOutput.timestamp(starts)) – \(JSONOutput.timestamp(ends))"
                        if r.allDay { line += " (all day)" }
                        if ends <= now { line += "  (ended)" }
                    }
                    print(line + "\n  " + r.text.replacingOccurrences(of: "\n", with: "\n  "))
                    if !a.reactions.isEmpty {
                        print("  " + a.reactions.map { "\($0.name) \($0.count)" }.joined(separator: "  "))
                    }
                }
            }
        case ("add", 2):
            let result = try await service.execute(
                .addAnnouncement(
                    text: args.positional[1], startsAt: args.value("starts"), endsAt: args.value("ends"),
                    allDay: args.has("all-day") ? true : nil), as: .operator)
            guard case .created(let id) = result else { throw TimelineError(.internal, "no announcement id") }
            if args.has("json") { emit(JSONOutput.line(JSONOutput.result(result))) } else { print("announced \(id)") }
        case ("remove", 2):
            let result = try await service.execute(
                .removeAnnouncement(announcement: args.positional[1]), as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                print("removed announcement \(args.positional[1])")
            }
        default:
            throw UsageError("usage: timeline announcements list | add TEXT [--starts W --ends W] | remove ID")
        }
        return 0
    }
}
