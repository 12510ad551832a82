import Archive
import Foundation
import JSONModel

extension TimelineService {
    /// Writes `user`'s data as a zip archive to `output`, as it goes: `profile.json`,
    /// `posts.json` (each post as the API answers it) with every photo of theirs under
    /// `photos/<post>/<n>.<ext>` (the stored full size; a video's poster frame) and every video
    /// under `videos/<post>/<n>.mp4`, `comments.json`, `likes.json`,
    /// `bookmarks.json`, `following.json`, `followers.json`, `blocks.json`, `mutes.json`,
    /// `notes.json` (the accounts they wrote a private note on, with it, `noteByViewer`),
    /// `endorsements.json`, `pinned.json`, `featured-tags.json`, and
    /// `events.jsonl`: every event they caused, as JSON Lines valid against `schemas/` (their
    /// personal fields in clear). Photos are read and written one at a time, and the events a
    /// page at a time, so the memory an export takes does not grow with it. `output` throwing
    /// (the client went away) ends the export.
    public func export(user: UserID, to output: @escaping ([UInt8]) throws -> Void) throws(TimelineError) {
        let zip: ZipWriter
        do { zip = try ZipWriter(output: output) } catch { throw Self.exportError(error) }
        func add(_ path: String, _ bytes: [UInt8]) throws(TimelineError) {
            do { try zip.add(path, bytes) } catch { throw Self.exportError(error) }
        }
        func json(_ value: JSONValue) -> [UInt8] { JSONOutput.pretty(value) }
        let data = try read { view in try view.exportData(of: user) }
        try add("profile.json", json(JSONOutput.profile(data.profile)))
        try add("posts.json", json(.array(data.posts.map(JSONOutput.post))))
        for post in data.posts {
            for (index, photo) in post.media.enumerated() {
                let image = try self.image(photo.image, viewer: user)
                try add("photos/\(post.id.rawValue)/\(index + 1).\(image.mediaType.fileExtension)", image.bytes)
                guard case .ready = photo.video else { continue }
                let video = try videoFile(photo.id, viewer: user)
                do {
                    try zip.add(
                        "videos/\(post.id.rawValue)/\(index + 1).mp4", contentsOf: video.path, size: video.bytes)
                } catch { throw Self.exportError(error) }
            }
        }
        try add("comments.json", json(.array(data.comments.map(JSONOutput.comment))))
        try add("likes.json", json(.array(data.likes.map { .string($0.rawValue) })))
        try add("bookmarks.json", json(.array(data.bookmarks.map(JSONOutput.post))))
        for (name, users) in [
            ("following", data.following), ("followers", data.followers), ("blocks", data.blocks),
            ("mutes", data.mutes),
            ("notes", data.notes), ("endorsements", data.endorsements)
        ] {
            try add("\(name).json", json(.array(users.map(JSONOutput.profile))))
        }
        try add("pinned.json", json(.array(data.pinned.map { .string($0.rawValue) })))
        try add("featured-tags.json", json(.array(data.featuredTags.map { .string($0) })))
        try add("events.jsonl", try ownEvents(of: user))
        do { try zip.finish() } catch { throw Self.exportError(error) }
    }

    /// Every event `user` caused, as JSON Lines (read a page at a time).
    private func ownEvents(of user: UserID) throws(TimelineError) -> [UInt8] {
        var lines: [UInt8] = []
        var next: UInt64 = 1
        while true {
            let page = try events(from: next, limit: 1000)
            guard let last = page.last else { return lines }
            for envelope in page where envelope.actor == user.rawValue {
                lines += Array((envelope.jsonLine() + "\n").utf8)
            }
            next = last.sequence + 1
        }
    }

    private static func exportError(_ error: ZipError) -> TimelineError {
        if case .output(let cause) = error, let timeline = cause as? TimelineError { return timeline }
        return TimelineError(.internal, "the export could not be written: \(error)")
    }
}

extension MediaType {
    /// The usual file name extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .heic: "heic"
        case .webp: "webp"
        }
    }
}
