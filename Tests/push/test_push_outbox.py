#!/usr/bin/env python3
"""The push outbox keeps no one's words or keys, and forgets what can no longer be sent: a real
`timeline serve` pushes to the test push service (HTTPS on loopback, its own CA), which answers 503
to every delivery so they wait in the outbox for their retries. The journal (DB/push/outbox.jsonl)
then holds neither the comment's text, nor the commenter's name, nor the endpoint, nor the keys;
a sign-out, an unsubscription and the erasure of the commenter take their deliveries out of the
journal, and those are never sent again, while a delivery still wanted keeps being retried (the
sentinel: it is retried twice more after the last of them, so theirs would have been too); a
block drops the blocked commenter's delivery when it is next taken; the subscriber's erasure
leaves no delivery and not her id.
Usage: test_push_outbox.py TIMELINE_BINARY CA_DIR PHOTO. Prints `ok - …`; exits 1 on a failure."""
import atexit
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import http_ece
import requests

import push_service

binary, ca, photo = sys.argv[1:]


check, b64 = push_service.check, push_service.b64
receiver, public, secret = push_service.subscriber_keys()
attempts = []  # (path, body) of every delivery the service got, in order
lock = threading.RLock()


def deliver(path, headers, body):
    message = json.loads(http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm"))
    with lock:
        attempts.append((path, message["body"]))
    return 503  # try again later: every delivery stays in the outbox


push = push_service.start(ca, deliver)
endpoint = f"https://127.0.0.1:{push.server_port}"
database = tempfile.mkdtemp() + "/db"
journal = database + "/push/outbox.jsonl"
server = subprocess.Popen([binary, "serve", "--db", database, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                           "--push-ca-file", ca + "/ca.pem", "--push-allow-private"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env={**os.environ, "TIMELINE_PASSWORD_COST": "minimum"})
atexit.register(server.kill)  # also when a check fails: no server is left behind
line, metrics_line = server.stdout.readline(), server.stdout.readline()
check(line.startswith("listening on ") and metrics_line.startswith("metrics on "), f"timeline serve started ({line.strip()})")
base, metrics = line.split()[-1], metrics_line.split()[-1]


def dropped():
    text = requests.get(metrics + "/metrics").text
    return int(next(l for l in text.splitlines() if l.startswith('timeline_push_deliveries_total{outcome="dropped"}')).split()[-1])


def wait_for(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return check(True, what)
        time.sleep(0.05)
    check(False, what)


def tried(path, text):
    with lock:
        return sum(1 for p, body in attempts if p == path and body == text)


def contents():
    with open(journal) as f:
        return f.read()


def sign_up(name):
    answer = requests.post(base + "/v1/users", json={"username": name, "email": f"{name}@example.com", "password": "password-123"}).json()
    return answer["session"], answer["user"]["id"]


auth = lambda token: {"Authorization": "Bearer " + token}
alice, alice_id = sign_up("alice")
bob, bob_id = sign_up("bobthecommenter")
carol, carol_id = sign_up("carol")
sessions = {"a1": alice}
for name in ("a2", "a3"):
    sessions[name] = requests.post(base + "/v1/sessions", json={"email": "alice@example.com", "password": "password-123"}).json()["session"]
for name, token in sessions.items():
    put = requests.put(base + "/v1/me/push", headers=auth(token),
                       json={"endpoint": f"{endpoint}/held/{name}", "p256dh": b64(public), "auth": b64(secret), "alerts": ["mention"]})
    check(put.status_code == 204, f"session {name} subscribes ({put.status_code} {put.text})")
with open(photo, "rb") as f:
    post = requests.post(base + "/v1/posts", headers=auth(alice), json={"image": base64.b64encode(f.read()).decode()}).json()["id"]

bob_words, carol_words = "the-words-of-bob " + b64(os.urandom(6)), "the-words-of-carol " + b64(os.urandom(6))
for token, text in ((bob, bob_words), (carol, carol_words)):
    answer = requests.post(base + f"/v1/posts/{post}/comments", headers=auth(token), json={"text": text})
    check(answer.status_code == 201, f"a comment ({answer.status_code})")
wait_for(lambda: all(tried(f"/held/{name}", text) for name in sessions for text in (bob_words, carol_words)), 15,
         "each of the 6 deliveries reached the push service, which answered 503: they wait in the outbox")

held = contents()
check('"queued"' in held, "the journal holds the deliveries waiting")
for what, text in (("the comment's text", bob_words), ("the other comment's text", carol_words), ("the commenter's name", "bobthecommenter"),
                   ("the endpoint", "/held/a1"), ("the push service's address", f"127.0.0.1:{push.server_port}"),
                   ("the p256dh key", b64(public)), ("the auth secret", b64(secret)), ("a token", alice)):
    check(text not in held, f"the journal does not hold {what}")

# hashToken: hex BLAKE2b-256 of the token, the subscription's name in the read models and the journal.
hashes = {name: hashlib.blake2b(token.encode(), digest_size=32).hexdigest() for name, token in sessions.items()}
check(all(hashes[name][:16] in held for name in sessions), "the journal names each delivery's subscription (its token's hash)")

# Ended: a1 signs out, a2 unsubscribes, carol (a commenter) is erased.
check(requests.delete(base + "/v1/sessions/current", headers=auth(sessions["a1"])).status_code == 204, "a1 signs out")
check(requests.delete(base + "/v1/me/push", headers=auth(sessions["a2"])).status_code in (200, 204), "a2 unsubscribes")
erased = requests.delete(base + "/v1/me", headers=auth(carol), json={"password": "password-123"})
check(erased.status_code in (200, 204), f"carol erases her account ({erased.status_code} {erased.text})")
wait_for(lambda: hashes["a1"][:16] not in contents(), 10, "the signed-out session's deliveries leave the journal")
wait_for(lambda: hashes["a2"][:16] not in contents(), 10, "the unsubscribed session's deliveries leave the journal")
wait_for(lambda: carol_id not in contents(), 10, "the erased commenter's deliveries leave the journal")
with lock:
    before = {path: sum(1 for p, _ in attempts if p == path) for path in ("/held/a1", "/held/a2")}
    carol_before = sum(1 for _, body in attempts if body == carol_words)
    sentinel = tried("/held/a3", bob_words)
rest = contents()
check(hashes["a3"][:16] in rest and '"queued"' in rest, "the delivery still wanted stays")

# The sentinel: a3's delivery of bob's comment is retried twice more (it was queued and failed
# with the others, so their retries would have come by then).
wait_for(lambda: tried("/held/a3", bob_words) >= sentinel + 2, 30, "the delivery still wanted is retried twice more")
with lock:
    after = {path: sum(1 for p, _ in attempts if p == path) for path in ("/held/a1", "/held/a2")}
    carol_after = sum(1 for _, body in attempts if body == carol_words)
check(after == before, f"nothing more is sent to the signed-out or unsubscribed sessions ({before} then {after})")
check(carol_after == carol_before, f"nothing more is sent of the erased commenter's comment ({carol_before} then {carol_after})")

# A block ends no subscription (no purge): the sender finds the notification gone from alice's
# activity when it next takes the delivery, and drops it; nothing is left to send.
dropped_before = dropped()
check(requests.put(base + f"/v1/me/blocks/{bob_id}", headers=auth(sessions["a3"])).status_code in (200, 204), "alice blocks bob")
wait_for(lambda: dropped() == dropped_before + 1 and '"queued"' not in contents(), 30,
         "the blocked commenter's delivery is dropped when next taken: the journal holds none")

# The subscriber erased: her id leaves the journal (the position's line alone is left).
dave, _ = sign_up("dave")
answer = requests.post(base + f"/v1/posts/{post}/comments", headers=auth(dave), json={"text": "hi"})
check(answer.status_code == 201, "another comment, pushed to her (and held)")
wait_for(lambda: hashes["a3"][:16] in contents(), 10, "its delivery is in the journal")
erased = requests.delete(base + "/v1/me", headers=auth(sessions["a3"]), json={"password": "password-123"})
check(erased.status_code in (200, 204), f"alice erases her account ({erased.status_code} {erased.text})")
wait_for(lambda: hashes["a3"][:16] not in contents() and alice_id not in contents() and '"queued"' not in contents(), 10,
         "the erased subscriber's deliveries leave the journal: none is left")

server.terminate()
server.wait(timeout=30)
push.shutdown()
