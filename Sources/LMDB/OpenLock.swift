import Foundation

/// An advisory lock (`flock`) on a file beside an environment, e.g. `open.lock`: every process
/// that has the environment open holds it shared, and replacing the environment's file
/// (compaction) needs it exclusively, so nobody can be mapping the old file. Released when the
/// process dies.
final class OpenLock {
    private let fd: Int32
    private var released = false

    init(path: String) throws(LMDBError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, fileMode)
        guard fd >= 0 else {
            throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "open lock file \(path)")
        }
    }

    deinit { release() }

    /// Gives the lock up (closing the file).
    func release() {
        guard !released else { return }
        released = true
        close(fd)
    }

    /// Waits for any exclusive holder (a compaction) to finish, then holds the lock shared.
    func lockShared() throws(LMDBError) {
        while flock(fd, LOCK_SH) != 0 {
            guard errno == EINTR else {
                throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "lock shared")
            }
        }
    }

    /// Waits until no other process holds the lock, then holds it exclusively.
    func lockExclusive() throws(LMDBError) {
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw LMDBError(code: LMDBError.Code(rawValue: errno), operation: "lock exclusive")
            }
        }
    }

    /// Takes the lock exclusively if no other process holds it; returns whether it did.
    func tryLockExclusive() -> Bool { flock(fd, LOCK_EX | LOCK_NB) == 0 }
}
