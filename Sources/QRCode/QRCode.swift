import CQREncode

/// A QR code symbol made by libqrencode: the only place the project calls it.
public struct QRCode: Sendable {
    /// Modules per side (the symbol is square, without its quiet zone).
    public let size: Int
    /// Whether each module is dark, row after row (`size` × `size`).
    public let modules: [Bool]

    /// The symbol of `text` (encoded as 8-bit data), at error correction level M (15% of the
    /// symbol may be lost), the smallest version that holds it.
    public init(encoding text: String) throws(QRCodeError) {
        guard !text.utf8.contains(0) else { throw QRCodeError("the text holds a NUL byte") }
        guard let symbol = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw QRCodeError("libqrencode could not encode the text (too long?)")
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Each module is one byte whose lowest bit says dark (the other bits are libqrencode's own).
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        size = width
        modules = data.map { $0 & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark.
    public func isDark(row: Int, column: Int) -> Bool { modules[row * size + column] }
}

/// A text libqrencode could not make a symbol of.
public struct QRCodeError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
