import Sodium

/// A signed statement "at `time` the log's head was `head`", one line of an anchor file:
/// `v1 SEQ:HASH TIME SIGNATURE` (time in ms since 1970, signature in hex). The Ed25519
/// signature covers a domain tag, the sequence, the hash and the time.
public struct AnchorCheckpoint: Sendable, Equatable {
    /// The log's head the checkpoint signs.
    public var head: LogHead
    /// Milliseconds since 1970, when the checkpoint was signed.
    public var time: Int64
    /// Ed25519 signature over the head.
    public var signature: [UInt8]

    static let version = "v1"
    private static let domain = Array("timeline-anchor-checkpoint-v1".utf8) + [0]

    /// The bytes the signature covers.
    static func message(_ head: LogHead, time: Int64) -> [UInt8] {
        domain + BigEndian.bytes(head.sequence) + head.hash + BigEndian.bytes(UInt64(bitPattern: time))
    }

    /// Signs `head` at `time` with `key`.
    init(signing head: LogHead, time: Int64, with key: AnchorKey) throws(TimelineError) {
        guard let signature = Sodium.sign(Self.message(head, time: time), secretKey: key.secretKey) else {
            throw TimelineError(.internal, "the anchor key cannot sign (wrong length)")
        }
        self.head = head
        self.time = time
        self.signature = signature
    }

    /// Whether the signature is `publicKey`'s over this head and time.
    public func isSigned(by publicKey: [UInt8]) -> Bool {
        Sodium.verifySignature(signature, of: Self.message(head, time: time), publicKey: publicKey)
    }

    /// The checkpoint's line in an anchor file (without the newline).
    var line: String { "\(Self.version) \(head) \(time) \(hex(signature))" }

    /// Parses one line of an anchor file (without its newline); `nil` if it is not one.
    init?(line: Substring) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == Self.version, let head = LogHead(String(fields[1])),
            let time = Int64(fields[2]), let signature = unhex(fields[3]), signature.count == Sodium.signatureLength
        else { return nil }
        self.head = head
        self.time = time
        self.signature = signature
    }
}
