import Foundation

/// The text a signature is made over: draft-cavage's signing string and RFC 9421's signature
/// base, from the message and the parts covered.
enum SignatureBase {
    /// draft-cavage's signing string: `name: value` lines for `covered` (lower-case header names
    /// and the pseudo-headers `(request-target)`, `(created)` and `(expires)`), joined by `\n`.
    static func cavage(_ message: SignedMessage, covered: [String], created: String?, expires: String?)
        throws(SignatureError) -> String
    {
        var lines: [String] = []
        for name in covered {
            switch name {
            case "(request-target)": lines.append("(request-target): \(message.method.lowercased()) \(message.target)")
            case "(created)":
                guard let created else { throw .malformed("(created) covered without a created parameter") }
                lines.append("(created): \(created)")
            case "(expires)":
                guard let expires else { throw .malformed("(expires) covered without an expires parameter") }
                lines.append("(expires): \(expires)")
            default:
                guard let value = message.header(name) else { throw .absentHeader(name) }
                lines.append("\(name): \(value)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// RFC 9421's signature base: a line `"component": value` for each covered component, then
    /// `"@signature-params": ` and the signature's input as serialised.
    static func rfc9421(_ message: SignedMessage, covered: [String], input: String) throws(SignatureError) -> String {
        var lines: [String] = []
        for name in covered {
            guard !lines.contains(where: { $0.hasPrefix("\"\(name)\":") }) else {
                throw .malformed("the component \(name) covered twice")
            }
            lines.append("\"\(name)\": " + (try value(of: name, in: message)))
        }
        lines.append("\"@signature-params\": " + input)
        return lines.joined(separator: "\n")
    }

    private static func value(of component: String, in message: SignedMessage) throws(SignatureError) -> String {
        let components = URLComponents(string: message.uri)
        switch component {
        case "@method": return message.method
        case "@target-uri": return message.uri
        case "@authority": return message.authority
        case "@scheme": return components?.scheme?.lowercased() ?? ""
        case "@request-target": return message.target
        case "@path":
            let path = components?.percentEncodedPath ?? ""
            return path.isEmpty ? "/" : path
        case "@query": return "?" + (components?.percentEncodedQuery ?? "")
        default:
            guard !component.hasPrefix("@") else { throw .malformed("the component \(component) is not taken") }
            guard component == component.lowercased(), !component.contains(where: { $0 == "\n" || $0 == "\r" }) else {
                throw .malformed("a covered header name that is not lower case")
            }
            guard let value = message.header(component) else { throw .absentHeader(component) }
            return value
        }
    }
}
