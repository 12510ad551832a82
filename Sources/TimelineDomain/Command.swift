import Foundation
import JSONModel

/// What a command type says about itself, once, in its feature's file (`Features/`): its public
/// name, its fields (read from a JSON line or an HTTP request, and written back), whether it
/// needs an acting user, and its decision. The registry (`Command.definitions`) lists the types;
/// nothing else switches over commands.
package protocol CommandDefinition: Sendable, Equatable, SchemaDocumented {
    /// The public name: `timeline exec`'s `command`, the schema's file name
    /// (`schemas/commands/<name>.schema.json`), the HTTP operation's id.
    static var name: String { get }
    /// Whether the command needs an acting user (most do).
    static var needsActor: Bool { get }
    /// The title of the command's schema (`schemas/commands/<name>.schema.json`).
    static var schemaTitle: String { get }
    /// Whether the command's schema lists the caller's fields, `as` and `session`.
    static var schemaTakesCaller: Bool { get }

    /// Reads the command's fields (and so accepts only those: the reader refuses the rest).
    init(_ fields: some CommandFields) throws(TimelineError)
    /// Writes the command's fields, the inverse of `init(_:)`.
    func encode(to fields: inout CommandJSON)
    /// Decides the command for `actor` (no I/O: everything comes from `decider`'s state and context).
    func decide<State: DecisionState>(_ decider: Decider<State>, actor: Actor) throws -> Decision
    /// Checks everything deciding will check before the slow work of preparing the command
    /// (argon2id) is spent on it; most commands have nothing to check early.
    func precheck<State: DecisionState>(_ decider: Decider<State>) throws
}

extension CommandDefinition {
    /// Most commands need an acting user.
    package static var needsActor: Bool { true }
    /// Most commands have nothing to check early.
    package func precheck<State: DecisionState>(_ decider: Decider<State>) throws {}

    /// Whether `other` is this same command with the same fields.
    fileprivate func isEqual(to other: any CommandDefinition) -> Bool { (other as? Self) == self }
}

/// A command of docs/spec.md, as a plain value. Field values are raw user input; deciding
/// validates and normalises them. Each command is made by its static function (`.follow(user:)`,
/// `.addPost(image:caption:location:)`, …), in its feature's file.
public struct Command: Sendable, Equatable, CustomStringConvertible {
    /// The command, as its feature defines it.
    package let definition: any CommandDefinition

    /// A command of this definition.
    package init(_ definition: some CommandDefinition) { self.definition = definition }

    /// The public command name (`timeline exec`'s `command`, the schema's file name).
    public var name: String { type(of: definition).name }

    /// Whether the command needs an acting user (all but `createUser`, `signIn`, `signOut`, `resetPassword`).
    public var needsActor: Bool { type(of: definition).needsActor }

    /// The canonical JSON form of the command (a `timeline exec` line without `id`/`as`),
    /// valid against `schemas/commands/<name>.schema.json`.
    public func jsonObject() -> JSONValue {
        var fields = CommandJSON()
        definition.encode(to: &fields)
        return JSONValue.object(fields.members).setting("command", .string(name))
    }

    /// The command's public name.
    public var description: String { name }

    /// Whether the two are the same command with the same fields.
    public static func == (a: Command, b: Command) -> Bool { a.definition.isEqual(to: b.definition) }

    /// The public names of every command, in the registry's order.
    public static var names: [String] { definitions.map { $0.name } }

    /// Decodes the command `name` from `fields`; an unknown name is `invalid_argument` (`command`).
    package static func decode(named name: String, _ fields: some CommandFields) throws(TimelineError) -> Command {
        guard let type = byName[name] else {
            throw TimelineError.invalid("command", "unknown command \(name.prefix(64))")
        }
        return try decode(type, fields)
    }

    private static func decode<Definition: CommandDefinition>(_ type: Definition.Type, _ fields: some CommandFields)
        throws(TimelineError) -> Command
    {
        Command(try Definition(fields))
    }

    private static let byName: [String: any CommandDefinition.Type] = Dictionary(
        uniqueKeysWithValues: definitions.map { ($0.name, $0) })
}

/// A command of one string field (a user's or a post's id, a token): its reading and writing.
package protocol OneFieldCommand: CommandDefinition {
    /// The field's name (`user`, `post`, …).
    static var field: String { get }
    /// The field's value, raw user input.
    var value: String { get }
    /// The command with `value` in its field.
    init(value: String)
}

extension OneFieldCommand {
    /// The one field is an identifier, unless the command says otherwise.
    package static var memberSchemas: [String: JSONSchema] { [field: .identifier] }
    /// Reads the one field.
    package init(_ fields: some CommandFields) throws(TimelineError) { self.init(value: try fields.string(Self.field)) }
    /// Writes the one field.
    package func encode(to fields: inout CommandJSON) { fields.set(Self.field, value) }
}

/// Reads the fields of a command (`timeline exec`'s JSON line, an HTTP request); a field the
/// decoder does not ask for is refused afterwards by the reader.
package protocol CommandFields {
    /// Whether the field is present (even as `null`).
    func has(_ field: String) -> Bool
    /// A required string.
    func string(_ field: String) throws(TimelineError) -> String
    /// A string, or `nil` when absent.
    func optionalString(_ field: String) throws(TimelineError) -> String?
    /// A boolean, or `nil` when absent.
    func optionalBool(_ field: String) throws(TimelineError) -> Bool?
    /// A whole number, or `nil` when absent or null.
    func optionalInteger(_ field: String) throws(TimelineError) -> Int?
    /// A place (`{latitude, longitude, name?}`), or `nil` when absent.
    func optionalPlace(_ field: String) throws(TimelineError) -> Place?
    /// A list of strings, or `nil` when absent or null (comma-separated text from a URL or a form).
    func optionalList(_ field: String) throws(TimelineError) -> [String]?
    /// A JSON object of strings or nulls (`{"id": "text", "other": null}`), or `nil` when absent.
    func optionalTexts(_ field: String) throws(TimelineError) -> [String: String?]?
    /// A list of JSON objects (at most 100), or `nil` when absent or null.
    func optionalObjects(_ field: String) throws(TimelineError) -> [JSONValue]?
}

/// The JSON fields a command writes (`Command.jsonObject`): absent optionals are left out.
package struct CommandJSON {
    /// The fields written so far, in the order they were set.
    package private(set) var members: [(key: String, value: JSONValue)] = []

    /// Sets `field` to `value`, unless `value` is nil.
    package mutating func set(_ field: String, _ value: String?) { if let value { set(field, json: .string(value)) } }
    /// Sets `field` to `value`, unless `value` is nil.
    package mutating func set(_ field: String, _ value: Bool?) { if let value { set(field, json: .bool(value)) } }
    /// Sets `field` to an array of strings.
    package mutating func set(_ field: String, strings: [String]) {
        set(field, json: .array(strings.map(JSONValue.string)))
    }
    /// Sets `field` to any JSON value (`.null` for null), replacing it if already set.
    package mutating func set(_ field: String, json value: JSONValue) {
        if let index = members.firstIndex(where: { $0.key == field }) {
            members[index].value = value
        } else {
            members.append((field, value))
        }
    }
}

// MARK: - JSON Schemas of the commands

extension CommandDefinition {
    /// The schema's title: the command's name, as a `timeline exec` line.
    package static var schemaTitle: String { "\(name) command (a timeline exec line)" }
    /// Whether the schema lists the caller's fields, `as` and `session` (every command but those
    /// whose caller proves itself by the command's own fields: an app's credentials, the operator's tools).
    package static var schemaTakesCaller: Bool { true }

    /// The schema of the command's `timeline exec` line (`schemas/commands/<name>.schema.json`
    /// without `$schema`, `$id` and `title`): `command`, `id` and the caller's fields, then the
    /// fields `init(_:)` reads, each with the type its accessor reads (a field it asks `has`
    /// about first is not required), and what the definition's `SchemaDocumented` members add.
    package static func jsonSchema() throws -> JSONSchema {
        let recorder = CommandFieldRecorder()
        do {
            _ = try Self(recorder)
        } catch {
            throw SchemaRecordingError(description: "\(name) did not decode from placeholders: \(error)")
        }
        var properties: [(String, JSONSchema)] = [
            ("command", .constant(.string(name))),
            ("id", JSONSchema.any.described("Optional request id, echoed back."))
        ]
        if schemaTakesCaller { properties += [("as", .identifier), ("session", .string)] }
        for (field, schema) in recorder.properties {
            if let index = properties.firstIndex(where: { $0.0 == field }) {
                properties[index].1 = schema
            } else {
                properties.append((field, schema))
            }
        }
        return documented(.object(properties, required: ["command"] + recorder.required))
    }
}

/// The fields a command's `init(_:)` reads, recorded with the accessor that read them: a
/// `CommandFields` answering every field with a placeholder (`""`, or absent).
final class CommandFieldRecorder: CommandFields {
    /// Each field read, with its schema, in the order read.
    private(set) var properties: [(String, JSONSchema)] = []
    /// The fields read as required.
    private(set) var required: [String] = []
    /// The fields `has` was asked about: present or not, the command does without them.
    private var probed: Set<String> = []

    private func record(_ field: String, _ schema: JSONSchema, required isRequired: Bool) {
        guard !properties.contains(where: { $0.0 == field }) else { return }
        properties.append((field, schema))
        if isRequired && !probed.contains(field) { required.append(field) }
    }

    func has(_ field: String) -> Bool {
        probed.insert(field)
        return true
    }
    func string(_ field: String) -> String {
        record(field, .string, required: true)
        return ""
    }
    func optionalString(_ field: String) -> String? {
        record(field, .string, required: false)
        return nil
    }
    func optionalBool(_ field: String) -> Bool? {
        record(field, .boolean, required: false)
        return nil
    }
    func optionalInteger(_ field: String) -> Int? {
        record(field, .integer, required: false)
        return nil
    }
    func optionalPlace(_ field: String) -> Place? {
        record(field, .place, required: false)
        return nil
    }
    func optionalList(_ field: String) -> [String]? {
        record(field, .array(of: .string), required: false)
        return nil
    }
    func optionalTexts(_ field: String) -> [String: String?]? {
        record(field, .map(of: JSONSchema.string.nullable), required: false)
        return nil
    }
    func optionalObjects(_ field: String) -> [JSONValue]? {
        record(field, .array(of: JSONSchema(["type": "object"])), required: false)
        return nil
    }
}
