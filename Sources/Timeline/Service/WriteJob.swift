import LMDB
import TimelineDomain

/// One queued command and how to deliver its result.
struct WriteJob: Sendable {
    let service: TimelineService
    let command: Command
    let prepared: Prepared
    let correlationId: String?
    let deliver: @Sendable (Result<CommandResult, TimelineError>) -> Void

    /// Runs a batch in one write transaction, then one commit (one fsync) for all; results are
    /// delivered only after the commit. A command that fails to decide has written nothing
    /// (deciding only reads), so it needs no rollback and the others go on; each later
    /// command decides against the state the earlier ones left.
    ///
    /// In a cluster the batch is first caught up with the replicated log, then published as
    /// one message that must follow the last one this node applied; if another node
    /// published first, the transaction rolls back and the batch is decided again.
    static func run(_ batch: [WriteJob], environment: Environment, log: EventLog, registry: ModelRegistry,
                    replication: Replication?, attempt: Int = 1) {
        do {
            let outcomes = try environment.write { txn in
                guard let models = try registry.models(in: txn) else { throw ReadModelsMoved() }
                let applied = try log.head(txn).sequence
                _ = try models.catchUp(log, head: applied, txn)
                try replication?.catchUp(txn, models: models)
                let head = try log.head(txn).sequence
                var results: [(result: Result<CommandResult, TimelineError>, erased: UserID?)] = []
                results.reserveCapacity(batch.count)
                for job in batch {
                    // Any error past deciding aborts the whole batch (a full map is grown and
                    // the batch re-run), so no command is ever half-applied.
                    results.append(try job.apply(txn, log: log, models: models))
                }
                if let replication, let service = batch.first?.service {
                    try replication.publish(appendedAfter: head, txn, models: models, batchID: service.newID())
                }
                // A batch that appended nothing writes nothing, so its commit costs no fsync.
                let last = try log.head(txn).sequence
                if last != applied { try models.setCheckpoint(last, txn) }
                return results
            }
            // Only now that the erasures are durable, destroy the erased users' keys.
            for user in outcomes.compactMap(\.erased) { try? log.keys.destroyKey(for: user) }
            for (job, outcome) in zip(batch, outcomes) { job.deliver(outcome.result) }
        } catch is ReadModelsMoved {
            // A rebuild switched generations: reopen the handles and run the batch again.
            do {
                try registry.reload()
                run(batch, environment: environment, log: log, registry: registry, replication: replication)
            } catch {
                let failure = TimelineService.translate(error)
                for job in batch { job.deliver(.failure(failure)) }
            }
        } catch is ReplicationConflict where attempt < 100 {
            // Another node appended first: the next attempt catches up and decides again.
            run(batch, environment: environment, log: log, registry: registry, replication: replication, attempt: attempt + 1)
        } catch {
            let failure = TimelineService.translate(error)
            for job in batch { job.deliver(.failure(failure)) }
        }
    }

    /// Decides and applies the command; also names the user it erased, if any.
    private func apply(_ txn: Transaction, log: EventLog, models: ReadModels) throws -> (result: Result<CommandResult, TimelineError>, erased: UserID?) {
        let service = self.service
        var context = service.decisionContext()
        context.passwordHash = prepared.passwordHash
        context.verifiedUser = prepared.verifiedUser
        context.verifiedPasswordHash = prepared.verifiedPasswordHash
        context.newToken = prepared.newToken
        let view = ReadView(txn: txn, models: models)
        let decision: Decision
        do {
            decision = try decide(command, actor: prepared.actor, state: view, context: context)
        } catch let error as TimelineError {
            return (.failure(error), nil)  // refused: nothing was written
        }
        let actor = decision.actor?.rawValue ?? EventEnvelope.systemActor
        let pending = decision.events.map {
            PendingEvent(id: EventID(service.newID()), event: $0, timestamp: context.now, actor: actor, correlationId: correlationId)
        }
        let envelopes = try log.append(pending, txn)
        for (id, upload) in decision.blobs {
            guard let owner = decision.actor else { continue }
            try models.storeImage(id, upload, owner: owner, key: try log.keys.ensureKey(for: owner), txn)
        }
        try models.apply(envelopes, txn)
        var erased: UserID?
        if case .userErased(let e) = envelopes.last?.event { erased = e.userId }
        switch decision.outcome {
        case .failure(let error): return (.failure(error), erased)
        case .success(let outcome): return (.success(try view.materialise(outcome, viewer: decision.actor)), erased)
        }
    }
}
