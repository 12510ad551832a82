import Foundation
import Sodium
import TimelineDomain

/// Where videos live, beside the database (`<path>/videos/`): a 100 MB file has no place in an
/// LMDB value. `uploads/` keeps each upload as it came until the video worker has transcoded
/// it (so a restart resumes it), `files/` each transcoded MP4 by its media id, `spool/` what an
/// HTTP upload is written to while it arrives (on the same file system, so staging it is a
/// rename). The log says which files should exist; `sweep` removes any other.
package struct VideoStore: Sendable {
    let root: String

    init(databasePath: String) { root = databasePath + "/videos" }

    /// The directory HTTP uploads are written to while they arrive.
    package var spoolDirectory: String { root + "/spool" }
    var uploadsDirectory: String { root + "/uploads" }
    var filesDirectory: String { root + "/files" }

    /// The upload `name`'s path.
    func upload(_ name: String) -> String { uploadsDirectory + "/" + name }
    /// The transcoded video of `media`'s path.
    func file(_ media: MediaID) -> String { filesDirectory + "/" + media.rawValue + ".mp4" }
    /// Where the transcoder writes `media`'s video until it is done.
    func partialFile(_ media: MediaID) -> String { file(media) + ".part" }

    /// How many times transcoding the upload `name` was begun (and did not end): a video that
    /// stops the whole process (a bug of a library's) is tried once more, then refused, so a
    /// restart does not stop again on it.
    func attempts(_ name: String) -> Int {
        (try? String(contentsOfFile: upload(name) + ".attempts", encoding: .utf8)).flatMap { Int($0) } ?? 0
    }

    /// Records that transcoding the upload `name` begins (durably: a crash right after must see it).
    func beginAttempt(_ name: String) {
        let path = upload(name) + ".attempts"
        try? String(attempts(name) + 1).write(toFile: path, atomically: true, encoding: .utf8)
        if let handle = FileHandle(forUpdatingAtPath: path) {
            try? handle.synchronize()
            try? handle.close()
        }
    }

    /// Forgets the attempts at the upload `name` (its job ended, either way).
    func endAttempts(_ name: String) { try? FileManager.default.removeItem(atPath: upload(name) + ".attempts") }

    /// Creates the directories (on first use).
    func prepare() throws(TimelineError) {
        for directory in [spoolDirectory, uploadsDirectory, filesDirectory] {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw TimelineError(.internal, "the video store could not be created")
            }
        }
    }

    /// Keeps `bytes` (a JSON command's base64 video) as a new upload.
    func stage(bytes: [UInt8]) throws(TimelineError) -> StagedVideo {
        try prepare()
        let name = Self.newName()
        guard FileManager.default.createFile(atPath: upload(name), contents: Data(bytes)) else {
            throw TimelineError(.internal, "the video could not be stored (the disk may be full)")
        }
        return StagedVideo(upload: name, bytes: bytes.count)
    }

    /// Keeps the file at `path` (an HTTP upload in `spoolDirectory`) as a new upload, moving it.
    func stage(moving path: String) throws(TimelineError) -> StagedVideo {
        try prepare()
        let name = Self.newName()
        guard let size = Self.size(of: path), rename(path, upload(name)) == 0 else {
            throw TimelineError(.internal, "the video could not be stored")
        }
        return StagedVideo(upload: name, bytes: size)
    }

    /// Removes the upload `staged` (its command was refused).
    func discard(_ staged: StagedVideo) { try? FileManager.default.removeItem(atPath: upload(staged.upload)) }

    /// The size of the file at `path`, if it is one (nil when it is not there).
    package static func size(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    /// Removes every upload not in `uploads` and every file (transcoded or being transcoded)
    /// not of `videos`, last written more than `minimumAge` seconds ago: what a deleted post, an
    /// expired or finished upload or a crash between two steps left behind. (A file younger
    /// may be an upload staged and not yet recorded, or a video transcoded and not yet
    /// recorded, by this process or another on the same database.)
    func sweep(uploads: Set<String>, videos: Set<MediaID>, minimumAge: TimeInterval) {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-minimumAge)
        func removeIfOld(_ path: String) {
            let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified <= cutoff { try? manager.removeItem(atPath: path) }
        }
        for name in (try? manager.contentsOfDirectory(atPath: uploadsDirectory)) ?? [] where !uploads.contains(name) {
            removeIfOld(upload(name))
        }
        for name in (try? manager.contentsOfDirectory(atPath: filesDirectory)) ?? [] {
            let media = name.split(separator: ".", maxSplits: 1).first.map { MediaID(String($0)) }
            if media.map(videos.contains) != true { removeIfOld(filesDirectory + "/" + name) }
        }
        // An HTTP upload a crash interrupted.
        for name in (try? manager.contentsOfDirectory(atPath: spoolDirectory)) ?? [] {
            removeIfOld(spoolDirectory + "/" + name)
        }
    }

    private static func newName() -> String { Sodium.base64URL(Sodium.randomBytes(16)) }
}

extension VideoStore {
    /// A hold on one upload's transcoding, across processes (a server and a `timeline exec` on
    /// one database each run a worker): an exclusive `flock` on the upload, released when the
    /// hold goes.
    final class JobLock {
        private let descriptor: Int32

        /// Takes the hold on the upload at `path`; nil when another has it, or the upload is gone.
        init?(_ path: String) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return nil
            }
            descriptor = fd
        }

        deinit { close(descriptor) }
    }

    /// Whether `head` (a file's first bytes) opens an ISO media file (MP4, MOV: a box named
    /// `ftyp`, or the `moov`/`mdat`/`wide`/`free` an older QuickTime file starts with) or a
    /// Matroska/WebM file (EBML's magic number).
    static func isVideoContainer(_ head: [UInt8]) -> Bool {
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return true }
        guard head.count >= 8 else { return false }
        let box = String(decoding: head[4..<8], as: UTF8.self)
        return ["ftyp", "moov", "mdat", "wide", "free", "skip"].contains(box)
    }
}
