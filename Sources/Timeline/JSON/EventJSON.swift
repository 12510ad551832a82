import Foundation
import TimelineDomain

extension EventEnvelope {
    /// The JSON form of the event (audit output, export), valid against
    /// `schemas/envelope.schema.json` and `schemas/events/<type>.v<version>.schema.json`.
    /// Password hashes are always redacted (`Event.redacted`).
    public func jsonObject() -> [String: Any] {
        var out: [String: Any] = [
            "sequence": sequence, "id": id.rawValue, "type": type.rawValue, "schemaVersion": Int(schemaVersion),
            "stream": stream, "streamVersion": streamVersion, "timestamp": timestamp, "actor": actor,
            "payload": event.payloadJSON(erased: erased), "previousHash": hex(previousHash), "hash": hex(hash),
        ]
        if erased { out["erased"] = true }
        if let correlationId { out["correlationId"] = correlationId }
        if let causationId { out["causationId"] = causationId }
        return out
    }

    /// One compact JSON line.
    public func jsonLine() -> String { JSONOutput.line(jsonObject()) }
}
