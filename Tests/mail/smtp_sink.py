"""An SMTP server on loopback for the reset-mail tests (aiosmtpd): prints `listening PORT`, then
one JSON line per message it is given ({"to": [...], "from": ..., "data": ..., "tls": bool}).
With `--starttls DIR` it writes a certificate authority (DIR/ca.pem) and its certificate for
127.0.0.1 there, offers STARTTLS and refuses mail without it. Runs until killed."""
import json
import os
import socket
import ssl
import sys
import time

from aiosmtpd.controller import Controller


class Sink:
    async def handle_DATA(self, server, session, envelope):
        line = {"from": envelope.mail_from, "to": envelope.rcpt_tos,
                "data": envelope.content.decode("utf-8", "replace"), "tls": session.ssl is not None}
        print(json.dumps(line), flush=True)
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


port = free_port()
tls = {}
if len(sys.argv) == 3 and sys.argv[1] == "--starttls":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "push"))
    import push_service  # noqa: E402

    push_service.make_ca(sys.argv[2])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(sys.argv[2], "server.pem"), os.path.join(sys.argv[2], "server.key"))
    tls = {"tls_context": context, "require_starttls": True}
controller = Controller(Sink(), hostname="127.0.0.1", port=port, **tls)
controller.start()
print(f"listening {port}", flush=True)
try:
    while True:
        time.sleep(3600)
finally:
    controller.stop()
