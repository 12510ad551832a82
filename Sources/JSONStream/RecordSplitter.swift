/// A JSON value held in memory (one record of a streamed document).
public indirect enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written (no precision is lost).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Keys in document order; a repeated key keeps its last value on lookup.
    case object([(key: String, value: JSONValue)])

    /// Equality member by member, in order (a tuple array is not `Equatable` by itself).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The member `key` of an object (the last one if repeated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The string, if this is one.
    public var string: String? { if case .string(let s) = self { s } else { nil } }

    /// The members of an object, or nothing.
    public var members: [(key: String, value: JSONValue)] { if case .object(let m) = self { m } else { [] } }
}

/// Cuts a token stream into records: every value found `depth` object levels down (for
/// `{"users": {"u1": {...}}}` and depth 2, the value of `u1` with path `["users", "u1"]`) is
/// built in memory and handed over, one at a time; nothing else is kept.
public final class RecordSplitter {
    private let depth: Int
    private let record: ([String], JSONValue) throws -> Void
    private var path: [String] = []
    /// Open containers below the record level: (pending key, partial value).
    private var building: [(key: String?, value: JSONValue)] = []
    private var level = 0

    /// A splitter handing `record` each value `depth` object levels down, with its path of keys.
    public init(depth: Int, record: @escaping ([String], JSONValue) throws -> Void) {
        self.depth = depth
        self.record = record
    }

    /// Takes the next token (a `JSONStreamParser` handler); calls `record` when one is complete.
    public func consume(_ event: JSONEvent) throws {
        if building.isEmpty && level < depth {
            // Above record level: only object keys matter (they form the path).
            switch event {
            case .startObject, .startArray:
                level += 1
            case .endObject, .endArray:
                level -= 1
                path = Array(path.prefix(max(level - 1, 0)))
            case .key(let key):
                path = Array(path.prefix(level - 1)) + [key]
            default:
                break  // a scalar above record level has no place in the shape
            }
            return
        }
        try build(event)
    }

    private var pendingRecordKey: String?

    private func build(_ event: JSONEvent) throws {
        switch event {
        case .startObject: building.append((pendingKey(), .object([])))
        case .startArray: building.append((pendingKey(), .array([])))
        case .key(let key):
            if building.isEmpty { pendingRecordKey = key } else { nextKey = key }
        case .endObject, .endArray:
            if building.isEmpty {
                level -= 1
                path = Array(path.prefix(max(level - 1, 0)))
                return
            }
            let (key, value) = building.removeLast()
            try attach(value, key: key)
        case .null: try attach(.null, key: pendingKey())
        case .bool(let b): try attach(.bool(b), key: pendingKey())
        case .number(let n): try attach(.number(n), key: pendingKey())
        case .string(let s): try attach(.string(s), key: pendingKey())
        }
    }

    private var nextKey: String?

    private func pendingKey() -> String? {
        defer { nextKey = nil }
        return nextKey
    }

    /// Adds a finished value to its parent, or hands it over when it is a whole record.
    private func attach(_ value: JSONValue, key: String?) throws {
        guard var parent = building.popLast() else {
            try record(Array(path.prefix(depth - 1)) + [pendingRecordKey ?? ""], value)
            return
        }
        switch parent.value {
        case .object(var members):
            members.append((key ?? "", value))
            parent.value = .object(members)
        case .array(var items):
            items.append(value)
            parent.value = .array(items)
        default:
            break
        }
        building.append(parent)
    }
}
