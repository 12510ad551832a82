import Foundation
import MicroHTTPD
import Timeline

// Moving in over HTTP: an export's zip uploaded (written to disk as it arrives), imported by
// `ImportJobs` off the request, its progress read until it ends.

extension TimelineAPI {
    /// `POST /v1/me/imports`: the multipart part `archive` (Instagram's "Download your
    /// information" zip, JSON format), imported for the bearer off the request: 202 with its
    /// progress, then `GET /v1/me/imports/{import}` until it ends.
    func startImport(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        let user = try request.requireViewer()
        guard let importer = options.importInstagram else {
            throw TimelineError.invalid("archive", "this server does not import archives")
        }
        guard let part = request.http.formParts.first(where: { $0.name == "archive" }) else {
            throw TimelineError.invalid("archive", "the multipart part archive (the export's zip) is required")
        }
        if let other = request.http.formParts.first(where: { $0.name != "archive" }) {
            throw TimelineError.invalid(other.name, "an import has the one part archive")
        }
        // Kept past the request (whose spool file goes with it), beside the database.
        let kept = service.importDirectory + "/" + UUID().uuidString + ".zip"
        let moved =
            if let file = part.file { rename(file, kept) == 0 } else {
                FileManager.default.createFile(atPath: kept, contents: Data(part.data))
            }
        guard moved else { throw TimelineError(.storageFull, "the archive could not be stored") }
        let started = try imports.start(kept, for: user, importer: importer)
        return Responses.json(
            202, JSONOutput.importProgress(started),
            headers: [(name: "Location", value: "/v1/me/imports/\(started.id)")])
    }

    /// `GET /v1/me/imports/{import}`: one of the bearer's imports as it stands.
    func importProgress(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        let user = try request.requireViewer()
        let progress = try imports.progress(request.parameters["import"] ?? "", of: user)
        return Responses.json(200, JSONOutput.importProgress(progress))
    }
}
