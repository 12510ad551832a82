import Foundation
import JSONModel
import MicroHTTPD
import Timeline

/// The web app's static files (`web/` in the repository): `GET /` is `web/index.html`, and
/// `GET /app/{asset}` and `GET /app/js/{module}` are the files beside it. Names are checked
/// against a strict pattern (so no `..`, no hidden files, no other directory), every file is
/// revalidated by its `ETag` (`Cache-Control: no-cache`: no build step means no hashed names),
/// and every answer carries a Content-Security-Policy with no `unsafe-inline`.
enum WebApp {
    /// Scripts, styles, fonts and connections only from this origin; images also from `blob:`
    /// (the upload preview) and `data:`, videos also from `blob:` (the upload preview, and a
    /// followers-only post's or a story's video, fetched with the bearer); no plugins, no
    /// framing, no `<base>`.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; "
        + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static let mediaTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "json": "application/json"
    ]

    /// `web/`: in the source tree this was built from, or beside the executable's checkout
    /// (`.build/<config>/timeline` → `web/`), as `SchemaFiles` finds `schemas/`.
    static let directory: URL? = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .appendingPathComponent("../../../web")
        return [source, executable].map(\.standardized).first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path)
        }
    }()

    /// Whether `name` may be served: letters, digits, `-` and `_`, one dot, a known extension.
    static func isAssetName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let stem = parts.first, !stem.isEmpty, stem.count <= 64,
            mediaTypes[String(parts[1])] != nil
        else { return false }
        return stem.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The file `web/<folder>/<name>` as a response (404 for a name that is not an asset or
    /// not there).
    static func file(_ name: String, in folder: String?, request: HTTPRequest) throws(TimelineError) -> HTTPResponse {
        guard isAssetName(name), let directory else { throw TimelineError(.notFound, "no such file in the web app") }
        var url = directory
        if let folder { url.appendPathComponent(folder) }
        url.appendPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TimelineError(.notFound, "no such file in the web app")
        }
        let type = mediaTypes[String(name.split(separator: ".")[1])] ?? "application/octet-stream"
        return answer(Array(data), contentType: type, request: request)
    }

    /// `bytes` as one of the app's files: revalidated by its `ETag` (304 when `If-None-Match`
    /// names it), under the app's policy.
    static func answer(_ bytes: [UInt8], contentType: String, request: HTTPRequest) -> HTTPResponse {
        Revalidation.answer(
            bytes, tag: Revalidation.tag(of: bytes), contentType: contentType, request: request,
            headers: [
                ("Content-Security-Policy", contentSecurityPolicy), ("Referrer-Policy", "no-referrer"),
                ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin")
            ])
    }

    /// `/app/js/operations.js`, made from the route table as the OpenAPI document is: each
    /// operation's method and path template by its operationId, all the web app needs of that
    /// document (`web/js/api.js` imports it), at 3 KB instead of 180.
    static let operations: [UInt8] = {
        var map: [String: JSONValue] = [:]
        for route in TimelineAPI.routes {
            guard let operation = route.operation else { continue }
            map[operation.id] = .array([.string(route.method), .string(route.template)])
        }
        let object = JSONWriter.bytes(.object(map.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }))
        let text =
            "// Made by the server from its route table (as /v1/openapi.json is): operationId → [method, path].\n"
            + "export const operations = \(String(decoding: object, as: UTF8.self));\n"
        return Array(text.utf8)
    }()
}
