internal import CYAJL

/// One token of a JSON text, in document order.
public enum JSONEvent: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written (no precision is lost).
    case number(String)
    /// A string value (not an object key).
    case string(String)
    /// `{`: an object begins.
    case startObject
    /// An object member's key (its value follows).
    case key(String)
    /// `}`: the object ends.
    case endObject
    /// `[`: an array begins.
    case startArray
    /// `]`: the array ends.
    case endArray
}

/// Why a JSON text could not be parsed.
public struct JSONStreamError: Error, CustomStringConvertible, Sendable {
    /// yajl's message (its first line).
    public let description: String
}

/// A push parser over yajl: feed it bytes in chunks of any size and it calls `handler` with
/// each token as soon as it is complete, so a document far larger than memory can be
/// processed. If `handler` throws, parsing stops and `feed` rethrows that error.
public final class JSONStreamParser {
    private let box: HandlerBox
    private let handle: yajl_handle

    /// A parser calling `handler` with each token.
    public init(_ handler: @escaping (JSONEvent) throws -> Void) {
        box = HandlerBox(handler)
        // yajl validates UTF-8 in strings by default and keeps a pointer to the callbacks,
        // which are a global constant.
        handle = yajl_alloc(&callbacks, nil, Unmanaged.passUnretained(box).toOpaque())
    }

    deinit { yajl_free(handle) }

    /// Parses the next chunk of the document.
    public func feed(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let status = bytes.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, $0.count) }
        try check(status, bytes)
    }

    /// Signals the end of the document; throws if it is incomplete.
    public func finish() throws {
        try check(yajl_complete_parse(handle), [])
    }

    private func check(_ status: yajl_status, _ bytes: [UInt8]) throws {
        if let error = box.error { throw error }
        guard status == yajl_status_ok else {
            let message = bytes.withUnsafeBufferPointer { buffer -> String in
                guard let text = yajl_get_error(handle, 0, buffer.baseAddress, buffer.count) else {
                    return "invalid JSON"
                }
                defer { yajl_free_error(handle, text) }
                return String(cString: text)
            }
            throw JSONStreamError(description: String(message.split(separator: "\n").first ?? "invalid JSON"))
        }
    }
}

/// Holds the handler and the first error it threw (yajl only knows "stop").
private final class HandlerBox {
    let handler: (JSONEvent) throws -> Void
    var error: (any Error)?
    init(_ handler: @escaping (JSONEvent) throws -> Void) { self.handler = handler }

    func emit(_ event: JSONEvent) -> Int32 {
        do {
            try handler(event)
            return 1
        } catch {
            self.error = error
            return 0
        }
    }
}

private func box(_ context: UnsafeMutableRawPointer?) -> HandlerBox {
    Unmanaged<HandlerBox>.fromOpaque(context!).takeUnretainedValue()
}

private func text(_ bytes: UnsafePointer<UInt8>?, _ length: Int) -> String {
    guard let bytes else { return "" }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
}

/// Never written after initialisation; `var` only because yajl takes a mutable pointer.
nonisolated(unsafe) private var callbacks = yajl_callbacks(
    yajl_null: { box($0).emit(.null) },
    yajl_boolean: { box($0).emit(.bool($1 != 0)) },
    yajl_integer: nil,
    yajl_double: nil,
    yajl_number: { context, bytes, length in
        box(context).emit(
            .number(
                bytes.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "0"))
    },
    yajl_string: { box($0).emit(.string(text($1, $2))) },
    yajl_start_map: { box($0).emit(.startObject) },
    yajl_map_key: { box($0).emit(.key(text($1, $2))) },
    yajl_end_map: { box($0).emit(.endObject) },
    yajl_start_array: { box($0).emit(.startArray) },
    yajl_end_array: { box($0).emit(.endArray) }
)
