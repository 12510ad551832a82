internal import CMicroHTTPD

/// HTTP status codes, as libmicrohttpd knows them.
public enum HTTPStatus {
    /// The reason phrase of `status` (e.g. "Not Found"), "Unknown" for a code without one.
    public static func reasonPhrase(_ status: Int) -> String {
        guard let status = UInt32(exactly: status), let phrase = MHD_get_reason_phrase_for(status) else {
            return "Unknown"
        }
        return String(cString: phrase)
    }
}
