import Foundation
import JSONModel
import TimelineDomain

/// One parsed request line of the JSON-lines contract, with typed field access that turns
/// wrong types into `invalid_argument` naming the field.
///
/// Every accessor records the field it read, so once a request is decoded `refuseUnreadFields()`
/// names any field that no decoder asked for: the decoders themselves are the one list of the
/// fields each command and query takes.
package final class JSONInput: CommandFields {
    static let maxLineBytes = 16 << 20
    static let maxDepth = 32

    /// The request's fields: a JSON object.
    private let object: JSONValue
    private var read: Set<String> = []
    /// Fields that came as text from a URL (path or query): their numbers are digits.
    private let textFields: Set<String>

    /// Fields already parsed: an HTTP request's JSON body merged with its path and query
    /// parameters (`textFields`, whose values are strings).
    package init(object: JSONValue, textFields: Set<String> = []) {
        self.object = object
        self.textFields = textFields
    }

    /// Parses a line that must be one JSON object in valid UTF-8, refusing oversized or too deeply
    /// nested input before handing it to the parser.
    package init(bytes: [UInt8]) throws(TimelineError) {
        guard bytes.count <= Self.maxLineBytes else {
            throw TimelineError(.payloadTooLarge, "a request line may be at most \(Self.maxLineBytes) bytes")
        }
        // JSON text is UTF-8; a malformed sequence is refused, never repaired into U+FFFD.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw TimelineError.invalid("request", "the line is not valid UTF-8")
        }
        let shape = Self.shape(of: bytes)
        guard shape.depth <= Self.maxDepth else {
            throw TimelineError.invalid("request", "JSON is nested more than \(Self.maxDepth) levels deep")
        }
        // Foundation's parser takes `{"a": 1,}`; JSON does not.
        guard !shape.trailingComma, let object = Self.parse(bytes), case .object = object else {
            throw TimelineError.invalid("request", "the line is not a JSON object")
        }
        // The parser keeps one of two equal keys silently; an ambiguous request
        // (`{"as": "alice", "as": "bob"}`) is refused instead.
        if let duplicate = Self.duplicateTopLevelKey(in: bytes) {
            throw TimelineError.invalid(duplicate, "the key \(duplicate.prefix(64)) appears more than once")
        }
        self.object = object
        textFields = []
    }

    /// Parses a request body that must be one JSON object (as `init(bytes:)`, with the
    /// errors naming the body).
    package static func body(_ bytes: [UInt8]) throws(TimelineError) -> JSONValue {
        do {
            return try JSONInput(bytes: bytes).object
        } catch {
            let message = error.message.replacingOccurrences(of: "the line", with: "the body")
            throw TimelineError(error.code, message, field: error.field == "request" ? "body" : error.field)
        }
    }

    /// `bytes` as one JSON value (numbers as written or as their shortest exact spelling),
    /// or nil when they are not JSON.
    static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The first key that appears twice at the top level of a well-formed JSON object (keys are
    /// compared after unescaping, so `"as"` and `"\u0061s"` are the same key).
    static func duplicateTopLevelKey(in bytes: [UInt8]) -> String? {
        var seen = Set<String>()
        var depth = 0
        var index = 0
        var expectKey = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x7B, 0x5B:
                depth += 1
                expectKey = depth == 1 && byte == 0x7B
            case 0x7D, 0x5D:
                depth -= 1
            case 0x2C:
                expectKey = depth == 1
            case 0x22:
                let start = index
                index += 1
                while index < bytes.count && bytes[index] != 0x22 {
                    if bytes[index] == 0x5C { index += 1 }
                    index += 1
                }
                if expectKey, depth == 1, let key = parse(bytes[start...min(index, bytes.count - 1)])?.string {
                    if !seen.insert(key).inserted { return key }
                }
                expectKey = false
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The deepest nesting of arrays and objects, and whether a comma closes one (`[1,]`),
    /// ignoring what is inside strings.
    static func shape(of bytes: [UInt8]) -> (depth: Int, trailingComma: Bool) {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        var lastSignificant: UInt8 = 0
        var trailingComma = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                deepest = max(deepest, depth)
            case 0x5D, 0x7D:
                depth -= 1
                if lastSignificant == 0x2C { trailingComma = true }
            default: break
            }
            if byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { lastSignificant = byte }
        }
        return (deepest, trailingComma)
    }

    /// The `id` of a line refused as a whole (a key given twice, say) when the line is still
    /// a readable JSON object, so the answer can be matched to its request.
    package static func id(ofRefused bytes: [UInt8]) -> JSONValue? {
        guard bytes.count <= maxLineBytes, String(validating: bytes, as: UTF8.self) != nil,
            shape(of: bytes).depth <= maxDepth
        else { return nil }
        return parse(bytes)?["id"]
    }

    /// The raw value of `field` (recorded as read).
    private func value(_ field: String) -> JSONValue? {
        read.insert(field)
        return object[field]
    }

    /// The value of `field` unless it is absent or `null` (recorded as read).
    private func present(_ field: String) -> JSONValue? {
        guard let value = value(field), value != .null else { return nil }
        return value
    }

    /// Whether the line has `field` at all (it is not recorded as read).
    package func has(_ field: String) -> Bool { object[field] != nil }

    /// The line's `id` (any JSON value), echoed in its answer.
    package var id: JSONValue? { value("id") }

    /// Refuses the request when it has a field that nothing decoding it read, naming that
    /// field (the first in key order when there are several).
    package func refuseUnreadFields() throws(TimelineError) {
        guard let unknown = object.members.map(\.key).filter({ !read.contains($0) }).min() else { return }
        let name = String(unknown.prefix(64))
        throw .invalid(name, "unknown field \(name.debugDescription)")
    }

    /// A required string field.
    package func string(_ field: String) throws(TimelineError) -> String {
        guard let value = try optionalString(field) else { throw .invalid(field, "\(field) is required") }
        return value
    }

    /// An optional string field (absent or null is `nil`).
    package func optionalString(_ field: String) throws(TimelineError) -> String? {
        guard let value = present(field) else { return nil }
        guard case .string(let text) = value else { throw .invalid(field, "\(field) must be a string") }
        return text
    }

    /// An optional boolean: absent is `nil`; `null` is refused like any other non-boolean (a
    /// setting is on or off, never cleared).
    package func optionalBool(_ field: String) throws(TimelineError) -> Bool? {
        guard let value = value(field) else { return nil }
        if textFields.contains(field) {
            // From a URL or a form: the words, nothing else.
            switch value.string {
            case "true": return true
            case "false": return false
            default: throw .invalid(field, "\(field) must be true or false")
            }
        }
        guard case .bool(let bool) = value else { throw .invalid(field, "\(field) must be true or false") }
        return bool
    }

    /// An optional whole number (absent or null is `nil`): a JSON integer, or digits when it
    /// came from a URL or a form.
    package func optionalInteger(_ field: String) throws(TimelineError) -> Int? {
        guard let value = present(field) else { return nil }
        if textFields.contains(field) {
            guard let text = value.string, (1...18).contains(text.utf8.count),
                text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(text)
            else { throw .invalid(field, "\(field) must be a whole number") }
            return number
        }
        guard let whole = Self.integer(value) else { throw .invalid(field, "\(field) must be a whole number") }
        return whole
    }

    /// An optional list of strings (absent or null is `nil`): a JSON array of strings, or
    /// comma-separated text when it came from a URL (`types=like,comment`).
    package func optionalList(_ field: String) throws(TimelineError) -> [String]? {
        guard let value = present(field) else { return nil }
        if textFields.contains(field), case .string(let text) = value {
            return text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        return try strings(field)
    }

    /// An optional JSON object of strings or nulls (`{"id": "text", "other": null}`), at most
    /// 100 entries; absent or null is `nil`.
    package func optionalTexts(_ field: String) throws(TimelineError) -> [String: String?]? {
        guard let value = present(field) else { return nil }
        guard case .object(let members) = value, !textFields.contains(field), members.count <= 100 else {
            throw .invalid(field, "\(field) must be an object of at most 100 texts or nulls")
        }
        var out: [String: String?] = [:]
        for (key, item) in members {
            switch item {
            case .null: out[key] = .some(nil)
            case .string(let text): out[key] = .some(text)
            default: throw .invalid(field, "\(field) must be an object of texts or nulls")
            }
        }
        return out
    }

    /// An optional list of at most 100 JSON objects; absent or null is `nil`.
    package func optionalObjects(_ field: String) throws(TimelineError) -> [JSONValue]? {
        guard let value = present(field) else { return nil }
        guard case .array(let items) = value, !textFields.contains(field), items.count <= 100,
            items.allSatisfy({ if case .object = $0 { true } else { false } })
        else { throw .invalid(field, "\(field) must be a list of at most 100 objects") }
        return items
    }

    /// A required array of strings.
    package func strings(_ field: String) throws(TimelineError) -> [String] {
        guard let value = present(field) else { throw .invalid(field, "\(field) is required") }
        guard case .array(let items) = value, !textFields.contains(field) else {
            throw .invalid(field, "\(field) must be an array of strings")
        }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .string(let text) = item else { throw .invalid(field, "\(field) must be an array of strings") }
            out.append(text)
        }
        return out
    }

    /// The string `field` as an identifier; a malformed one is `invalid_argument` naming `field`.
    package func identifier<ID: Identifier>(_ field: String) throws(TimelineError) -> ID {
        let raw = try string(field)
        guard let id = ID.parse(raw) else { throw .invalid(field, "\(field) is not a valid identifier") }
        return id
    }

    /// An optional number field (absent or null is `nil`): a JSON number, or decimal text when
    /// it came from a URL. Never a boolean, never NaN or infinite.
    package func optionalNumber(_ field: String) throws(TimelineError) -> Double? {
        guard let value = present(field) else { return nil }
        return try Self.number(value, field: field, text: textFields.contains(field))
    }

    /// A number as `optionalNumber` reads it.
    static func number(_ value: JSONValue, field: String, text: Bool) throws(TimelineError) -> Double {
        if text {
            // Plain decimal notation only: no "nan", "inf" or hexadecimal floats.
            guard let text = value.string, (1...32).contains(text.utf8.count),
                text.utf8.allSatisfy({
                    (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B || $0 == 0x65 || $0 == 0x45
                }),
                let number = Double(text), number.isFinite
            else { throw .invalid(field, "\(field) must be a number") }
            return number
        }
        guard case .number(let spelled) = value, let number = Double(spelled), number.isFinite else {
            throw .invalid(field, "\(field) must be a number")
        }
        return number
    }

    /// An optional place field: an object `{latitude, longitude, name?}` (absent or null is
    /// `nil`; any other key is refused, naming it as `field.key`). Ranges are the domain's to check.
    package func optionalPlace(_ field: String) throws(TimelineError) -> Place? {
        guard let object = present(field) else { return nil }
        guard case .object(let members) = object else {
            throw .invalid(field, "\(field) must be an object {latitude, longitude, name?}")
        }
        if let unknown = members.map(\.key).filter({ !["latitude", "longitude", "name"].contains($0) }).min() {
            throw .invalid(
                "\(field).\(unknown.prefix(64))", "unknown field \(unknown.prefix(64).debugDescription) in \(field)")
        }
        func coordinate(_ key: String) throws(TimelineError) -> Double {
            guard let raw = object[key], raw != .null else {
                throw .invalid("\(field).\(key)", "\(field).\(key) is required")
            }
            return try Self.number(raw, field: "\(field).\(key)", text: false)
        }
        var name: String?
        if let raw = object["name"], raw != .null {
            guard case .string(let text) = raw else {
                throw .invalid("\(field).name", "\(field).name must be a string")
            }
            name = text
        }
        return Place(latitude: try coordinate("latitude"), longitude: try coordinate("longitude"), name: name)
    }

    /// `limit` and `before`.
    package func page() throws(TimelineError) -> PageRequest {
        var page = PageRequest()
        if let value = present("limit") {
            if textFields.contains("limit") {
                guard let text = value.string, text.utf8.count <= 9,
                    text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let limit = Int(text)
                else { throw .invalid("limit", "limit must be a whole number from 1 to \(PageRequest.maxLimit)") }
                page.limit = limit
            } else {
                guard let limit = Self.integer(value) else {
                    throw .invalid("limit", "limit must be a whole number from 1 to \(PageRequest.maxLimit)")
                }
                page.limit = limit
            }
        }
        page.before = try optionalString("before")
        return page
    }

    /// A JSON number that is a whole number (`3`, `3.0`, `3e2`), exactly; never a boolean.
    static func integer(_ value: JSONValue) -> Int? {
        guard case .number(let spelled) = value else { return nil }
        if let whole = Int(spelled) { return whole }
        return Double(spelled).flatMap { Int(exactly: $0) }
    }
}
