import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// A Mastodon request's parameters, wherever a client put them: the query, then the body —
/// form-urlencoded (what Mastodon.py and most apps send), JSON, or the text parts of a
/// multipart upload (whose files are in `files`). `name[]` (and JSON arrays) are lists.
struct MastodonParams {
    private var values: [String: [String]] = [:]
    /// The uploaded files of a multipart body, by part name.
    private(set) var files: [String: FormPart] = [:]

    init(_ http: HTTPRequest) throws(TimelineError) {
        for (name, value) in http.query { add(name, value) }
        let type = http.header("Content-Type")?.lowercased() ?? ""
        if !http.formParts.isEmpty {
            for part in http.formParts {
                if part.filename != nil || part.name == "file" {
                    files[part.name] = part
                    continue
                }
                guard let text = String(validating: part.data, as: UTF8.self) else {
                    throw TimelineError.invalid(part.name, "\(part.name) is not text")
                }
                add(part.name, text)
            }
        } else if type.hasPrefix("application/json"), !http.body.isEmpty {
            guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(http.body)) else {
                throw TimelineError.invalid("body", "the body is not a JSON object")
            }
            for (name, value) in members { addJSON(name, value) }
        } else if !http.body.isEmpty {
            guard let text = String(validating: http.body, as: UTF8.self) else {
                throw TimelineError.invalid("body", "the body is not text")
            }
            for pair in text.split(separator: "&") where !pair.isEmpty {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decoded(_ raw: Substring) -> String {
                    raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(raw)
                }
                add(decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
            }
        }
    }

    /// A JSON value under `name`: a list is `name[]` (a list of objects `name[][field]`), an
    /// object `name[field]` (nested objects likewise), as their form twins read.
    private mutating func addJSON(_ name: String, _ value: JSONValue) {
        switch value {
        case .array(let list):
            for (position, item) in list.enumerated() {
                if case .object(let object) = item {
                    // Each object of the list is one (`objects(_:)`), whatever fields it has.
                    jsonObjectIndex = String(position)
                    defer { jsonObjectIndex = nil }
                    for (field, inner) in object { addJSON("\(name)[][\(field)]", inner) }
                } else {
                    addJSON(name + "[]", item)
                }
            }
        case .object(let object):
            for (field, inner) in object { addJSON("\(name)[\(field)]", inner) }
        case .bool(let flag): add(name, flag ? "true" : "false")
        case .null: break
        case .number(let number): add(name, number)
        case .string(let text): add(name, text)
        }
    }

    private mutating func add(_ name: String, _ value: String) {
        addObjectField(name, value)
        let key = name.hasSuffix("[]") ? String(name.dropLast(2)) : name
        values[key, default: []].append(value)
    }

    /// Lists of objects (`name[][field]`, `name[0][field]`, a JSON array of objects), by name.
    private var objectLists: [String: [(index: String?, fields: [String: String])]] = [:]
    /// The position of the JSON list's object being read (`addJSON`).
    private var jsonObjectIndex: String?

    /// Records `value` when `name` is a field of an object in a list: `list[N][field]` joins
    /// the object numbered N; `list[][field]` starts a new object when the last one has it.
    private mutating func addObjectField(_ name: String, _ value: String) {
        guard name.hasSuffix("]"), let open = name.firstIndex(of: "["),
            let close = name[open...].firstIndex(of: "]"), name[name.index(after: close)...].hasPrefix("[")
        else { return }
        let list = String(name[..<open])
        let written = String(name[name.index(after: open)..<close])
        let index = written.isEmpty ? (jsonObjectIndex ?? "") : written
        let field = String(name[name.index(close, offsetBy: 2)..<name.index(before: name.endIndex)])
        guard !field.isEmpty, !field.contains("["), index.allSatisfy(\.isNumber) else { return }
        var objects = objectLists[list] ?? []
        if !index.isEmpty, let at = objects.firstIndex(where: { $0.index == index }) {
            objects[at].fields[field] = value
        } else if index.isEmpty, let last = objects.indices.last, objects[last].index == nil,
            objects[last].fields[field] == nil
        {
            objects[last].fields[field] = value
        } else {
            objects.append((index.isEmpty ? nil : index, [field: value]))
        }
        objectLists[list] = objects
    }

    /// The objects of the list `name` (`name[][field]=…`, `name[0][field]=…` or a JSON array
    /// of objects), in order.
    func objects(_ name: String) -> [[String: String]] { (objectLists[name] ?? []).map(\.fields) }

    /// The value of `name`, if given.
    func string(_ name: String) -> String? { values[name]?.first }

    /// Every value of `name` (`name[]=a&name[]=b`, a JSON array, or one value).
    func list(_ name: String) -> [String] { values[name] ?? [] }

    /// `offset`: 0 when absent, else a whole number below a million (422 otherwise).
    func offset() throws(TimelineError) -> Int {
        guard let raw = string("offset") else { return 0 }
        guard raw.utf8.count <= 6, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let offset = Int(raw) else {
            throw TimelineError.invalid("offset", "offset must be a whole number")
        }
        return offset
    }

    /// `limit`: `defaultLimit` when absent, else a positive number (422 otherwise), at most `maxLimit`.
    func limit(default defaultLimit: Int, max maxLimit: Int) throws(TimelineError) -> Int {
        try Self.limit(string("limit"), default: defaultLimit, max: maxLimit)
    }

    /// A `limit` parameter's text read as `limit(default:max:)` reads it.
    static func limit(_ raw: String?, default defaultLimit: Int, max maxLimit: Int) throws(TimelineError) -> Int {
        guard let raw else { return defaultLimit }
        guard let number = Int(raw), number > 0 else {
            throw TimelineError.invalid("limit", "limit must be a positive number")
        }
        return min(number, maxLimit)
    }

    /// `true`/`1` or `false`/`0`; nil when absent; anything else is 422.
    func bool(_ name: String) throws(TimelineError) -> Bool? {
        guard let raw = string(name) else { return nil }
        switch raw.lowercased() {
        case "true", "1", "on": return true
        case "false", "0", "off", "": return false
        default: throw TimelineError.invalid(name, "\(name) must be true or false")
        }
    }
}
