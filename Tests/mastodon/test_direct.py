#!/usr/bin/env python3
"""Direct messages through Mastodon.py against `timeline serve`: alice posts a `direct` status
of text alone mentioning bob; bob sees it in his conversations (unread, alice the other
participant, the status `direct`), in timelines/direct and as a `mention` notification whose
status is `direct`; carol (a stranger) sees nothing of it: not by id, not on alice's profile,
not in the public timeline, not in her conversations; bob's answer is the conversation's last
status; bob marks it read, removes it from his list (alice keeps it); a new message brings it
back; a direct status cannot be boosted; the `direct` stream sends a `conversation`; a direct reply
(`in_reply_to_id` a direct status, `visibility: direct`) is a message of the same conversation,
its last status for both, even without an @mention, names the message it answers (its
`in_reply_to_id` and `in_reply_to_account_id`), and carol still sees nothing.
Usage: test_direct.py BASE_URL ALICE_TOKEN BOB_TOKEN CAROL_TOKEN
Prints `ok - …` lines; exits 1 on a failure."""
import json
import sys
import threading
import time

import requests
from mastodon import Mastodon, MastodonNotFoundError, MastodonAPIError
from checks import check

base, alice_token, bob_token, carol_token = sys.argv[1:]
a = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")
c = Mastodon(access_token=carol_token, api_base_url=base, version_check_mode="none")


alice, bob = a.me(), b.me()
dm = a.status_post("@bob lunch at noon? #secretlunch", visibility="direct")
check(dm.visibility == "direct" and dm.media_attachments == [], "a direct status of text alone")
check([m.id for m in dm.mentions] == [bob.id], "it mentions bob")

conversations = b.conversations()
check(len(conversations) == 1, f"bob has one conversation ({len(conversations)})")
conversation = conversations[0]
check(conversation.unread is True, "unread for bob")
check([acct.id for acct in conversation.accounts] == [alice.id], "alice is the other participant")
check(conversation.last_status.id == dm.id and conversation.last_status.visibility == "direct",
      "its last status is the direct message")
check([s.id for s in b.timeline("direct")] == [dm.id], "bob's direct timeline holds it")
# Bob does not follow alice: Mastodon's standard policy holds a private mention in a request.
check(not [n for n in b.notifications() if n.status and n.status.id == dm.id], "the mention is not in bob's list")
requests_held = b.notification_requests()
check([r.account.id for r in requests_held] == [alice.id], "it is held in a notification request from alice")
b.accept_notification_request(requests_held[0].id)
mentions = [n for n in b.notifications() if n.type == "mention" and n.status and n.status.id == dm.id]
check(len(mentions) == 1 and mentions[0].status.visibility == "direct", "accepted: a mention, status direct")
check(a.conversations()[0].unread is False, "the author's own message leaves it read for her")

# Carol, a stranger, sees nothing of it.
try:
    c.status(dm.id)
    check(False, "carol reads the direct status by id")
except MastodonNotFoundError:
    check(True, "the direct status is 404 for carol")
check(dm.id not in [s.id for s in c.account_statuses(alice.id)], "not on alice's profile for carol")
check(dm.id not in [s.id for s in c.timeline_public()], "not in the public timeline")
check(dm.id not in [s.id for s in c.timeline_hashtag("secretlunch")], "not under its hashtag")
check(c.conversations() == [] and c.timeline("direct") == [], "carol has no conversation")
try:
    b.status_reblog(dm.id)
    check(False, "bob boosts the direct status")
except MastodonAPIError:
    check(True, "a direct status cannot be boosted")

# The direct stream, over Server-Sent Events and a WebSocket: a `conversation` as bob answers.
from mastodon import StreamListener


class Listener(StreamListener):
    def __init__(self):
        self.seen = []

    def on_conversation(self, conversation):
        self.seen.append(conversation)


ws = Listener()
a.stream_direct(ws, websocket_handle=a.stream_open_websocket())
sse = requests.get(f"{base}/api/v1/streaming/direct", headers={"Authorization": f"Bearer {alice_token}"},
                   stream=True, timeout=10)
check(sse.status_code == 200 and sse.headers["Content-Type"].startswith("text/event-stream"),
      "GET /api/v1/streaming/direct is a stream")
lines = []


def read_sse():
    for line in sse.iter_lines(decode_unicode=True):
        lines.append(line)
        if line.startswith("data: {") and any(l == "event: conversation" for l in lines):
            return


reader = threading.Thread(target=read_sse, daemon=True)
reader.start()
answer = b.status_post("@alice yes!", visibility="direct")
reader.join(timeout=10)
events = [l for l in lines if l.startswith("event: ")]
check("event: conversation" in events, f"the direct stream sent a conversation ({events})")
payload = json.loads([l for l in lines if l.startswith("data: {")][-1][len("data: "):])
check(payload["last_status"]["id"] == answer.id and payload["unread"] is True,
      "its payload is the Conversation, the answer its last status, unread for alice")
sse.close()

deadline = time.time() + 10
while time.time() < deadline and not ws.seen:
    time.sleep(0.1)
check([x.last_status.id for x in ws.seen] == [answer.id], "stream_direct over the WebSocket: the same conversation")
conversation = b.conversations()[0]
check(conversation.last_status.id == answer.id, "bob's answer is the last status")
read = b.conversations_read(conversation.id)
check(read.unread is False and read.id == conversation.id, "conversations_read marks it read")
removed = requests.delete(f"{base}/api/v1/conversations/{conversation.id}",
                          headers={"Authorization": f"Bearer {bob_token}"})
check(removed.status_code == 200 and removed.json() == {}, "DELETE /api/v1/conversations/:id answers {}")
check(b.conversations() == [], "removed from bob's list")
check(len(a.conversations()) == 1, "alice keeps it")
again = a.status_post("@bob 1pm then", visibility="direct")
check([x.last_status.id for x in b.conversations()] == [again.id], "a new message brings it back")

# A direct reply, as Mastodon's clients send it: in_reply_to_id the message, visibility direct.
# It is a message of the conversation (not a comment), even without an @mention of bob.
reply = b.status_post("see you there", in_reply_to_id=again.id, visibility="direct")
check(reply.visibility == "direct" and [m.id for m in reply.mentions] == [], "the direct reply is a direct status")
check(reply.in_reply_to_id == again.id and reply.in_reply_to_account_id == a.me().id,
      "the direct reply names the message it answers and its author")
check(a.status(reply.id).in_reply_to_id == again.id, "alice reads it as an answer to her message")
check([x.id for x in a.status_context(reply.id).ancestors] == [again.id], "its context: the message it answers")
check(again.in_reply_to_id is None and again.in_reply_to_account_id is None, "a first message answers none")
check([x.last_status.id for x in a.conversations()] == [reply.id], "alice's one conversation: the reply is its last")
check([x.last_status.id for x in b.conversations()] == [reply.id], "bob's one conversation: the reply is its last")
check(a.conversations()[0].unread is True, "unread for alice")
check(reply.id in [s.id for s in a.timeline("direct")], "in alice's direct timeline")
try:
    c.status(reply.id)
    check(False, "carol reads the direct reply")
except MastodonNotFoundError:
    check(True, "the direct reply is 404 for carol")
check(c.conversations() == [], "carol still has no conversation")
answered = a.status_reply(reply, "ok!", visibility="direct")
check([x.last_status.id for x in b.conversations()] == [answered.id] and len(b.conversations()) == 1,
      "Mastodon.py's status_reply (it adds @bob) stays in the same conversation")
try:
    c.status_post("me too", in_reply_to_id=reply.id, visibility="direct")
    check(False, "carol answers a direct message she cannot see")
except MastodonNotFoundError:
    check(True, "carol's direct reply to a message she cannot see is 404")
print("ok - every direct message call")
