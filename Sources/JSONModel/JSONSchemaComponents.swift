extension JSONSchema {
    /// Named schemas as an OpenAPI document's components: where one holds another's schema
    /// whole (a member, an array's items, a map's values), it refers to it (`$ref`, `prefix` +
    /// its name) instead; a nullable copy (`"type": ["object", "null"]`) becomes
    /// `{"anyOf": [$ref, {"type": "null"}]}`. `JSONSchema.of` inlines what a type holds, so
    /// this gives each shape its one definition in the document. The first of equal schemas
    /// is the one referred to; a schema never refers to itself.
    public static func components(
        _ named: [(name: String, schema: JSONSchema)], prefix: String = "#/components/schemas/"
    ) -> [(name: String, schema: JSONSchema)] {
        named.map { own in
            func reference(_ value: JSONValue) -> JSONValue? {
                if let match = named.first(where: { $0.name != own.name && $0.schema.json == value }) {
                    return ["$ref": .string(prefix + match.name)]
                }
                if case .array(let types)? = value["type"], types.count == 2, types.last == "null",
                    let match = named.first(where: {
                        $0.name != own.name && $0.schema.json == value.setting("type", types[0])
                    })
                {
                    return ["anyOf": [["$ref": .string(prefix + match.name)], JSONSchema.null.json]]
                }
                return nil
            }
            func walk(_ value: JSONValue) -> JSONValue {
                if let found = reference(value) { return found }
                switch value {
                case .array(let elements): return .array(elements.map(walk))
                case .object(let members): return .object(members.map { (key: $0.key, value: walk($0.value)) })
                default: return value
                }
            }
            let members = own.schema.json.members.map { (key: $0.key, value: walk($0.value)) }
            return (own.name, JSONSchema(.object(members)))
        }
    }
}
