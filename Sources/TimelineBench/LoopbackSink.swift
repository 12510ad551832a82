import Foundation
import MicroHTTPD
import Synchronization

/// An HTTPS server on loopback that answers every request `status` and counts them: the far end
/// of the push and federation benches (libmicrohttpd, with a self-signed P-256 certificate that
/// `openssl` makes in the run, which the client is told to trust).
final class LoopbackSink: Sendable {
    /// The port it listens on (127.0.0.1).
    let port: UInt16
    /// Its certificate (PEM file): the authority to trust.
    let certificate: String
    private let server: HTTPServer
    private let received = Received()

    /// The requests answered, and when the first and the last came: shared with the server's handler.
    private final class Received: Sendable {
        let state = Mutex<(count: Int, first: Double, last: Double)>((0, 0, 0))
    }

    /// A sink whose certificate, made in `directory` (files named after `name`), is for
    /// `subject` and `subjectAltName` (openssl's form: `IP:127.0.0.1`, `DNS:*.bench.example`).
    init(directory: String, name: String, subject: String, subjectAltName: String, status: Int) throws {
        let key = directory + "/\(name).key", certificate = directory + "/\(name).pem"
        let made = try ExternalTools.run([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=\(subject)",
            "-addext", "subjectAltName=\(subjectAltName)"
        ])
        guard made.status == 0 else { throw BenchError("openssl could not make a certificate: \(made.errors)") }
        let received = self.received
        var options = HTTPServer.Options()
        (options.host, options.port, options.threads) = ("127.0.0.1", 0, 2)
        options.tls = (
            try String(contentsOfFile: key, encoding: .utf8), try String(contentsOfFile: certificate, encoding: .utf8)
        )
        server = try HTTPServer(options: options) { _ in
            received.state.withLock { state in
                let at = now()
                state = (state.count + 1, state.count == 0 ? at : state.first, at)
            }
            return .now(HTTPResponse(status: status))
        }
        self.certificate = certificate
        port = server.port
    }

    /// The requests answered so far, and when the first and the last came (`now()`).
    var counts: (count: Int, first: Double, last: Double) { received.state.withLock { $0 } }

    /// Stops listening.
    func stop() { server.stop() }
}
