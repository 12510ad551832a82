import Foundation

/// Reports a problem the service works around by itself (a key destruction to retry, a
/// replicated batch the follower could not apply yet) on stderr, where an operator sees it.
func reportProblem(_ message: String) {
    FileHandle.standardError.write(Data("timeline: \(message)\n".utf8))
}
