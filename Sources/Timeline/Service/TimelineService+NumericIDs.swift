import TimelineDomain

/// Mastodon's ids (`NumericID`) and the native ids they stand for.
extension TimelineService {
    /// The numeric ids of those of `objects` the log made, read in one snapshot.
    public func numericIDs(of objects: some Sequence<NumberedObject>) throws(TimelineError)
        -> [NumberedObject: NumericID]
    {
        try read { view in
            var found: [NumberedObject: NumericID] = [:]
            for object in objects {
                if let id = try view.models.numericIDs.number(of: object, view.txn) { found[object] = id }
            }
            return found
        }
    }

    /// The numeric id of `object`; `not_found` when the log never made it.
    public func numericID(of object: NumberedObject) throws(TimelineError) -> NumericID {
        guard let id = try numericIDs(of: [object])[object] else {
            throw TimelineError(.notFound, "no such object")
        }
        return id
    }

    /// The object of `space` numbered `id`, if any (whether the reader may see it is the
    /// query's to judge, as with a native id).
    public func object(_ space: NumberedObject.Space, numbered id: NumericID) throws(TimelineError) -> NumberedObject? {
        try read { view in try view.models.numericIDs.object(space, numbered: id, view.txn) }
    }
}
