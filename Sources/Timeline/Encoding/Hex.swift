/// Lower-case hexadecimal, two digits per byte.
package func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// The bytes of a hexadecimal string (either case); `nil` if it is not whole bytes of hex digits.
func unhex<S: StringProtocol>(_ text: S) -> [UInt8]? {
    func digit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var out = [UInt8]()
    out.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
        guard let high = digit(utf8[index]), let low = digit(utf8[index + 1]) else { return nil }
        out.append(high << 4 | low)
        index += 2
    }
    return out
}
