import Foundation

/// Lets many users (transactions) in at once, but the map size can only change, and the
/// environment only close, while none is inside.
final class TransactionGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var users = 0
    private var exclusive = false
    private var closed = false

    /// Enters as one of many users; fails once the environment is closed.
    func enter() throws(LMDBError) {
        condition.lock()
        defer { condition.unlock() }
        while exclusive { condition.wait() }
        guard !closed else { throw LMDBError(code: .badTransaction, operation: "use of a closed environment") }
        users += 1
    }

    func leave() {
        condition.lock()
        users -= 1
        if users == 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Leaves, runs `body` (which may need the gate exclusively), then enters again. `inside`
    /// says whether the caller is still a user afterwards: if entering again fails (the
    /// environment was closed meanwhile) it is `false` and the error is thrown, so the caller
    /// must not leave a second time.
    func outside(_ inside: inout Bool, _ body: () throws(LMDBError) -> Void) throws(LMDBError) {
        leave()
        inside = false
        let result = Result<Void, LMDBError> { () throws(LMDBError) in try body() }
        try enter()
        inside = true
        try result.get()
    }

    /// Users inside now (for tests).
    var userCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return users
    }

    /// Runs `body` once no user is inside, keeping new ones out meanwhile.
    func exclusively(_ body: () throws(LMDBError) -> Void) throws(LMDBError) {
        condition.lock()
        while exclusive { condition.wait() }
        exclusive = true
        while users > 0 { condition.wait() }
        defer {
            exclusive = false
            condition.broadcast()
            condition.unlock()
        }
        guard !closed else { throw LMDBError(code: .badTransaction, operation: "use of a closed environment") }
        try body()
    }

    /// Runs `body` (the closing) once no user is inside; then lets nobody in again.
    func close(_ body: () -> Void) {
        try? exclusively { () throws(LMDBError) in
            body()
            closed = true
        }
    }
}
