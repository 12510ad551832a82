import Foundation
import JSONModel

// The instance's texts, set by the operator: `setInstanceText` records `InstanceTextSet` (a
// title, a short description, an extended description, a privacy policy, terms of service, a
// contact email; an empty text takes it away), `addInstanceRule` records `InstanceRuleAdded` and
// `removeInstanceRule` `InstanceRuleRemoved`. Mastodon apps read them at /api/v1/instance/… and
// in the instance entities; `timeline instance` sets them.

/// A server rule's identifier (`addInstanceRule`): rules are listed in the order they were added.
public struct RuleID: Identifier {
    /// The identifier's text.
    public let rawValue: String
    /// Wraps `rawValue` as is (see `parse(_:)` to check it first).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The texts of the instance the operator sets (`setInstanceText`'s `field`).
public enum InstanceTextField: String, CaseIterable, Sendable, Codable, SchemaEnumeration {
    /// The server's name (Mastodon's `title`; "Timeline" until set).
    case title
    /// One paragraph saying what the server is (Mastodon's `description`, v1's `short_description`).
    case description
    /// The about page (`GET /api/v1/instance/extended_description`).
    case extendedDescription
    /// The privacy policy (`GET /api/v1/instance/privacy_policy`).
    case privacyPolicy
    /// The terms of service (`GET /api/v1/instance/terms_of_service`).
    case termsOfService
    /// The address people write to (the instance's `contact.email`).
    case contactEmail

    /// The longest text of the field, in characters.
    public var maxLength: Int {
        switch self {
        case .title: 100
        case .description: 1000
        case .contactEmail: 254
        case .extendedDescription, .privacyPolicy, .termsOfService: 50_000
        }
    }
}

/// The payload of `InstanceTextSet`: the operator set one of the instance's texts (an empty
/// text takes it away: the privacy policy and terms of service are then not found, as on a
/// Mastodon server without them).
public struct InstanceTextSet: Equatable, Sendable, Codable {
    /// Which text.
    public var field: InstanceTextField
    /// The text, as the operator wrote it (plain text; "" takes it away).
    public var text: String
    /// An `InstanceTextSet` payload.
    public init(field: InstanceTextField, text: String) {
        self.field = field
        self.text = text
    }
}

extension InstanceTextSet: EventPayload {
    /// The aggregate: the instance's stream.
    package var stream: String { StreamName.instance }
    /// An `InstanceTextSet` payload names no user.
    package var users: [UserID] { [] }

    /// Writes an `InstanceTextSet` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(field.rawValue)
        w.string(text)
    }

    /// Reads a stored `InstanceTextSet` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        guard let field = InstanceTextField(rawValue: try r.string()) else {
            throw CorruptRecord(message: "unknown instance text field")
        }
        self.init(field: field, text: try r.string())
    }

    /// A one-line human summary of an `InstanceTextSet` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        text.isEmpty
            ? "the operator took away the \(field.rawValue)" : "the operator set the \(field.rawValue): \(clip(text))"
    }
}

/// The payload of `InstanceRuleAdded`: the operator added a server rule.
public struct InstanceRuleAdded: Equatable, Sendable, Codable {
    /// The rule's identifier.
    public var ruleId: RuleID
    /// The rule, in a sentence.
    public var text: String
    /// What it means, at more length ("" for none).
    public var hint: String
    /// An `InstanceRuleAdded` payload.
    public init(ruleId: RuleID, text: String, hint: String) {
        self.ruleId = ruleId
        self.text = text
        self.hint = hint
    }
}

extension InstanceRuleAdded: EventPayload {
    /// The aggregate: the instance's stream.
    package var stream: String { StreamName.instance }
    /// An `InstanceRuleAdded` payload names no user.
    package var users: [UserID] { [] }

    /// Writes an `InstanceRuleAdded` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws {
        w.string(ruleId.rawValue)
        w.string(text)
        w.string(hint)
    }

    /// Reads a stored `InstanceRuleAdded` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(ruleId: RuleID(try r.string()), text: try r.string(), hint: try r.string())
    }

    /// A one-line human summary of an `InstanceRuleAdded` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator added rule \(ruleId): \(clip(text))"
    }
}

/// The payload of `InstanceRuleRemoved`: the operator took a server rule away.
public struct InstanceRuleRemoved: Equatable, Sendable, Codable {
    /// The rule's identifier.
    public var ruleId: RuleID
    /// An `InstanceRuleRemoved` payload.
    public init(ruleId: RuleID) { self.ruleId = ruleId }
}

extension InstanceRuleRemoved: EventPayload {
    /// The aggregate: the instance's stream.
    package var stream: String { StreamName.instance }
    /// An `InstanceRuleRemoved` payload names no user.
    package var users: [UserID] { [] }
    /// Writes an `InstanceRuleRemoved` payload at `currentVersion`.
    package func encode(to w: inout ByteWriter, _ sealer: PayloadSealer) throws { w.string(ruleId.rawValue) }
    /// Reads a stored `InstanceRuleRemoved` payload of version `opener.version`.
    package init(from r: inout ByteReader, _ opener: inout PayloadOpener) throws {
        self.init(ruleId: RuleID(try r.string()))
    }
    /// A one-line human summary of an `InstanceRuleRemoved` event.
    package func summary(_ type: EventType, _ name: (UserID) -> String) -> String {
        "the operator removed rule \(ruleId)"
    }
}

extension StreamName {
    /// The instance's stream: its texts and rules, as the operator sets them.
    package static let instance = "instance"
}

/// A server rule as the read models keep it.
public struct InstanceRuleRecord: Equatable, Sendable {
    /// The rule's identifier.
    public var id: RuleID
    /// The rule, in a sentence.
    public var text: String
    /// What it means, at more length ("" for none).
    public var hint: String
    /// A rule record.
    public init(id: RuleID, text: String, hint: String) {
        self.id = id
        self.text = text
        self.hint = hint
    }
}

extension Validation {
    /// The longest rule, in characters (Mastodon's).
    public static let maxRuleText = 300
    /// The longest hint of a rule, in characters.
    public static let maxRuleHint = 2000
    /// The most rules a server has.
    public static let maxRules = 100
}

extension Decider {
    func setInstanceText(_ field: String, _ text: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "set the instance's texts")
        guard let which = InstanceTextField(rawValue: field) else {
            let names = InstanceTextField.allCases.map(\.rawValue).joined(separator: ", ")
            throw TimelineError.invalid("field", "field must be one of \(names)")
        }
        var value = try Validation.text(text, field: "text", max: which.maxLength, allowEmpty: true)
        if value.allSatisfy(\.isWhitespace) { value = "" }
        if which == .title || which == .contactEmail, value.contains("\n") {
            throw TimelineError.invalid("text", "the \(which.rawValue) is one line")
        }
        // The same text again changes nothing.
        guard try state.instanceText(which) != value else {
            return Decision(events: [], outcome: .success(.changed(false)))
        }
        return Decision(
            events: [.instanceTextSet(InstanceTextSet(field: which, text: value))], outcome: .success(.changed(true)))
    }

    func addInstanceRule(_ text: String, hint: String?, actor: Actor) throws -> Decision {
        try requireOperator(actor, "add a server rule")
        let text = try Validation.text(text, field: "text", max: Validation.maxRuleText, allowEmpty: false)
        let hint = try Validation.text(hint ?? "", field: "hint", max: Validation.maxRuleHint, allowEmpty: true)
        guard try state.instanceRules().count < Validation.maxRules else {
            throw TimelineError.invalid("text", "a server has at most \(Validation.maxRules) rules")
        }
        let event = InstanceRuleAdded(ruleId: RuleID(context.newID()), text: text, hint: hint)
        return Decision(events: [.instanceRuleAdded(event)], outcome: .success(.created(event.ruleId.rawValue)))
    }

    func removeInstanceRule(_ rule: String, actor: Actor) throws -> Decision {
        try requireOperator(actor, "remove a server rule")
        let id: RuleID = try Validation.identifier(rule, field: "rule")
        guard try state.instanceRules().contains(where: { $0.id == id }) else {
            throw TimelineError(.notFound, "there is no rule \(id)")
        }
        return Decision(events: [.instanceRuleRemoved(InstanceRuleRemoved(ruleId: id))], outcome: .success(.done))
    }
}

// MARK: - Commands

/// `setInstanceText`: sets one of the instance's texts (operators only).
package struct SetInstanceTextCommand: CommandDefinition {
    /// The command's public name, `setInstanceText`.
    package static let name = "setInstanceText"
    /// The `field` field: which text.
    package let field: String
    /// The `text` field: the text ("" takes it away).
    package let text: String

    /// A `setInstanceText` command with these fields.
    package init(field: String, text: String) {
        self.field = field
        self.text = text
    }

    /// Reads `setInstanceText`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        field = try fields.string("field")
        text = try fields.string("text")
    }

    /// Writes `setInstanceText`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("field", field)
        fields.set("text", text)
    }

    /// Decides `setInstanceText` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.setInstanceText(field, text, actor: actor)
    }
}

/// `addInstanceRule`: adds a server rule (operators only).
package struct AddInstanceRuleCommand: CommandDefinition {
    /// The command's public name, `addInstanceRule`.
    package static let name = "addInstanceRule"
    /// The `text` field: the rule.
    package let text: String
    /// The `hint` field: what it means, at more length.
    package let hint: String?

    /// An `addInstanceRule` command with these fields.
    package init(text: String, hint: String?) {
        self.text = text
        self.hint = hint
    }

    /// Reads `addInstanceRule`'s fields.
    package init(_ fields: some CommandFields) throws(TimelineError) {
        text = try fields.string("text")
        hint = try fields.optionalString("hint")
    }

    /// Writes `addInstanceRule`'s fields.
    package func encode(to fields: inout CommandJSON) {
        fields.set("text", text)
        fields.set("hint", hint)
    }

    /// Decides `addInstanceRule` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.addInstanceRule(text, hint: hint, actor: actor)
    }
}

/// `removeInstanceRule`: takes a server rule away (operators only).
package struct RemoveInstanceRuleCommand: OneFieldCommand {
    /// The command's public name, `removeInstanceRule`, and its one field, `rule`.
    package static let name = "removeInstanceRule", field = "rule"
    /// The `rule` field, raw user input.
    package let value: String
    /// A `removeInstanceRule` command naming `rule` `value`.
    package init(value: String) { self.value = value }
    /// Decides `removeInstanceRule` for `actor`.
    package func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision {
        try decider.removeInstanceRule(value, actor: actor)
    }
}

extension Command {
    /// Sets one of the instance's texts (operators only): `field` is `title`, `description`,
    /// `extendedDescription`, `privacyPolicy`, `termsOfService` or `contactEmail`; "" takes it away.
    public static func setInstanceText(field: String, text: String) -> Command {
        Command(SetInstanceTextCommand(field: field, text: text))
    }
    /// Adds a server rule (operators only); answers its id.
    public static func addInstanceRule(text: String, hint: String? = nil) -> Command {
        Command(AddInstanceRuleCommand(text: text, hint: hint))
    }
    /// Takes a server rule away (operators only).
    public static func removeInstanceRule(rule: String) -> Command { Command(RemoveInstanceRuleCommand(value: rule)) }
}

// MARK: - JSON Schemas

extension InstanceTextSet {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The operator set one of the instance's texts (the envelope's actor is \"operator\"); an empty text takes it "
        + "away."
    /// What the members are.
    public static let memberDescriptions: [String: String] = [
        "field": "Which text.", "text": "The text, plain (\"\" takes it away)."
    ]
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = ["text": JSONSchema.string.with("maxLength", 50_000)]
}

extension InstanceRuleAdded {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The operator added a server rule (the envelope's actor is \"operator\")."
    /// The members narrower than their Swift types.
    public static let memberSchemas: [String: JSONSchema] = [
        "text": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxRuleText)),
        "hint": JSONSchema.string.with("maxLength", .integer(Validation.maxRuleHint))
    ]
}

extension InstanceRuleRemoved {
    /// What the payload records (the schema's description).
    public static let schemaDescription: String? =
        "The operator took a server rule away (the envelope's actor is \"operator\")."
}

extension SetInstanceTextCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline instance set`, or the library as the operator): a user or session is refused "
        + "with forbidden. Sets one of the instance's texts (InstanceTextSet); answers {changed}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "field": JSONSchema.string.with("enum", .array(InstanceTextField.allCases.map { .string($0.rawValue) })),
        "text": JSONSchema.string.with("maxLength", 50_000)
    ]
}

extension AddInstanceRuleCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline instance rules add`): adds a server rule (InstanceRuleAdded); answers {id}."
    /// The fields narrower than what their accessors read.
    package static let memberSchemas: [String: JSONSchema] = [
        "text": JSONSchema.string.with("minLength", 1).with("maxLength", .integer(Validation.maxRuleText)),
        "hint": JSONSchema.string.with("maxLength", .integer(Validation.maxRuleHint))
    ]
}

extension RemoveInstanceRuleCommand {
    /// What the command does (the schema's description).
    package static let schemaDescription: String? =
        "Operators only (`timeline instance rules remove`): takes a server rule away (InstanceRuleRemoved)."
}
