import Foundation

/// Wolt's BlurHash (github.com/woltapp/blurhash, "Algorithm.md"): a photo's colours as a few
/// cosine components, written in base 83, that an app paints as a blurred placeholder while the
/// photo loads (Mastodon's `blurhash`). No Debian library has it; this follows the published
/// algorithm, and the tests check it with an independent decoder (PyPI's `blurhash`).
enum Blurhash {
    /// The hash of `width`×`height` sRGB pixels (`r g b` per pixel, row after row) with
    /// `componentsX`×`componentsY` components (1–9 each; 4×4 as Mastodon computes them).
    static func encode(rgb pixels: [UInt8], width: Int, height: Int, componentsX: Int = 4, componentsY: Int = 4)
        -> String
    {
        precondition(
            pixels.count >= width * height * 3 && (1...9).contains(componentsX) && (1...9).contains(componentsY))
        // Each pixel's colour in linear light, read once.
        var linear = [Double](repeating: 0, count: width * height * 3)
        for index in 0..<linear.count { linear[index] = Self.linear[Int(pixels[index])] }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<componentsY {
            for i in 0..<componentsX {
                let normalisation: Double = i == 0 && j == 0 ? 1 : 2
                var (r, g, b) = (0.0, 0.0, 0.0)
                for y in 0..<height {
                    let basisY = cos(Double.pi * Double(j) * Double(y) / Double(height))
                    for x in 0..<width {
                        let basis = cos(Double.pi * Double(i) * Double(x) / Double(width)) * basisY
                        let at = (y * width + x) * 3
                        r += basis * linear[at]
                        g += basis * linear[at + 1]
                        b += basis * linear[at + 2]
                    }
                }
                let scale = normalisation / Double(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = base83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        var maximum = 1.0
        if ac.isEmpty {
            hash += base83(0, length: 1)
        } else {
            let actual = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = Int(max(0, min(82, (actual * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += base83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += base83((sRGB(dc.0) << 16) + (sRGB(dc.1) << 8) + sRGB(dc.2), length: 4)
        for (r, g, b) in ac {
            func quantise(_ value: Double) -> Int {
                Int(max(0, min(18, (signedPow(value / maximum, 0.5) * 9 + 9.5).rounded(.down))))
            }
            hash += base83(quantise(r) * 19 * 19 + quantise(g) * 19 + quantise(b), length: 2)
        }
        return hash
    }

    private static let characters = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    private static func base83(_ value: Int, length: Int) -> String {
        var out = ""
        for digit in 1...length {
            var power = 1
            for _ in 0..<(length - digit) { power *= 83 }
            out.append(characters[(value / power) % 83])
        }
        return out
    }

    /// sRGB byte → linear light, for each of the 256 values.
    private static let linear: [Double] = (0..<256).map { byte in
        let v = Double(byte) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light → sRGB byte.
    private static func sRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        return v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    private static func signedPow(_ value: Double, _ exponent: Double) -> Double {
        (value < 0 ? -1 : 1) * pow(abs(value), exponent)
    }
}
