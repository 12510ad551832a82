#!/usr/bin/env python3
"""Web Push after a crash: `timeline serve` is SIGKILLed with deliveries pending and started again
on the same database; every notification then reaches the test push service (HTTPS on loopback,
its own CA), decrypted by http_ece, and none twice but those in flight at the kill, which carry
the same notification_id (a receiver drops the repeat). Also: a push service that answers slowly
does not slow commands, and /v1/me/push subscribes and reads back.
Usage: test_push_crash.py TIMELINE_BINARY CA_DIR PHOTO. Prints `ok - …`; exits 1 on a failure."""
import base64
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import http_ece
import requests

import push_service
from cryptography.hazmat.primitives.asymmetric import ec

binary, ca, photo = sys.argv[1:]


check, b64 = push_service.check, push_service.b64
receiver, public, secret = push_service.subscriber_keys()
received = collections.Counter()
lock = threading.Lock()
delay = {"seconds": 0.3}


def deliver(path, headers, body):
    time.sleep(delay["seconds"] if path.startswith("/slow") is False else 8)
    assert headers["Content-Encoding"] == "aes128gcm"  # /v1/me/push subscriptions are standard unless they say otherwise
    message = json.loads(http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm"))
    with lock:
        received[(path, message["notification_id"])] += 1


push = push_service.start(ca, deliver)
endpoint = f"https://127.0.0.1:{push.server_port}"
database = tempfile.mkdtemp() + "/db"


def serve():
    process = subprocess.Popen([binary, "serve", "--db", database, "--listen", "127.0.0.1:0", "--push-ca-file", ca + "/ca.pem",
                                "--push-allow-private"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    check(line.startswith("listening on "), f"timeline serve started ({line.strip()})")
    return process, line.split()[-1]


server, base = serve()
users = {}
for name in ("alice", "bob"):
    users[name] = requests.post(base + "/v1/users", json={"username": name, "email": f"{name}@example.com", "password": "password-123"}).json()["session"]
auth = lambda name: {"Authorization": "Bearer " + users[name]}
put = requests.put(base + "/v1/me/push", headers=auth("alice"),
                   json={"endpoint": endpoint + "/push/alice", "p256dh": b64(public), "auth": b64(secret), "alerts": ["mention"]})
check(put.status_code == 204, f"PUT /v1/me/push subscribes ({put.status_code} {put.text})")
mine = requests.get(base + "/v1/me/push", headers=auth("alice")).json()
check(mine["endpoint"] == endpoint + "/push/alice" and mine["alerts"] == ["mention"] and len(base64.urlsafe_b64decode(mine["serverKey"] + "==")) == 65,
      "GET /v1/me/push reads it back, with the VAPID key")
with open(photo, "rb") as f:
    post = requests.post(base + "/v1/posts", headers=auth("alice"), json={"image": base64.b64encode(f.read()).decode(), "caption": "sea"}).json()["id"]

count = 20
for n in range(count):
    requests.post(base + f"/v1/posts/{post}/comments", headers=auth("bob"), json={"text": f"comment {n}"})
# Killed once the first deliveries arrived (each takes the push service 0.3 s, four at a time):
# the rest are still queued. The 30 s is a bound, not a timing; 0.02 s is a polling interval.
deadline = time.time() + 30
while time.time() < deadline:
    with lock:
        before = sum(received.values())
    if before > 0:
        break
    time.sleep(0.02)
server.send_signal(signal.SIGKILL)
server.wait()
check(0 < before < count, f"killed with deliveries pending ({before} of {count} delivered)")
server, base = serve()
deadline = time.time() + 30
while time.time() < deadline:
    with lock:
        if len(received) >= count:
            break
    time.sleep(0.1)  # a polling interval
# No fixed wait for a late repeat: one more comment is the sentinel. The outbox sends in the
# order deliveries were queued, so a repeat (queued before the kill) is taken before it.
requests.post(base + f"/v1/posts/{post}/comments", headers=auth("bob"), json={"text": "the sentinel"})
deadline = time.time() + 30
while time.time() < deadline:
    with lock:
        if len(received) >= count + 1:
            break
    time.sleep(0.1)  # a polling interval
with lock:
    repeats = [key for key, times in received.items() if times > 1]
    distinct = len(received)
check(distinct == count + 1,
      f"after the restart every notification arrived, then the sentinel ({distinct} of {count + 1})")
check(len(repeats) <= 4, f"none twice but those in flight at the kill ({len(repeats)} repeated, by notification_id)")

# A push service that holds its answers does not slow commands.
slow = ec.generate_private_key(ec.SECP256R1())
requests.put(base + "/v1/me/push", headers=auth("alice"),
             json={"endpoint": endpoint + "/slow/alice", "p256dh": b64(public), "auth": b64(secret), "alerts": ["mention"]})
started = time.time()
for n in range(10):
    answer = requests.post(base + f"/v1/posts/{post}/comments", headers=auth("bob"), json={"text": f"slow {n}"})
    assert answer.status_code == 201, answer.text
elapsed = time.time() - started
check(elapsed < 4, f"10 comments while the push service holds every answer 8 s: {elapsed:.2f} s")
server.send_signal(signal.SIGTERM)
server.wait(timeout=30)
push.shutdown()
