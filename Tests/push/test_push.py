#!/usr/bin/env python3
"""Web Push end to end: a test push service — an HTTPS server on loopback with its own certificate
authority (`make-ca DIR` writes it; `timeline serve --push-ca-file DIR/ca.pem` trusts it) — receives
what `timeline serve` pushes; http_ece (PyPI) decrypts each message with the subscriber's key and
`cryptography` verifies its VAPID signature. Subscriptions are made with Mastodon.py.
Usage: test_push.py make-ca DIR | test_push.py sink DIR
     | test_push.py run BASE DIR ALICE_TOKEN ALICE_TOKEN2 BOB_TOKEN CAROL_TOKEN POST_ID PHOTO
Prints `ok - …` lines; exits 1 on a failure."""
import base64
import json
import sys
import threading
import time

import http_ece
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils

import push_service


check = push_service.check


def b64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


if sys.argv[1] == "make-ca":
    push_service.make_ca(sys.argv[2])
    sys.exit(0)

if sys.argv[1] == "sink":
    # A push service that prints each delivery's Topic (one line each) and answers 201.
    sink = push_service.start(sys.argv[2], lambda path, headers, body: print("delivery", headers["Topic"], flush=True))
    print("port", sink.server_port, flush=True)
    threading.Event().wait()

from mastodon import Mastodon

base, directory, alice_token, alice_token2, bob_token, carol_token, post, photo_path = sys.argv[2:]
received = []
lock = threading.Lock()


def deliver(path, headers, body):
    with lock:
        received.append((time.time(), path, headers, body))
    return 410 if path.startswith("/gone") else 201


push = f"https://127.0.0.1:{push_service.start(directory, deliver).server_port}"

alice = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
alice2 = Mastodon(access_token=alice_token2, api_base_url=base, version_check_mode="none")
bob = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")
carol = Mastodon(access_token=carol_token, api_base_url=base, version_check_mode="none")
private, public = alice.push_subscription_generate_keys()
secret = public["auth"]
subscription = alice.push_subscription_set(push + "/push/alice", public, mention_events=True, follow_events=True,
                                           favourite_events=False, policy="all", standard=True)
check(subscription.endpoint == push + "/push/alice" and subscription.alerts.mention and not subscription.alerts.favourite
      and len(b64(subscription.server_key)) == 65, "push_subscription_set: the endpoint, the alerts, the VAPID server key")
check(alice.push_subscription().endpoint == push + "/push/alice", "push_subscription reads it back")


def wait_for(count, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        with lock:
            if len(received) >= count:
                return True
        time.sleep(0.02)
    return False


def open_message(index):
    _, path, headers, body = received[index]
    receiver = ec.derive_private_key(private["privkey"], ec.SECP256R1())
    if headers["Content-Encoding"] == "aesgcm":
        # The legacy coding: the salt and the server's key travel in headers.
        salt = b64(headers["Encryption"].split("salt=")[1])
        dh = b64(headers["Crypto-Key"].split("dh=")[1])
        message = json.loads(http_ece.decrypt(body, salt=salt, dh=dh, private_key=receiver, auth_secret=secret, version="aesgcm"))
    else:
        message = json.loads(http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm"))
    scheme, _, rest = headers["Authorization"].partition(" ")
    fields = dict(part.strip().split("=", 1) for part in rest.split(","))
    header, claims, signature = fields["t"].split(".")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64(fields["k"]))
    raw = b64(signature)
    key.verify(utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
               f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    return path, headers, message, json.loads(b64(claims))


started = time.time()
bob.status_post("lovely light", in_reply_to_id=post)
check(wait_for(1, 1.0), f"a comment on a photo reaches its owner within a second ({time.time() - started:.2f} s)")
path, headers, message, claims = open_message(0)
# Mastodon.py never sends subscription[standard]: as Mastodon, that is the legacy aesgcm.
check(path == "/push/alice" and headers["Content-Encoding"] == "aesgcm" and int(headers["TTL"]) > 0 and headers["Urgency"]
      and headers["Topic"], "aesgcm for a subscription that is not standard (as Mastodon), with TTL, Urgency and Topic")
check(message["notification_type"] == "mention" and message["title"] == "bob commented on your photo"
      and message["notification_id"] == alice.notifications(limit=1)[0].id
      # No address (every account here is NAME@example.com); a post's page, /@name/POST, may
      # carry an @ of its own, so the check names the domain.
      and "@example.com" not in json.dumps(message) and alice_token not in json.dumps(message),
      "Mastodon's push JSON: no email, no token; http_ece decrypts it")
check(claims["aud"] == push and claims["sub"].startswith("mailto:"), "VAPID: signed for the push service's origin")

def since(start):
    """The bodies of the messages received from index `start` on."""
    with lock:
        count = len(received)
    return [open_message(index)[2]["body"] for index in range(start, count)]


def only_the_sentinel(start, author, what):
    """`author` comments on alice's post, which her subscription wants (a sentinel); once it has
    arrived, it must be the one message since `start`. No fixed wait: the planner turns the log
    into deliveries in log order, so a push that must not be made would have been queued before
    the sentinel's, and taken by a sender no later (the final sweep below catches one still in
    flight on another sender). The 10 s is a bound for a loaded machine, not a timing."""
    text = f"sentinel {start}"
    author.status_post(text, in_reply_to_id=post)
    arrived = wait_for(start + 1, 10.0)
    check(arrived and since(start) == [text], f"{what} (pushed since: {since(start)})")


bob.status_favourite(post)
only_the_sentinel(1, bob, "a like pushes nothing to a subscription without the favourite alert")
alice.account_mute(carol.account_verify_credentials().id)
carol.status_post("hi alice", in_reply_to_id=post)
only_the_sentinel(2, bob, "a muted user's comment pushes nothing")
# Blocked: carol (unmuted now) is blocked by alice; her mention of alice pushes nothing.
carol_id = carol.account_verify_credentials().id
alice.account_unmute(carol_id)
alice.account_block(carol_id)
carol.status_post("look @alice", media_ids=[carol.media_post(photo_path, mime_type="image/png").id])
only_the_sentinel(3, bob, "a blocked user's mention pushes nothing")

# The policy: `followed` pushes only what accounts alice follows do. The sentinel is dave's, whom
# alice follows (following bob instead would change what the refused push is judged by).
made = requests.post(base + "/v1/users",
                     json={"username": "dave", "email": "dave@example.com", "password": "password-123"})
dave = Mastodon(access_token=made.json()["session"], api_base_url=base, version_check_mode="none")
alice.account_follow(dave.account_verify_credentials().id)
updated = alice.push_subscription_update(policy="followed", mention_events=True, follow_events=True)
check(updated.policy == "followed" and updated.alerts.mention, "push_subscription_update: the policy and alerts")
bob.status_post("from someone alice does not follow", in_reply_to_id=post)
only_the_sentinel(4, dave, "policy followed: a comment by an account alice does not follow pushes nothing")
bob_id = bob.account_verify_credentials().id
alice.account_follow(bob_id)
bob.status_post("now alice follows me", in_reply_to_id=post)
check(wait_for(6, 3.0) and since(5) == ["now alice follows me"],
      "policy followed: once alice follows bob, his comment is pushed")
alice.account_unfollow(bob_id)
alice.push_subscription_update(policy="all", mention_events=True, follow_events=True)

# The notification policy: alice holds what accounts she does not follow do (a notification
# request); bob's comment, held, pushes nothing, whatever the subscription's policy.
policy_url, auth_header = base + "/api/v2/notifications/policy", {"Authorization": "Bearer " + alice_token}
requests.patch(policy_url, headers=auth_header, data={"for_not_following": "filter"}).raise_for_status()
bob.status_post("held by alice's notification policy", in_reply_to_id=post)
only_the_sentinel(6, dave, "a notification alice's notification policy holds pushes nothing")
requests.patch(policy_url, headers=auth_header, data={"for_not_following": "accept"}).raise_for_status()

alice2.push_subscription_set(push + "/gone/alice2", public, follow_events=True, mention_events=True, standard=True)
bob.account_unfollow(alice.account_verify_credentials().id)
bob.account_follow(alice.account_verify_credentials().id)
check(wait_for(9, 3.0), "a follow is pushed to both subscriptions")
deadline = time.time() + 5
gone = False
while time.time() < deadline and not gone:
    try:
        alice2.push_subscription()
    except Exception:
        gone = True
    time.sleep(0.1)
check(gone, "410 from the push service ends that subscription")
check(alice.push_subscription().endpoint == push + "/push/alice", "the other subscription stays")

# The bell: alice follows bob asking to be told of his posts (notify), with the `status` alert on;
# his next post is pushed, its caption as the body.
alice.push_subscription_update(policy="all", status_events=True)
alice.account_follow(bob_id, notify=True)
count = len(received)
bobs = bob.status_post("bob's new photo", media_ids=[bob.media_post(photo_path, mime_type="image/png").id])
check(wait_for(count + 1, 3.0), "a post of an account alice asked to be notified of is pushed")
_, _, message, _ = open_message(count)
check(message["notification_type"] == "status" and message["title"] == "bob posted a photo" and message["body"] == "bob's new photo"
      and message["url"] == bobs.url, f"the status push: type, title, the caption as its body, the post's link ({message})")

# Filters: a comment alice's notification filter hides pushes nothing; one a warning filter
# matches is pushed without its words (the title as its body).
muted = alice.create_filter_v2("No spoilers", ["notifications"], "hide",
                               keywords_attributes=[{"keyword": "spoiler", "whole_word": True}])
count = len(received)
bob.status_post("a spoiler for alice", in_reply_to_id=post)
only_the_sentinel(count, dave, "a comment alice's hide filter matches pushes nothing")
alice.update_filter_v2(muted.id, filter_action="warn")
count = len(received)
bob.status_post("another spoiler", in_reply_to_id=post)
check(wait_for(count + 1, 3.0), "a comment a warning filter matches is pushed")
_, _, message, _ = open_message(count)
check(message["body"] == message["title"] and "spoiler" not in json.dumps(message),
      f"its push says no words of it ({message})")
alice.delete_filter_v2(muted.id)

# The sweep: every message received, up to the last one awaited above (a sentinel for all before
# it), is none of those that must not be pushed.
refused = {"hi alice", "look @alice", "from someone alice does not follow", "held by alice's notification policy",
           "a spoiler for alice"}
types = [open_message(index)[2]["notification_type"] for index in range(len(received))]
check("favourite" not in types and not refused & set(since(0)), f"no refused push arrived late ({since(0)})")
