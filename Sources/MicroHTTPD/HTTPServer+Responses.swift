import Foundation
import Synchronization
internal import CMicroHTTPD

// libmicrohttpd's responses for `HTTPResponse` values: bytes, event streams, WebSocket upgrades.

extension HTTPServer {
    /// Sends `response` on a suspended connection and resumes it.
    func send(_ connection: OpaquePointer, _ response: HTTPResponse) {
        guard let made = makeResponse(connection, response) else {
            MHD_resume_connection(connection)
            return
        }
        MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        MHD_resume_connection(connection)
    }

    /// libmicrohttpd's response for `response` (with its headers), to queue on `connection`.
    func makeResponse(_ connection: OpaquePointer, _ response: HTTPResponse) -> OpaquePointer? {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                    .RESPMEM_MUST_COPY)
            }
        case let .file(path, offset, length):
            // libmicrohttpd reads it (with sendfile where it can) and closes it with the response.
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            made = MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset))
            if made == nil { close(descriptor) }
        case .stream(let stream):
            stream.attach(connection)
            let streamingState = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.streams[ObjectIdentifier(stream)] = stream
                return true
            }
            if !streamingState { stream.close() }
            made = MHD_create_response_from_callback(
                UInt64.max, 16 << 10, streamReader,
                Unmanaged.passRetained(StreamBox(stream, server: self)).toOpaque(),
                streamFreed)
        case .upgrade(let socket):
            let stream = socket.outbound
            let accepted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.streams[ObjectIdentifier(stream)] = stream
                return true
            }
            guard accepted else { return nil }
            stream.onGone { [weak self] in self?.streamEnded(stream) }
            made = MHD_create_response_for_upgrade(
                upgradeHandler,
                Unmanaged.passRetained(UpgradeBox(socket)).toOpaque())
        }
        guard let made else { return nil }
        for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
        return made
    }

    func streamEnded(_ stream: EventStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }
}
