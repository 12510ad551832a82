import Foundation
import MicroHTTPD
import Timeline

// Videos over HTTP: uploads (a file part written to a spool file as it arrives, handed to the
// service by its path), and the transcoded file served with ranges (RFC 9110 §14) so players
// can seek.

extension TimelineAPI {
    /// The uploads that may be larger than the server's usual body limit, and how large: a
    /// video's (`POST /v1/videos`, and Mastodon's media endpoints, which take photos and videos)
    /// and an archive to import (`POST /v1/me/imports`).
    public func largeUploads(method: String, path: String) -> Int? {
        guard method == "POST" else { return nil }
        switch path {
        // The file and a few small fields.
        case "/v1/videos", "/api/v1/media", "/api/v2/media": return service.maxVideoBytes + (1 << 20)
        case "/v1/me/imports": return options.maxImportBytes + (1 << 20)
        default: return nil
        }
    }

    /// `POST /v1/videos`: the multipart part `video` and `alt`, or JSON `{video, alt}` (base64).
    func uploadVideo(_ request: APIRequest) async throws(TimelineError) -> HTTPResponse {
        let result: CommandResult
        if let part = request.http.formParts.first(where: { $0.name == "video" }) {
            var alt: String?
            guard request.http.formParts.filter({ $0.name == "video" }).count == 1 else {
                throw TimelineError.invalid("video", "a video upload has one part video")
            }
            for other in request.http.formParts where other.name != "video" {
                guard other.name == "alt", other.file == nil, let text = String(validating: other.data, as: UTF8.self)
                else { throw TimelineError.invalid(other.name, "a video upload has the parts video and alt alone") }
                alt = text
            }
            result = try await storeVideo(part, alt: alt, request)
        } else {
            let input = try fields(request)
            let command = try Catalogue.command(named: "uploadVideo", input)
            try input.refuseUnreadFields()
            result = try await execute(command, request)
        }
        return Responses.json(202, JSONOutput.result(result))
    }

    /// Hands the video `part` to the service: the file it was written to as it arrived, or,
    /// for a part held in memory (a request made in the process), its bytes written to one.
    func storeVideo(_ part: FormPart, alt: String?, _ request: APIRequest) async throws(TimelineError) -> CommandResult
    {
        var path = part.file
        if path == nil {
            let spooled = service.uploadSpoolDirectory + "/held-" + UUID().uuidString
            guard FileManager.default.createFile(atPath: spooled, contents: Data(part.data)) else {
                throw TimelineError(.storageFull, "the video could not be stored")
            }
            path = spooled
        }
        return try await service.uploadVideo(
            file: path ?? "", alt: alt, as: request.bearer.map { .session($0) } ?? .anonymous,
            origin: request.http.clientAddress)
    }

    /// The bytes of the file part `part`: held, or read back from its spool file (at most an
    /// image's limit: a photo larger is refused before it is read).
    func photoBytes(_ part: FormPart) throws(TimelineError) -> [UInt8] {
        guard let file = part.file else { return part.data }
        guard let size = VideoStore.size(of: file), size <= ImageUpload.maxBytes else {
            throw TimelineError(.payloadTooLarge, "an image may have at most \(ImageUpload.maxBytes >> 20) MiB")
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw TimelineError(.internal, "the upload could not be read")
        }
        return [UInt8](data)
    }

    /// Whether the file part `part` holds a video (by its first bytes).
    func isVideo(_ part: FormPart) -> Bool {
        guard let file = part.file else { return TimelineService.isVideo(head: Array(part.data.prefix(16))) }
        return TimelineService.isVideo(fileAt: file)
    }

    /// `GET /v1/videos/{media}`: a transcoded video's MP4, to whom its post shows (an upload
    /// not posted yet: its uploader), whole or the one range asked for.
    func video(_ request: APIRequest) throws(TimelineError) -> HTTPResponse {
        let input = try fields(request)
        let id: MediaID = try input.identifier("media")
        try input.refuseUnreadFields()
        let file = try service.videoFile(id.rawValue, viewer: request.viewer)
        // Never shared by caches: who may see it can change (a post made followers-only, a block).
        let tag = "\"\(id.rawValue)\""
        let common = [
            (name: "Accept-Ranges", value: "bytes"), (name: "ETag", value: tag),
            (name: "Cache-Control", value: "private, no-cache")
        ]
        if let wanted = request.http.header("If-None-Match"), wanted.contains(tag) {
            return Responses.empty(304, headers: common)
        }
        switch ByteRange(request.http.header("Range"), size: file.bytes) {
        case .whole:
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "video/mp4")] + common,
                body: .file(path: file.path, offset: 0, length: file.bytes))
        case .part(let range):
            return HTTPResponse(
                status: 206,
                headers: [
                    ("Content-Type", "video/mp4"),
                    ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(file.bytes)")
                ] + common,
                body: .file(path: file.path, offset: range.lowerBound, length: range.count))
        case .unsatisfiable:
            return Responses.empty(416, headers: [("Content-Range", "bytes */\(file.bytes)")] + common)
        }
    }
}

/// What a `Range` header asks of a body of `size` bytes (RFC 9110 §14.1–14.2): the whole body
/// (no header, one this server does not honour — another unit, several ranges — or one that is
/// not well formed: all ignored, as the RFC allows), one range of it, or a range past its end.
enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    init(_ header: String?, size: Int) {
        guard let header, header.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let ends = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard !spec.contains(","), ends.count == 2, ends.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else {
            self = .whole
            return
        }
        // Digits past Int's range are a byte that far off: past any file's end.
        func number(_ digits: Substring) -> Int? { digits.isEmpty ? nil : Int(digits) ?? Int.max }
        let first = number(ends[0]), last = number(ends[1])
        switch (first, last) {
        case (let first?, let last?) where first <= last:
            self = first < size ? .part(first...min(last, size - 1)) : .unsatisfiable
        case (let first?, nil) where ends[1].isEmpty:
            self = first < size ? .part(first...(size - 1)) : .unsatisfiable
        case (nil, let suffix?) where ends[0].isEmpty:
            self = suffix > 0 && size > 0 ? .part(max(0, size - suffix)...(size - 1)) : .unsatisfiable
        default:
            self = .whole  // `bytes=5-2`, `bytes=-`: not well formed
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
