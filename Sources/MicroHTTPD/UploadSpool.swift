import Foundation

/// The file parts of one large upload (`HTTPServer.Options.largeUploads`), each written to a
/// file of its own as its bytes arrive, so an upload of hundreds of megabytes never sits in
/// memory. The files go when the request does (`deinit`): a handler that keeps one moves it.
final class UploadSpool {
    /// The most a field that is not a file may hold in a large upload.
    static let maxFieldBytes = 1 << 20
    private let directory: String
    private var files: [String] = []
    private var descriptor: Int32 = -1

    init(directory: String) { self.directory = directory }

    deinit {
        finishFile()
        for file in files { unlink(file) }
    }

    /// Starts a new file for the next part: its path, or nil when none can be made.
    func startFile() -> String? {
        finishFile()
        var template = Array((directory + "/upload-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        let path = String(cString: template)
        descriptor = fd
        files.append(path)
        return path
    }

    /// Appends `bytes` to the current file; false when they could not all be written (a full disk).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard descriptor >= 0 else { return false }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Closes the current file (its part has ended).
    func finishFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
