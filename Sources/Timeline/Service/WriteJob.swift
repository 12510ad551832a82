import LMDB
import TimelineDomain

/// One queued command and how to deliver its result.
struct WriteJob: Sendable {
    let service: TimelineService
    let command: Command
    /// Who runs the command.
    let actor: Actor
    /// What the service worked out before queuing it (deciding reads it from its context).
    let prepared: Prepared
    let correlationId: String?
    let deliver: @Sendable (Result<CommandResult, TimelineError>) -> Void

    /// A command's result, the user it erased (if any) and the events it appended.
    typealias Outcome = (result: Result<CommandResult, TimelineError>, erased: UserID?, appended: [EventEnvelope])

    /// Runs a batch in one write transaction, then one commit (one fsync) for all; results are
    /// delivered only after the commit. A command that fails to decide has written nothing
    /// (deciding only reads), so it needs no rollback and the others go on; each later
    /// command decides against the state the earlier ones left.
    ///
    /// In a cluster see `runReplicated`: no network call is made inside the transaction.
    static func run(
        _ batch: [WriteJob], environment: Environment, log: EventLog, registry: ModelRegistry,
        replication: Replication?
    ) {
        do {
            // A rebuild that switched generations makes `models(in:)` nil: the batch (which
            // wrote nothing) runs again on the reopened handles, a bounded number of times.
            let outcomes = try registry.retrying { () throws -> [Outcome]? in
                if let replication {
                    return try runReplicated(
                        batch, environment: environment, log: log, registry: registry, replication: replication)
                }
                return try environment.write { txn in
                    guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
                    let applied = try log.head(txn).sequence
                    _ = try models.catchUp(log, head: applied, txn)
                    let outcomes = try decideAll(batch, txn, log: log, models: models, keys: log.keys)
                    // A batch that appended nothing writes nothing, so its commit costs no fsync.
                    let last = try log.head(txn).sequence
                    if last != applied { try models.setCheckpoint(last, txn) }
                    return outcomes
                }
            }
            // Only now that the erasures are durable, destroy the erased users' keys (a failure
            // is reported and retried: the erasure itself is committed).
            if outcomes.contains(where: { $0.erased != nil }) { log.keys.owesDestructions.withLock { $0 = true } }
            log.finishErasuresReporting(environment)
            for (job, outcome) in zip(batch, outcomes) { job.deliver(outcome.result) }
        } catch {
            let failure = TimelineService.translate(error)
            for job in batch { job.deliver(.failure(failure)) }
        }
    }

    /// Decides and applies every job of the batch in `txn`, sealing with `keys`.
    private static func decideAll(
        _ batch: [WriteJob], _ txn: Transaction, log: EventLog, models: ReadModels,
        keys: any PayloadKeys
    ) throws -> [Outcome] {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(batch.count)
        for job in batch {
            // Any error past deciding aborts the whole batch (a full map is grown and the batch
            // re-run), so no command is ever half-applied.
            outcomes.append(try job.apply(txn, log: log, models: models, keys: keys))
        }
        return outcomes
    }

    /// A cluster batch, optimistically: catch up with the replicated log (fetched outside any
    /// transaction), decide the batch in a write transaction that is rolled back, publish it
    /// (outside any transaction) as the message that must follow the position it was decided
    /// at, then apply it in a new short transaction. If another node published first, the
    /// publish fails on the expected last sequence and the batch is caught up and decided
    /// again. The writer lock is never held across a network call, so other writers (this
    /// node's follower, other processes on the database) wait only for local work.
    private static func runReplicated(
        _ batch: [WriteJob], environment: Environment, log: EventLog, registry: ModelRegistry,
        replication: Replication
    ) throws -> [Outcome] {
        for _ in 1...100 {
            try replication.catchUp(environment, registry: registry)
            let keys = StagedKeys(log.keys)
            var decided:
                (position: UInt64, outcomes: [Outcome], published: (bytes: [UInt8], fetched: Replication.Fetched)?)?
            do {
                try environment.write { txn in
                    guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
                    _ = try models.catchUp(log, head: try log.head(txn).sequence, txn)
                    let position = try replication.position(txn)
                    let outcomes = try decideAll(batch, txn, log: log, models: models, keys: keys)
                    decided = (
                        position, outcomes,
                        try replication.batch(of: outcomes.flatMap(\.appended), txn, models: models, at: position + 1)
                    )
                    throw RolledBack()
                }
            } catch is RolledBack {
            } catch let error as KeyStoreError {
                guard try keys.fetchMissed() else { throw error }
                continue  // a key this writer did not hold yet: read it, then decide again
            }
            guard let decided else { continue }
            guard let published = decided.published else { return decided.outcomes }  // nothing to append
            guard try keys.storeStaged() else { continue }  // a user had a key already: seal with it
            do {
                try replication.publish(published.bytes, after: decided.position)
            } catch is ReplicationConflict {
                continue  // another node appended first
            }
            // Published is committed (the replicated log is authoritative): from here on the
            // batch is never decided again. Should applying it here fail, the follower applies
            // it from the stream later.
            applyPublished(
                published.fetched, environment: environment, log: log, registry: registry, replication: replication)
            return decided.outcomes
        }
        throw TimelineError(.conflict, "other nodes kept appending first; try again")
    }

    /// Applies this node's own published batch in a short write transaction (skipped if the
    /// follower got there first); a failure is reported, not thrown: the batch is already in
    /// the replicated log, so re-running the commands would apply them twice.
    private static func applyPublished(
        _ batch: Replication.Fetched, environment: Environment, log: EventLog,
        registry: ModelRegistry, replication: Replication
    ) {
        for _ in 1...3 {
            do {
                try environment.write { txn in
                    guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
                    _ = try models.catchUp(log, head: try log.head(txn).sequence, txn)
                    try replication.apply([batch], txn, models: models)
                    try models.setCheckpoint(try log.head(txn).sequence, txn)
                }
                return
            } catch is ReadModelsMoved {
                do { try registry.reload() } catch { reportProblem("cannot reopen the read models: \(error)") }
            } catch {
                reportProblem("published batch \(batch.position) not applied here yet (the follower will): \(error)")
                return
            }
        }
    }

    /// Ends a cluster batch's deciding transaction without committing it.
    private struct RolledBack: Error {}

    /// Decides and applies the command; also names the user it erased, if any.
    private func apply(_ txn: Transaction, log: EventLog, models: ReadModels, keys: any PayloadKeys) throws -> Outcome {
        let service = self.service
        var context = service.decisionContext()
        context.prepared = prepared
        let view = ReadView(txn: txn, models: models, reports: service.reportPolicy, now: context.now)
        let decision: Decision
        do {
            decision = try decide(command, actor: actor, state: view, context: context)
        } catch let error as TimelineError {
            return (.failure(error), nil, [])  // refused: nothing was written
        }
        let actor = decision.actor?.rawValue ?? EventEnvelope.systemActor
        let pending = decision.events.map {
            PendingEvent(
                id: EventID(service.newID()), event: $0, timestamp: context.now, actor: actor,
                correlationId: correlationId)
        }
        let envelopes = try log.append(pending, txn, sealingWith: keys)
        for (id, upload) in decision.blobs {
            guard let owner = decision.blobOwner ?? decision.actor else { continue }
            try models.storeImage(id, upload, owner: owner, key: try keys.ensureKey(for: owner), txn)
        }
        try models.apply(envelopes, txn)
        var erased: UserID?
        if case .userErased(let e) = envelopes.last?.event { erased = e.userId }
        switch decision.outcome {
        case .failure(let error): return (.failure(error), erased, envelopes)
        case .success(let outcome):
            return (.success(try view.materialise(outcome, viewer: decision.actor, keys: keys)), erased, envelopes)
        }
    }
}
