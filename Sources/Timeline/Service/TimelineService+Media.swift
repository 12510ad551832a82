extension TimelineService {
    /// Deletes every photo uploaded (`uploadMedia`) and not attached to a post within
    /// `MediaPolicy.unattachedLifetime`, a batch (`expireMedia`) at a time; whether any went.
    /// `timeline serve` runs it every ten minutes.
    @discardableResult
    public func expireUnattachedMedia() async throws(TimelineError) -> Bool {
        var any = false
        while case .changed(true) = try await execute(.expireMedia, as: .operator) { any = true }
        return any
    }
}
