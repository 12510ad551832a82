"""The test push services' common part: a certificate authority for loopback, and an HTTPS
server on 127.0.0.1 that hands each POST to the test and answers the status it says. Used by
test_push.py, test_push_crash.py, test_push_outbox.py and Tests/browser/test_push_browser.py; with
the checks' printer and a subscriber's keys the scripts share."""
import base64
import http.server
import os
import ssl
import subprocess
import sys
import threading


def make_ca(directory):
    """Writes `ca.pem` (a P-256 authority: `timeline serve --push-ca-file DIR/ca.pem` trusts it)
    and `server.pem`/`server.key` (its certificate for 127.0.0.1) into `directory`."""
    run = lambda *args: subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=Timeline test push CA")
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1")
    with open(os.path.join(directory, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
        "-days", "2", "-extfile", "san.ext")


def start(directory, on_post):
    """An HTTPS push service on loopback with the certificate `make_ca` wrote in `directory`,
    served from a daemon thread: `on_post(path, headers, body)` gets each delivery (headers as a
    dict) and answers its status (201 when it answers None). Returns the server (`server_port`,
    `shutdown()`)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(on_post(self.path, dict(self.headers), body) or 201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(directory, "server.pem"), os.path.join(directory, "server.key"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def check(condition, what):
    """Prints `ok - what`, or `FAILED: what` and exits 1."""
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok - {what}")


def b64(data):
    """Base64url without padding, as push subscriptions carry keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def subscriber_keys():
    """A browser's push keys: its P-256 private key, the public key (uncompressed point) and a
    16-byte auth secret."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    receiver = ec.generate_private_key(ec.SECP256R1())
    public = receiver.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return receiver, public, os.urandom(16)
