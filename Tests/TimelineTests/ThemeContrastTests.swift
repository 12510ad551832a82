import Foundation
import Testing

/// The web app's colours meet WCAG 2.2 AA (1.4.3, 1.4.11): each pair of the theme that shows
/// text at least 4.5:1, each control's edge against its background at least 3:1. The colours
/// are read from web/app.css's `:root`, so a change of theme is checked as it is made.
@Suite struct ThemeContrastTests {
    /// The `--name: #rrggbb` variables of web/app.css's `:root`.
    static func theme() throws -> [String: String] {
        let css = try String(contentsOf: SchemaTests.root.appending(path: "web/app.css"), encoding: .utf8)
        let root = try #require(css.range(of: ":root {").map { css[$0.upperBound...] })
        let block = root.prefix { $0 != "}" }
        var colours: [String: String] = [:]
        for line in block.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].hasPrefix("--"), parts[1].hasPrefix("#") else { continue }
            colours[String(parts[0].dropFirst(2))] = String(parts[1].dropLast())  // the `;`
        }
        return colours
    }

    /// WCAG's relative luminance of `#rgb` or `#rrggbb`.
    static func luminance(_ hex: String) throws -> Double {
        var digits = String(hex.dropFirst())
        if digits.count == 3 { digits = digits.map { "\($0)\($0)" }.joined() }
        let value = try #require(UInt32(digits, radix: 16), "\(hex) is not a colour")
        let channels = [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF].map { Double($0) / 255 }
        let linear = channels.map { $0 <= 0.039_28 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    /// The contrast ratio of two colours, (L1 + 0.05) / (L2 + 0.05), the lighter over the darker.
    static func ratio(_ a: String, _ b: String) throws -> Double {
        let (x, y) = (try luminance(a), try luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func theRatiosOfAKnownPairAreWCAGs() throws {
        #expect(abs(try Self.ratio("#000", "#fff") - 21) < 0.001)
        #expect(abs(try Self.ratio("#1f6feb", "#fafafa") - 4.44) < 0.01, "the link colour the issue measured")
    }

    @Test func everyPairOfTheThemeMeetsAA() throws {
        let theme = try Self.theme()
        // (foreground, background, minimum): text on what it is drawn on, then controls' edges.
        let pairs: [(String, String, Double)] = [
            ("text", "bg", 4.5), ("text", "surface", 4.5), ("text", "hover", 4.5), ("muted", "bg", 4.5),
            ("muted", "surface", 4.5), ("muted", "hover", 4.5), ("accent", "bg", 4.5), ("accent", "surface", 4.5),
            ("accent", "accent-soft", 4.5), ("accent-text", "accent", 4.5), ("danger", "surface", 4.5),
            ("danger", "bg", 4.5), ("like", "like-soft", 4.5), ("like", "surface", 4.5),
            ("control", "surface", 3), ("control", "bg", 3)
        ]
        for (foreground, background, minimum) in pairs {
            let (a, b) = (try #require(theme[foreground]), try #require(theme[background]))
            let ratio = try Self.ratio(a, b)
            #expect(ratio >= minimum, "--\(foreground) \(a) on --\(background) \(b): \(ratio):1, needs \(minimum):1")
        }
    }
}
