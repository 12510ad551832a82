import Foundation

/// One JSON line per request on stderr: method, route template, status and microseconds —
/// never a path with ids, a query, a header or a body, so no token, password or email.
enum AccessLog {
    static func write(method: String, route: String, status: Int, duration: Duration) {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let safeMethod = method.unicodeScalars.allSatisfy { $0.properties.isUppercase } ? method : "OTHER"
        let line =
            #"{"method":"\#(safeMethod.prefix(10))","route":"\#(route)","status":\#(status),"us":\#(micros)}"# + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
