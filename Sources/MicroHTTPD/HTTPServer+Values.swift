internal import CMicroHTTPD

// Reading what libmicrohttpd parsed: a request's headers and query arguments.

extension HTTPServer {
    /// `pairs` by name, the values of a repeated name joined with ", " (RFC 9110 §5.3).
    static func merged(_ pairs: [(name: String, value: String)], lowercased: Bool) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in pairs {
            let key = lowercased ? name.lowercased() : name
            result[key] = result[key].map { $0 + ", " + value } ?? value
        }
        return result
    }

    static func pairs(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        final class Collected { var pairs: [(name: String, value: String)] = [] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values_n(
                connection, kind,
                { cls, _, key, keySize, value, valueSize in
                    let collected = Unmanaged<Collected>.fromOpaque(cls!).takeUnretainedValue()
                    let name =
                        key.map {
                            String(decoding: UnsafeRawBufferPointer(start: $0, count: keySize), as: UTF8.self)
                        } ?? ""
                    let text =
                        value.map {
                            String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self)
                        } ?? ""
                    collected.pairs.append((name, text))
                    return .YES
                }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.pairs
    }
}
