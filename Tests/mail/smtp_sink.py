"""An SMTP server on loopback for the reset-mail tests (aiosmtpd): prints `listening PORT`, then
one JSON line per message it is given ({"to": [...], "from": ..., "data": ...}). Runs until killed."""
import json
import socket
import sys
import time

from aiosmtpd.controller import Controller


class Sink:
    async def handle_DATA(self, server, session, envelope):
        line = {"from": envelope.mail_from, "to": envelope.rcpt_tos,
                "data": envelope.content.decode("utf-8", "replace")}
        print(json.dumps(line), flush=True)
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


port = free_port()
controller = Controller(Sink(), hostname="127.0.0.1", port=port)
controller.start()
print(f"listening {port}", flush=True)
try:
    while True:
        time.sleep(3600)
finally:
    controller.stop()
