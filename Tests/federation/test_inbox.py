#!/usr/bin/env python3
"""The inbox against a real `timeline serve` (#43), with a peer server of Python's own
(peer.py: an actor over HTTPS on loopback under the test's authority): a Follow signed with
httpsig (draft-cavage) is accepted, the follower is an account `peer@localhost:PORT` here, and
the peer receives an Accept that httpsig verifies with the followee's published key; Undo ends
it; a Follow signed with http-message-signatures (RFC 9421) is taken too; a locked account gets
a follow request and sends no Accept; and unsigned, forged, stale, tampered, oversized and
wrong-host requests are refused with nothing changed.
Then the outbox: alice's public and followers-only posts reach the peer as signed `Create`s
through its shared inbox, a direct message to others never does (one to the peer does, to it
alone; the peer's direct messages to alice are hers alone, one answering her public post too), a deletion is a `Delete`, an edit is an `Update`, a locked
account's approval sends its `Accept`, and a peer answering 500 gets the activity again, once.
The operator's `timeline federation block` refuses the peer's server and sends it nothing.
A server failing longer than the set-aside time is set aside, its deliveries kept, and
delivered once it answers again.
Usage: test_inbox.py BASE_URL CERTIFICATE KEY DATABASE TIMELINE METRICS_URL (the server run with
TIMELINE_FEDERATION_RETRY_UNIT_MS and TIMELINE_FEDERATION_SET_ASIDE_MS short, on DATABASE;
TIMELINE the `timeline` executable; METRICS_URL its operator listener). Prints `ok - …`; exits 1 on a failure."""
import base64
import email.utils
import json
import struct
import zlib
import sys
import time
import uuid

import subprocess

import requests

from peer import Peer, new_key

base, certificate, key, database, timeline, metrics = sys.argv[1:]
failures = 0


def check(condition, what):
    global failures
    print(("ok - " if condition else "not ok - ") + what)
    if not condition:
        failures += 1


def sign_up(name):
    answer = requests.post(f"{base}/v1/users", json={"username": name, "email": f"{name}@example.com",
                                                      "password": "password-123"}, timeout=30).json()
    return answer["session"], answer["user"]["id"]


def followers(user):
    return [u["username"] for u in requests.get(f"{base}/v1/users/{user}/followers", timeout=30).json()["items"]]


def follower_count(user):
    return requests.get(f"{base}/v1/users/{user}", timeout=30).json()["followerCount"]


def make_png():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes([200, 80, 40]) * 8 for _ in range(8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


png = make_png()
suffix = uuid.uuid4().hex[:6]
alice_token, alice = sign_up(f"alice{suffix}")
alice_actor = f"{base}/users/{alice}"
peer = Peer(certificate, key, authorized_fetch=True)  # it answers signed GETs alone, as GoToSocial
handle = f"peer@localhost:{peer.port}"

# A Follow signed by httpsig: accepted, and answered with an Accept signed by alice's key.
follow = peer.activity("Follow", alice_actor)
answer = peer.post_cavage(f"{base}/users/{alice}/inbox", follow)
check(answer.status_code == 202, f"a signed Follow is accepted ({answer.status_code} {answer.text[:200]})")
check(followers(alice) == [handle], f"the peer's actor follows alice as {handle}")
published = requests.get(alice_actor, headers={"Accept": "application/activity+json"}, timeout=30).json()
delivered = peer.wait_for("Accept")
check(delivered is not None, "the peer receives an Accept")
if delivered:
    path, headers, body, accept = delivered
    check(accept["actor"] == alice_actor and accept["object"]["type"] == "Follow"
          and accept["object"]["actor"] == peer.id and accept["object"]["object"] == alice_actor,
          "the Accept is alice's, of the peer's Follow of her")
    check(path == "/users/peer/inbox", "delivered to the peer's inbox")
    check(Peer.verify_cavage(path, headers, published["publicKey"]["publicKeyPem"].encode()),
          "httpsig verifies the Accept with alice's published key")
    check("keyId=\"" + alice_actor + "#main-key\"" in headers["Signature"], "signed with alice's #main-key")

# Undo of the Follow: it ends.
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Undo", follow))
check(answer.status_code == 202 and followers(alice) == [], "an Undo of the Follow ends it (shared inbox)")

# RFC 9421, through the shared inbox.
answer = peer.post_rfc9421(f"{base}/inbox", peer.activity("Follow", alice_actor))
check(answer.status_code == 202 and followers(alice) == [handle],
      f"a Follow signed per RFC 9421 is accepted ({answer.status_code} {answer.text[:200]})")

# Likes, a reply, a block and a report, each run as the peer's account here.
post = requests.post(f"{base}/v1/posts", json={"caption": "dusk", "image": base64.b64encode(png).decode()},
                     headers={"Authorization": f"Bearer {alice_token}"}, timeout=30).json()
note = f"{alice_actor}/statuses/{post['id']}"


def alice_post():
    return requests.get(f"{base}/v1/posts/{post['id']}", headers={"Authorization": f"Bearer {alice_token}"},
                        timeout=30).json()


like = peer.activity("Like", note)
answer = peer.post_cavage(f"{base}/inbox", like)
check(answer.status_code == 202 and alice_post()["likeCount"] == 1, "a Like of alice's post is a like")
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Undo", like))
check(answer.status_code == 202 and alice_post()["likeCount"] == 0, "its Undo takes it back")
# Announces, read as Mastodon addresses a reblog: one to the peer's followers alone is a boost
# that nobody here who does not follow the peer sees; a public one is a public boost.
peer_account = requests.get(f"{base}/api/v1/accounts/lookup", params={"acct": handle}, timeout=30).json()["id"]


def boosts_seen_by_anyone():
    statuses = requests.get(f"{base}/api/v1/accounts/{peer_account}/statuses", timeout=30).json()
    return [s["reblog"]["id"] for s in statuses if s.get("reblog")]


for to, cc, seen, what in [
        ([peer.id + "/followers"], [alice_actor], 0, "an Announce to the peer's followers alone is a boost for them"),
        (["https://www.w3.org/ns/activitystreams#Public"], [alice_actor, peer.id + "/followers"], 1,
         "a public Announce is a public boost")]:
    announce = dict(peer.activity("Announce", note), to=to, cc=cc)
    answer = peer.post_cavage(f"{base}/inbox", announce)
    check(answer.status_code == 202 and alice_post()["boostCount"] == 1 and len(boosts_seen_by_anyone()) == seen,
          f"{what} ({answer.status_code}, {len(boosts_seen_by_anyone())} seen by anyone)")
    answer = peer.post_cavage(f"{base}/inbox", peer.activity("Undo", announce))
    check(answer.status_code == 202 and alice_post()["boostCount"] == 0, "its Undo takes the boost back")

reply = peer.activity("Create", {
    "id": f"{peer.origin}/notes/{uuid.uuid4()}", "type": "Note", "attributedTo": peer.id, "inReplyTo": note,
    "to": ["https://www.w3.org/ns/activitystreams#Public"], "cc": [alice_actor],
    "content": '<p>Lovely &amp; warm <a href="https://x.example/tags/dusk">#<span>dusk</span></a></p>'
               '<p><script>alert(1)</script>second</p>'})
answer = peer.post_cavage(f"{base}/inbox", reply)
comments = alice_post()["comments"]["items"]
check(answer.status_code == 202 and [(c["authorUsername"], c["text"]) for c in comments]
      == [(handle, "Lovely & warm #dusk\n\nalert(1)second")],
      f"a public reply Note is a comment, its HTML as text ({[c.get('text') for c in comments]})")
# Delivered again as a server re-delivers it: signed anew (the same bytes again would be a replay).
answer = peer.post_cavage(f"{base}/inbox", dict(reply, id=f"{peer.origin}/activities/{uuid.uuid4()}"))
check(answer.status_code == 202 and len(alice_post()["comments"]["items"]) == 1,
      "the same reply delivered again is still one comment")
# Alice's own comment on her public post is served as a reply Note at its id.
own = requests.post(f"{base}/v1/posts/{post['id']}/comments", json={"text": "thank you"},
                    headers={"Authorization": f"Bearer {alice_token}"}, timeout=30).json()
served = requests.get(f"{alice_actor}/comments/{own['id']}", headers={"Accept": "application/activity+json"},
                      timeout=30)
check(served.status_code == 200 and served.json()["type"] == "Note" and served.json()["inReplyTo"] == note
      and "https://www.w3.org/ns/activitystreams#Public" in served.json()["to"],
      f"alice's comment is served as a public reply Note ({served.status_code})")
requests.delete(f"{base}/v1/comments/{own['id']}", headers={"Authorization": f"Bearer {alice_token}"}, timeout=30)
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Delete", {"id": reply["object"]["id"], "type": "Tombstone"}))
check(answer.status_code == 202 and alice_post()["comments"]["items"] == [], "its Delete deletes the comment")
check(peer.post_cavage(f"{base}/inbox", peer.activity("Like", f"{alice_actor}/statuses/nopost")).status_code == 404,
      "a Like of no post is not found")
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Block", alice_actor))
check(answer.status_code == 202 and followers(alice) == [], "a Block ends the peer's follow")
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Undo", peer.activity("Block", alice_actor)))
check(answer.status_code == 202, "its Undo is taken")

# The Mastodon API shows the follower as another server's account, and the server as a peer.
alice_number = requests.get(f"{base}/api/v1/accounts/lookup", params={"acct": f"alice{suffix}"}, timeout=30).json()["id"]
peer_follow = peer.activity("Follow", alice_actor)
peer.post_cavage(f"{base}/inbox", peer_follow)
entity = requests.get(f"{base}/api/v1/accounts/{alice_number}/followers", timeout=30).json()
check([(a["acct"], a["username"], a["url"], a["uri"]) for a in entity] == [(handle, "peer", peer.id, peer.id)],
      f"Mastodon's follower entity is {handle}, its url the actor ({entity})")
check(requests.get(f"{base}/api/v1/instance/peers", timeout=30).json() == [f"localhost:{peer.port}"],
      "instance/peers names the peer's host")

# A locked account: a follow request, accepted only when its owner approves it.
bob_token, bob = sign_up(f"bob{suffix}")
bob_actor = f"{base}/users/{bob}"
bob_auth = {"Authorization": f"Bearer {bob_token}"}
requests.patch(f"{base}/v1/me", json={"locked": True}, headers=bob_auth, timeout=30)
answer = peer.post_cavage(f"{base}/users/{bob}/inbox", peer.activity("Follow", bob_actor))
requested = requests.get(f"{base}/v1/me/follow-requests", headers=bob_auth, timeout=30).json()["items"]
check(answer.status_code == 202 and [u["username"] for u in requested] == [handle] and followers(bob) == [],
      "a Follow of a locked account is a follow request")
approved = requests.put(f"{base}/v1/me/follow-requests/{requested[0]['id']}", headers=bob_auth, timeout=30)
check(approved.status_code in (200, 204) and followers(bob) == [handle], "bob approves it")
from_bob = lambda activity: activity.get("actor") == bob_actor  # noqa: E731
check(peer.wait_for("Accept", where=from_bob) is not None, "the peer receives bob's Accept once he approved")
check(peer.count("Accept", where=from_bob) == 1, "one Accept from bob: none was sent for the request itself")

# Alice's posts reach her remote follower, signed; a direct message does not.
auth = {"Authorization": f"Bearer {alice_token}"}


def alice_posts(caption, visibility="public"):
    body = {"caption": caption, "visibility": visibility}
    if visibility != "direct":
        body["image"] = base64.b64encode(png).decode()
    answer = requests.post(f"{base}/v1/posts", json=body, headers=auth, timeout=30)
    assert answer.status_code == 201, answer.text
    return f"{alice_actor}/statuses/{answer.json()['id']}", answer.json()["id"]


def created(note_id):
    return lambda activity: activity.get("object", {}).get("id") == note_id


public_note, public_id = alice_posts("to everyone #sea")
delivered = peer.wait_for("Create", where=created(public_note))
check(delivered is not None, "alice's public post reaches the peer as a Create")
if delivered:
    path, headers, body, create = delivered
    check(path == "/inbox", "through its server's shared inbox")
    check(Peer.verify_cavage(path, headers, published["publicKey"]["publicKeyPem"].encode()),
          "httpsig verifies the Create with alice's key")
    check(create["object"]["attachment"][0]["mediaType"] == "image/jpeg"
          and "https://www.w3.org/ns/activitystreams#Public" in create["object"]["to"], "a public Note with its photo")
followers_note, followers_id = alice_posts("for my followers", "followers")
delivered = peer.wait_for("Create", where=created(followers_note))
check(delivered is not None and delivered[3]["object"]["to"] == [f"{alice_actor}/followers"],
      "a followers-only post reaches the follower, addressed to the followers")
requests.patch(f"{base}/v1/posts/{followers_id}", json={"caption": "for my followers, edited"}, headers=auth,
               timeout=30)
updated = peer.wait_for("Update", where=created(followers_note))
check(updated is not None and "edited" in updated[3]["object"]["content"] and updated[3]["object"]["updated"],
      "its edit reaches the follower as an Update of the Note")
direct_note, _ = alice_posts(f"@bob{suffix} only", "direct")
first_note, _ = alice_posts("after the message")
check(peer.wait_for("Create", where=created(first_note)) is not None, "a later post arrives")
second_note, _ = alice_posts("and another")
check(peer.wait_for("Create", where=created(second_note)) is not None
      and peer.count("Create", where=created(direct_note)) == 0, "the direct message never does")

# Direct messages both ways. Alice writes to the peer by its handle: the peer alone receives it,
# addressed and mentioning it, signed by alice.
to_peer_note, _ = alice_posts(f"@{handle} for your eyes only", "direct")
delivered = peer.wait_for("Create", where=created(to_peer_note))
check(delivered is not None and delivered[3]["object"]["to"] == [peer.id] and delivered[3]["object"]["cc"] == []
      and {"type": "Mention", "href": peer.id, "name": f"@{handle}"} in delivered[3]["object"]["tag"],
      f"alice's direct message reaches the peer, addressed to it alone ({delivered and delivered[3]['object']})")
if delivered:
    check(Peer.verify_cavage(delivered[0], delivered[1], published["publicKey"]["publicKeyPem"].encode()),
          "httpsig verifies it with alice's key")
here = base.split("://", 1)[1]


def direct_posts(token):
    return requests.get(f"{base}/v1/conversations/posts", headers={"Authorization": f"Bearer {token}"},
                        timeout=30).json()["items"]


def private_note(text, *, in_reply_to=None, to=None):
    """A Note as Mastodon writes a direct one: to alice alone, naming her by her name only."""
    note = {"id": f"{peer.origin}/notes/{uuid.uuid4()}", "type": "Note", "attributedTo": peer.id,
            "to": to or [alice_actor], "cc": [],
            "content": f'<p><span class="h-card"><a href="{alice_actor}" class="u-url mention">@<span>'
                       f'alice{suffix}</span></a></span> {text}</p>',
            "tag": [{"type": "Mention", "href": alice_actor, "name": f"@alice{suffix}@{here}"}]}
    if in_reply_to:
        note["inReplyTo"] = in_reply_to
    return peer.activity("Create", note)


# The peer writes to alice, as Mastodon does: a direct message to her, in her conversations.
answer = peer.post_cavage(f"{base}/inbox", private_note("psst"))
messages = direct_posts(alice_token)
check(answer.status_code == 202 and [(m["authorUsername"], m["caption"]) for m in messages][:1]
      == [(handle, f"@alice{suffix} psst")],
      f"the peer's direct message is one to alice ({[(m.get('authorUsername'), m.get('caption')) for m in messages]})")
check(all("psst" not in m["caption"] for m in direct_posts(bob_token)), "bob has nothing of it")
# A direct answer to alice's public post is not a comment anyone may read: a message to her.
before = alice_post()["commentCount"]
answer = peer.post_cavage(f"{base}/inbox", private_note("about your dusk", in_reply_to=note))
check(answer.status_code == 202 and alice_post()["commentCount"] == before
      and any(m["caption"].endswith("about your dusk") for m in direct_posts(alice_token)),
      "a direct answer to her public post is a message to her, not a comment")
# Nor is one to her followers-only post: a comment there would show to all her followers. Only a
# reply addressed to her followers (as Timeline sends a comment on such a post) is one.
def comment_count(post_id):
    return requests.get(f"{base}/v1/posts/{post_id}", headers=auth, timeout=30).json()["commentCount"]


before = comment_count(followers_id)
answer = peer.post_cavage(f"{base}/inbox", private_note("only for your eyes", in_reply_to=followers_note))
check(answer.status_code == 202 and comment_count(followers_id) == before
      and any(m["caption"].endswith("only for your eyes") for m in direct_posts(alice_token)),
      "a direct answer to her followers-only post is a message to her, not a comment her followers read")
to_followers = private_note("for all who read it", in_reply_to=followers_note, to=[alice_actor])
to_followers["object"]["cc"] = [f"{alice_actor}/followers"]
answer = peer.post_cavage(f"{base}/inbox", to_followers)
check(answer.status_code == 202 and comment_count(followers_id) == before + 1,
      "one addressed to her followers is a comment on it")
# One to nobody here is kept by nobody.
answer = peer.post_cavage(f"{base}/inbox", private_note("to someone else", to=[f"{peer.origin}/users/other"]))
check(answer.status_code == 202 and all("someone else" not in m["caption"] for m in direct_posts(alice_token)),
      "a direct Note to nobody here is not kept")

requests.delete(f"{base}/v1/posts/{public_id}", headers=auth, timeout=30)
deleted = peer.wait_for("Delete", where=lambda a: a.get("object", {}).get("id") == public_note)
check(deleted is not None and deleted[3]["object"]["type"] == "Tombstone", "its deletion reaches the peer")

# A server that answers 500 gets the activity again after a backoff, and takes it once.
peer.fail_next = 1
retried_note, _ = alice_posts("through a hiccup")
check(peer.wait_for("Create", where=created(retried_note)) is not None and len(peer.refused) == 1,
      "after a 500, the Create is delivered again")
check(peer.count("Create", where=created(retried_note)) == 1, "and taken once")


def metric(name):
    for line in requests.get(f"{metrics}/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


# A server that fails for longer than the set-aside time (TIMELINE_FEDERATION_SET_ASIDE_MS) is
# set aside: its deliveries wait, probed one at a time; when it answers again, they are sent.
peer.fail_next = 10 ** 6
down_notes = [alice_posts(f"while the peer is down {n}")[0] for n in range(3)]
deadline = time.monotonic() + 30
while metric("timeline_federation_servers_set_aside") != 1 and time.monotonic() < deadline:
    time.sleep(0.05)
check(metric("timeline_federation_servers_set_aside") == 1, "a server failing for longer is set aside")
check(metric("timeline_federation_pending_deliveries") >= 3, "its deliveries wait, not given up")
peer.fail_next = 0
check(all(peer.wait_for("Create", where=created(note)) is not None for note in down_notes),
      "back: the probe is taken and everything that waited is delivered")
check(all(peer.count("Create", where=created(note)) == 1 for note in down_notes), "each once")
check(metric("timeline_federation_servers_set_aside") == 0, "the server is no longer set aside")

# The operator blocks the peer's server: nothing from it is taken, nothing is sent to it.
peer_host = f"localhost:{peer.port}"


def federation(*words):
    return subprocess.run([timeline, "federation", "--db", database, *words], capture_output=True, text=True,
                          timeout=60)


blocked = federation("block", peer_host)
check(blocked.returncode == 0 and federation("blocks").stdout.split() == [peer_host],
      f"`timeline federation block` blocks the peer's server ({blocked.stderr.strip()})")
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Like", second_note))
check(answer.status_code == 403, f"an activity from the blocked server is refused ({answer.status_code})")
check(requests.get(f"{base}/api/v1/instance/peers", timeout=30).json() == [], "a blocked server is no peer")
while_blocked, _ = alice_posts("while they are blocked")
check(federation("unblock", peer_host).returncode == 0, "`timeline federation unblock` lifts it")
after_note, _ = alice_posts("after the block")
check(peer.wait_for("Create", where=created(after_note)) is not None
      and peer.count("Create", where=created(while_blocked)) == 0,
      "what was posted while it was blocked was never sent; what came after is")

# A Flag (Mastodon's report) of one post lands in the operator's queue, with its reason.
second_id = second_note.rsplit("/", 1)[1]
answer = peer.post_cavage(f"{base}/inbox", {**peer.activity("Flag", second_note), "content": "spam, surely"})
queue = json.loads(subprocess.run([timeline, "moderation", "--db", database, "list", "--json"], capture_output=True,
                                  text=True, timeout=60).stdout or "[]")
check(answer.status_code == 202 and any(item.get("post") == second_id and "spam, surely" in json.dumps(item)
                                        for item in queue), f"a Flag is a report in the queue ({queue})")

# Refusals: nothing changes.
carol_token, carol = sign_up(f"carol{suffix}")
carol_actor = f"{base}/users/{carol}"
before = follower_count(carol)
other_private, _ = new_key()
stale = email.utils.formatdate(time.time() - 13 * 3600, usegmt=True)
big = json.dumps({**peer.activity("Follow", carol_actor), "padding": "x" * (1 << 20)}).encode()
wrong_host = peer.activity("Follow", carol_actor, actor="https://elsewhere.example/users/peer")
tampered = json.dumps(peer.activity("Follow", carol_actor)).encode()
cases = {
    "unsigned": requests.post(f"{base}/inbox", json=peer.activity("Follow", carol_actor), timeout=30),
    "forged (another key under the peer's keyId)": peer.post_cavage(
        f"{base}/inbox", peer.activity("Follow", carol_actor), key=other_private),
    "stale (Date 13 hours ago)": peer.post_cavage(f"{base}/inbox", peer.activity("Follow", carol_actor), date=stale),
    "oversized (over 1 MiB)": peer.post_cavage(f"{base}/inbox", None, body=big),
    "wrong host (an actor on another host than the key)": peer.post_cavage(f"{base}/inbox", wrong_host),
    "signed for another host": peer.post_cavage(f"{base}/inbox", peer.activity("Follow", carol_actor),
                                                signed_host="elsewhere.example"),
    "tampered (the body is not the one signed)": peer.post_cavage(
        f"{base}/inbox", None, body=tampered.replace(b"Follow", b"Block_"), signed_body=tampered),
}
for what, answer in cases.items():
    check(answer.status_code in (401, 413), f"{what} is refused ({answer.status_code})")
check(follower_count(carol) == before, "none of them followed carol")
# Replayed: the peer's Follow of carol is taken once; after its Undo, the same signed request sent
# again (its Date still in the window) is refused, and carol is not followed again.
answer = peer.post_cavage(f"{base}/inbox", follow_carol := peer.activity("Follow", carol_actor))
check(answer.status_code == 202 and follower_count(carol) == before + 1, "the peer follows carol")
captured = peer.last_request
peer.post_cavage(f"{base}/inbox", peer.activity("Undo", follow_carol))
check(follower_count(carol) == before, "and unfollows her")
answer = Peer.resend(captured)
check(answer.status_code == 401 and follower_count(carol) == before,
      f"its Follow sent again as it was (a replay) is refused: carol is not followed again ({answer.status_code})")
fetches = peer.signed_gets
for _ in range(3):
    check(peer.post_cavage(f"{base}/inbox", peer.activity("Follow", carol_actor), key=other_private).status_code == 401,
          "a forged Follow in the peer's name is refused")
check(peer.signed_gets - fetches <= 1,
      f"three forgeries fetch the peer's actor at most once ({peer.signed_gets - fetches}): once a minute at most")

# Move: dan follows the peer; the peer moves to a new account, which says it is also the peer;
# dan then asks to follow the new one and no longer follows the peer. A Move to an account that
# does not say so is refused.
dan_token, dan = sign_up(f"dan{suffix}")
dan_auth = {"Authorization": f"Bearer {dan_token}"}
peer_id = requests.get(f"{base}/v1/users", params={"prefix": handle}, headers=dan_auth, timeout=30).json()["items"][0]["id"]
requests.put(f"{base}/v1/me/following/{peer_id}", headers=dan_auth, timeout=30).raise_for_status()
asked = peer.wait_for("Follow", where=lambda a: a["actor"] == f"{base}/users/{dan}")
check(asked is not None, "dan's follow of the peer reaches it")
peer.post_cavage(f"{base}/inbox", peer.activity("Accept", asked[3]))


def dan_follows():
    return [u["username"] for u in requests.get(f"{base}/v1/users/{dan}/following", timeout=30).json()["items"]]


check(dan_follows() == [handle], "the peer accepts: dan follows it")
stranger = Peer(certificate, key, name="stranger")
# A photo of the peer's post on another server (the stranger's): fetched as the server's own actor
# there, never with the key of dan, who follows the peer (that key could fetch what dan may see
# there for the peer to show here).
elsewhere = f"{stranger.origin}/media/photo.png"
peer.post_cavage(f"{base}/inbox", peer.activity("Create", {
    "id": f"{peer.origin}/notes/{uuid.uuid4()}", "type": "Note", "attributedTo": peer.id,
    "to": ["https://www.w3.org/ns/activitystreams#Public"], "content": "<p>from elsewhere</p>",
    "attachment": [{"type": "Image", "mediaType": "image/png", "url": elsewhere}]}))
signers = [signer for path, signer in stranger.get_signers if path == "/media/photo.png"]
check(signers and all(signer and "/users/" not in signer for signer in signers),
      f"a photo on another server than its author's is fetched signed by the server's own actor ({signers})")
answer = peer.post_cavage(f"{base}/inbox", {**peer.activity("Move", peer.id), "target": stranger.id})
check(answer.status_code == 403 and dan_follows() == [handle],
      f"a Move to an account that does not name the peer is refused ({answer.status_code})")
successor = Peer(certificate, key, name="successor")
successor.also_known_as = [peer.id]
answer = peer.post_cavage(f"{base}/inbox", {**peer.activity("Move", peer.id), "target": successor.id})
check(answer.status_code == 202 and dan_follows() == [], f"the Move is taken: dan no longer follows the peer ({answer.status_code})")
check(successor.wait_for("Follow", where=lambda a: a["actor"] == f"{base}/users/{dan}") is not None,
      "and asks to follow its new account")

# The actor deleted on its server: its account here is erased.
answer = peer.post_cavage(f"{base}/inbox", peer.activity("Delete", peer.id))
check(answer.status_code == 202 and [u["username"] for u in requests.get(
    f"{base}/v1/me/follow-requests", headers={"Authorization": f"Bearer {bob_token}"}, timeout=30).json()["items"]]
      == [] and alice_post()["comments"]["items"] == [], "a Delete of the actor erases its account and what it did")

# The peer answered signed GETs alone: every fetch of its actor was signed by this server's own
# actor (`/actor`, an Application), whose key httpsig checked.
check(peer.signed_gets >= 1 and peer.unsigned_gets == 0,
      f"every fetch from the peer was signed and verified ({peer.signed_gets} signed, {peer.unsigned_gets} refused)")
actor = requests.get(f"{base}/actor", headers={"Accept": "application/activity+json"}, timeout=30).json()
check(actor["type"] == "Application" and actor["publicKey"]["id"] == f"{base}/actor#main-key",
      "the server's own actor is served to an unsigned request")

sys.exit(1 if failures else 0)
