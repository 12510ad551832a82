import Foundation
import Sodium
import Synchronization
import Timeline

/// Runs one import (`TimelineAPI.Options.importInstagram`): the archive's path, the user, a
/// callback told of progress (items done, of how many).
public typealias ArchiveImporter =
    @Sendable (_ archive: String, _ user: UserID, _ progress: @escaping @Sendable (Int, Int) -> Void)
    throws(TimelineError) -> ImportReport

/// The imports the server runs for its users (`POST /v1/me/imports`): one at a time per user,
/// each on a thread of its own (reading and transcoding an archive takes the cores for a while,
/// never a request's thread), its archive kept in the database's `imports/` until it ends. What
/// they did is kept in memory while the server runs: a restart forgets them (and the archives
/// left), and importing the same export again adds nothing, so it is simply done again.
final class ImportJobs: Sendable {

    private let jobs = Mutex<[String: (user: UserID, progress: ImportProgress)]>([:])

    /// Jobs whose archives are kept in `directory` (what a previous run left there is removed).
    init(directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    /// Starts importing the archive at `archive` (taken over: removed when the import ends) for
    /// `user` with `importer`; `conflict` while another of theirs runs.
    func start(_ archive: String, for user: UserID, importer: @escaping ArchiveImporter) throws(TimelineError)
        -> ImportProgress
    {
        let id = Sodium.randomToken(12)
        let started = ImportProgress(id: id)
        let busy = jobs.withLock { jobs in
            if jobs.values.contains(where: { $0.user == user && $0.progress.state == .running }) { return true }
            jobs[id] = (user, started)
            return false
        }
        guard !busy else {
            try? FileManager.default.removeItem(atPath: archive)
            throw TimelineError(.conflict, "an import of yours is running: wait for it to end")
        }
        let thread = Thread { [jobs = self] in
            let result = Result { () throws(TimelineError) -> ImportReport in
                try importer(archive, user) { done, total in
                    jobs.update(id) { ($0.done, $0.total) = (done, total) }
                }
            }
            try? FileManager.default.removeItem(atPath: archive)
            jobs.update(id) { progress in
                switch result {
                case .success(let report):
                    progress.state = .done
                    progress.report = report
                case .failure(let error):
                    progress.state = .failed
                    progress.error = error
                }
            }
        }
        thread.name = "timeline import"
        thread.start()
        return started
    }

    /// Import `id` of `user`'s as it stands (`not_found` for anyone else's).
    func progress(_ id: String, of user: UserID) throws(TimelineError) -> ImportProgress {
        guard let job = jobs.withLock({ $0[id] }), job.user == user else { throw TimelineError.notFound("import", id) }
        return job.progress
    }

    private func update(_ id: String, _ change: (inout ImportProgress) -> Void) {
        jobs.withLock { jobs in
            guard var job = jobs[id] else { return }
            change(&job.progress)
            jobs[id] = job
        }
    }
}
