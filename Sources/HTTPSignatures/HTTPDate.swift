import Foundation

/// HTTP's `Date` form (RFC 9110's IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
public enum HTTPDate {
    /// `date` as an IMF-fixdate.
    public static func string(_ date: Date) -> String { formatter().string(from: date) }

    /// The date an IMF-fixdate names, or `nil`.
    public static func parse(_ text: String) -> Date? { formatter().date(from: text) }

    // A formatter per call: `DateFormatter` is not safe to share between threads, and a
    // signature is made or checked once per request.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
