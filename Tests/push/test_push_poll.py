#!/usr/bin/env python3
"""A poll's end is pushed (Mastodon's `poll` alert) to its author and every voter who still may
see its post, once: a real `timeline serve`, restarted with its clock moved ahead
(TIMELINE_CLOCK_OFFSET_MS), pushes to the test push service (HTTPS on loopback, its own CA).

Poll A (followers-only) ends while the server is down: pushed at the next start. Poll B (public)
ends while the server runs: pushed then, not before. Pushed: alice (the author: "Your poll has
ended") and bob (a voter: "A poll by alice has ended"), with the notification ids bob's
`GET /api/v1/notifications?types[]=poll` answers. Not pushed: carol (voted, her subscription
without the poll alert), eve (voted, then blocked by alice), frank (voted in the followers-only
poll, then unfollowed alice). A third start, later still, pushes A and B no more: poll C, ending
after it, is the sentinel (its push arrives and the outbox holds nothing more to send; a repeat
would have been planned with it).
Usage: test_push_poll.py TIMELINE_BINARY CA_DIR PHOTO. Prints `ok - …`; exits 1 on a failure."""
import atexit
import base64
import datetime
import json
import os
import re
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
pushes = []  # (subscriber, message, arrival ms) of every delivery
lock = threading.Lock()


def deliver(path, headers, body):
    message = json.loads(http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm"))
    with lock:
        pushes.append((path.rsplit("/", 1)[-1], message, time.time() * 1000))
    return 201


push = push_service.start(ca, deliver)
endpoint = f"https://127.0.0.1:{push.server_port}"
database = tempfile.mkdtemp() + "/db"
journal = database + "/push/outbox.jsonl"
running = []


def start(offset_ms):
    server = subprocess.Popen([binary, "serve", "--db", database, "--listen", "127.0.0.1:0",
                               "--push-ca-file", ca + "/ca.pem", "--push-allow-private"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "TIMELINE_PASSWORD_COST": "minimum",
                                   "TIMELINE_CLOCK_OFFSET_MS": str(int(offset_ms))})
    running.append(server)
    line = server.stdout.readline()
    check(line.startswith("listening on "), f"timeline serve started, its clock {int(offset_ms / 1000)} s ahead")
    return server, line.split()[-1]


def stop(server):
    server.terminate()
    server.wait(timeout=30)


atexit.register(lambda: [s.kill() for s in running if s.poll() is None])


def wait_for(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return check(True, what)
        time.sleep(0.05)
    check(False, what)


def to(name):
    with lock:
        return [message for who, message, _ in pushes if who == name]


def settled(through):
    """The outbox planned the polls' ends up to `through` and holds nothing left to send."""
    text = open(journal).read()
    found = [int(m) for m in re.findall(r'"pollsThrough":\{"_0":(-?\d+)\}', text)]
    return '"queued"' not in text and found and max(found) >= through


auth = lambda token: {"Authorization": "Bearer " + token}
server, base = start(0)
tokens, ids = {}, {}
for name in ("alice", "bob", "carol", "eve", "frank"):
    answer = requests.post(base + "/v1/users", json={"username": name, "email": f"{name}@example.com",
                                                      "password": "password-123"}).json()
    tokens[name], ids[name] = answer["session"], answer["user"]["id"]
    alerts = ["mention"] if name == "carol" else ["poll", "mention"]
    put = requests.put(base + "/v1/me/push", headers=auth(tokens[name]),
                       json={"endpoint": f"{endpoint}/to/{name}", "p256dh": b64(public), "auth": b64(secret), "alerts": alerts})
    check(put.status_code == 204, f"{name} subscribes ({put.status_code} {put.text})")
for name in ("bob", "carol", "eve", "frank"):
    check(requests.put(base + f"/v1/me/following/{ids['alice']}", headers=auth(tokens[name])).status_code in (200, 204),
          f"{name} follows alice")
with open(photo, "rb") as f:
    image = base64.b64encode(f.read()).decode()


def poll(caption, visibility, expires_in, voters):
    made = requests.post(base + "/v1/posts", headers=auth(tokens["alice"]),
                         json={"image": image, "caption": caption, "visibility": visibility,
                               "pollOptions": ["yes", "no"], "pollExpiresIn": expires_in})
    check(made.status_code == 201, f"alice posts poll {caption} ({visibility}, {made.status_code})")
    found = requests.get(base + f"/v1/posts/{made.json()['id']}/poll", headers=auth(tokens["alice"])).json()
    for name in voters:
        voted = requests.post(base + f"/v1/polls/{found['id']}/votes", headers=auth(tokens[name]), json={"choices": ["0"]})
        check(voted.status_code == 204, f"{name} votes in {caption} ({voted.status_code} {voted.text})")
    # Its end (an ISO date) in ms since 1970.
    return datetime.datetime.fromisoformat(found["expiresAt"].replace("Z", "+00:00")).timestamp() * 1000


a_end = poll("poll-A", "followers", 300, ["bob", "carol", "eve", "frank"])
b_end = poll("poll-B", "public", 600, ["bob", "carol", "eve"])
check(requests.put(base + f"/v1/me/blocks/{ids['eve']}", headers=auth(tokens["alice"])).status_code in (200, 204),
      "alice blocks eve")
check(requests.delete(base + f"/v1/me/following/{ids['alice']}", headers=auth(tokens["frank"])).status_code in (200, 204),
      "frank unfollows alice (her followers-only poll is out of his sight)")
check(not pushes, "nothing is pushed before the polls end")
stop(server)

# Started again with the clock past A's end (it ended while the server was down) and B's 4 s ahead.
offset = b_end - time.time() * 1000 - 4000
server, base = start(offset)
check(a_end <= time.time() * 1000 + offset, "poll A ended while the server was down")
wait_for(lambda: any(m["body"] == "poll-A" for m in to("alice")) and any(m["body"] == "poll-A" for m in to("bob")), 20,
         "at start, poll A's end is pushed to its author and to bob, a voter")
wait_for(lambda: any(m["body"] == "poll-B" for m in to("bob")), 30, "poll B's end is pushed as it comes, while the server runs")
with lock:
    b_arrivals = [at for who, m, at in pushes if m["body"] == "poll-B"]
check(min(b_arrivals) >= b_end - offset - 50, "not before poll B ended (by the server's clock)")
wait_for(lambda: settled(b_end), 20, "the outbox has planned both ends and holds nothing more to send")
alice_said, bob_said = to("alice"), to("bob")
check(sorted(m["body"] for m in alice_said) == ["poll-A", "poll-B"] and sorted(m["body"] for m in bob_said) == ["poll-A", "poll-B"],
      "alice and bob are each pushed each end once")
check(all(m["notification_type"] == "poll" and m["title"] == "Your poll has ended" for m in alice_said),
      "the author is told her poll ended")
check(all(m["notification_type"] == "poll" and m["title"] == "A poll by alice has ended" for m in bob_said),
      "the voter is told a poll by alice ended")
listed = requests.get(base + "/api/v1/notifications", params={"types[]": "poll"}, headers=auth(tokens["bob"])).json()
check(sorted(n["id"] for n in listed) == sorted(m["notification_id"] for m in bob_said),
      "the pushes' notification ids are bob's poll notifications")
check(not to("carol"), "carol, whose subscription wants no poll alert, is pushed nothing")
check(not to("eve"), "eve, blocked by alice since she voted, is pushed nothing")
check(not to("frank"), "frank, who unfollowed alice, is pushed nothing of her followers-only poll")

c_end = poll("poll-C", "public", 300, ["bob"])
stop(server)

# A third start, C's end 3 s ahead: A and B were pushed already and are not pushed again.
offset = c_end - time.time() * 1000 - 3000
server, base = start(offset)
wait_for(lambda: any(m["body"] == "poll-C" for m in to("bob")) and settled(c_end), 30,
         "poll C's end is pushed after the restart, and the outbox holds nothing more to send")
check(sorted(m["body"] for m in to("bob")) == ["poll-A", "poll-B", "poll-C"]
      and sorted(m["body"] for m in to("alice")) == ["poll-A", "poll-B", "poll-C"],
      "after the restart, no end is pushed twice")
stop(server)
push.shutdown()
