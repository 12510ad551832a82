internal import CMicroHTTPD

// libmicrohttpd's C callbacks, each handing over to `HTTPServer` (or to what a box holds), and
// the boxes passed through their context pointers.

/// What the stream reader's context points at.
final class UpgradeBox: Sendable {
    let socket: WebSocket
    init(_ socket: WebSocket) { self.socket = socket }
}

/// libmicrohttpd's handle of an upgraded connection, passed to the reactor that closes it.
private struct UpgradeHandle: @unchecked Sendable { let pointer: OpaquePointer? }

/// libmicrohttpd hands over the upgraded connection: served by the process's `WebSocketReactor`
/// (this runs on the server's event loop, which must not block), then closed through
/// libmicrohttpd.
let upgradeHandler: MHD_UpgradeHandler = { cls, _, _, extra, extraCount, socket, handle in
    let box = Unmanaged<UpgradeBox>.fromOpaque(cls!).takeRetainedValue()
    let early = extra.map { Array(UnsafeRawBufferPointer(start: $0, count: extraCount)) } ?? []
    let upgraded = UpgradeHandle(pointer: handle)
    guard let reactor = WebSocketReactor.shared else {
        timeline_mhd_upgrade_close(upgraded.pointer)
        box.socket.outbound.finished()
        return
    }
    reactor.serve(box.socket, fd: socket, extra: early) { timeline_mhd_upgrade_close(upgraded.pointer) }
}

final class StreamBox {
    let stream: EventStream
    let server: HTTPServer
    init(_ stream: EventStream, server: HTTPServer) {
        self.stream = stream
        self.server = server
    }
}

let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, data, size, context in
    let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
    // A path that is not UTF-8 is refused; it is still read (repaired) to know whose API it is under.
    let path = String(validatingCString: url!).map { (path: $0, valid: true) } ?? (String(cString: url!), false)
    // Only HTTP/1.0 may leave out `Host` (libmicrohttpd accepts no older version).
    let hostRequired = version.map { strcmp($0, "HTTP/1.0") != 0 } ?? true
    return server.access(connection!, path, String(cString: method!), hostRequired: hostRequired, data, size!, context!)
}

let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, _ in
    Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue().completed(connection, context)
}

let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let connection else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
        .connectionChanged(connection, opened: timeline_mhd_is_opening(code) != 0)
}

let partHandler: MHD_PostDataIterator = { cls, _, key, filename, contentType, _, data, offset, size in
    let incoming = Unmanaged<HTTPServer.Incoming>.fromOpaque(cls!).takeUnretainedValue()
    let name = key.map { String(cString: $0) } ?? ""
    let bytes =
        data.map { UnsafeRawBufferPointer(start: $0, count: size) }
        ?? UnsafeRawBufferPointer(start: nil, count: 0)
    let continued = offset > 0 && incoming.parts.last?.name == name
    if !continued {
        var part = FormPart(
            name: name, filename: filename.map { String(cString: $0) },
            contentType: contentType.map { String(cString: $0) }, data: [])
        if part.filename != nil, let spool = incoming.spool {
            part.file = spool.startFile()
            if part.file == nil { incoming.spoolFailed = true }
        } else {
            incoming.spool?.finishFile()
        }
        incoming.parts.append(part)
    }
    guard let last = incoming.parts.indices.last, !incoming.spoolFailed else { return .NO }
    if incoming.parts[last].file != nil {
        guard bytes.isEmpty || incoming.spool?.write(bytes) == true else {
            incoming.spoolFailed = true
            return .NO
        }
    } else {
        // A large upload's fields besides its files are small: only its files may be large.
        if incoming.spool != nil, incoming.parts[last].data.count + bytes.count > UploadSpool.maxFieldBytes {
            return .NO
        }
        incoming.parts[last].data.append(contentsOf: bytes)
    }
    return .YES
}

let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    let box = Unmanaged<StreamBox>.fromOpaque(cls!).takeUnretainedValue()
    return box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    let box = Unmanaged<StreamBox>.fromOpaque(cls!).takeRetainedValue()
    box.stream.finished()
    box.server.streamEnded(box.stream)
}
