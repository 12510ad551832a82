import LMDB

/// When the derived data (the read models and the log's indexes, in the derived environment:
/// see `Environment`) is worth rewriting without its free pages: once at least a third of it,
/// and at least `minimumFreeBytes`, is free. That is what a rebuild leaves when it drops a whole
/// generation of read models, and LMDB would otherwise carry the long free list through every
/// commit; the few free pages of ordinary writes are reused and not worth a copy of the file.
/// The service applies it when it opens a database alone and in `compactReadModels(path:)`.
@usableFromInline
enum ReadModelCompaction {
    /// The least free space worth a compaction (64 MiB).
    @usableFromInline
    static let minimumFreeBytes = 64 << 20

    /// The rule, for `Environment`.
    static func rule(minimumFreeBytes: Int = minimumFreeBytes) -> Environment.CompactionRule {
        { used, free in free >= minimumFreeBytes && free * 3 >= used }
    }
}
