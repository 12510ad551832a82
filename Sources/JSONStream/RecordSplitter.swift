import JSONModel

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
