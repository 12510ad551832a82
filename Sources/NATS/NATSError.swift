internal import CNATS

/// A failure reported by the NATS client or a JetStream server.
public struct NATSError: Error, CustomStringConvertible, Sendable {
    /// The client status (`natsStatus`), as a number.
    public let status: Int32
    /// The JetStream error code (`jsErrCode`), 0 when there is none.
    public let jetStreamCode: Int32
    /// What failed, in words.
    public let message: String

    /// The message, with the JetStream code when there is one.
    public var description: String {
        jetStreamCode == 0 ? "NATS: \(message)" : "NATS JetStream \(jetStreamCode): \(message)"
    }

    /// The publish expected another last sequence: someone else appended first.
    public var isWrongLastSequence: Bool { jetStreamCode == Int32(JSStreamWrongLastSequenceErr.rawValue) }
    /// What was asked for does not exist (a message past the end, a missing key).
    public var isNotFound: Bool {
        status == Int32(NATS_NOT_FOUND.rawValue) || jetStreamCode == Int32(JSNoMessageFoundErr.rawValue)
            || jetStreamCode == Int32(JSStreamNotFoundErr.rawValue)
    }
    /// The request timed out.
    public var isTimeout: Bool { status == Int32(NATS_TIMEOUT.rawValue) }

    init(_ status: natsStatus, _ code: jsErrCode = jsErrCode(0), _ operation: String) {
        self.status = Int32(status.rawValue)
        jetStreamCode = Int32(code.rawValue)
        let detail = nats_GetLastError(nil).map { String(cString: $0) } ?? ""
        let text = String(cString: natsStatus_GetText(status))
        message = "\(operation): \(text)\(detail.isEmpty || detail == text ? "" : " (\(detail))")"
    }
}

@inline(__always)
func check(_ status: natsStatus, _ operation: @autoclosure () -> String) throws(NATSError) {
    if status != NATS_OK { throw NATSError(status, jsErrCode(0), operation()) }
}

@inline(__always)
func check(_ status: natsStatus, code: jsErrCode, _ operation: @autoclosure () -> String) throws(NATSError) {
    if status != NATS_OK { throw NATSError(status, code, operation()) }
}
