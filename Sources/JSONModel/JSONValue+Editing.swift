extension JSONValue {
    /// A copy of this object without the member `key` (every one of that name); other values
    /// are returned unchanged.
    public func removing(_ key: String) -> JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.key != key })
    }
}
