#!/usr/bin/env python3
"""What a stream's `delete` tells, through Mastodon.py and the streaming API (Server-Sent Events
and a WebSocket) against `timeline serve`. alice (the viewer) follows carol, not bob.

- A deleted post's id goes only where the post could be seen: bob's followers-only and direct
  #harbour posts deleted first, then his public one: the public stream's and the #harbour
  stream's first `delete` is the public post's (the streams keep the log's order, so the others
  were left out). On alice's user stream, carol's direct message to dave deleted, then her
  followers-only post: the first `delete` is the followers-only post's (alice follows carol).
- A boost taken back: carol boosts bob's public post (alice's user stream gets the reblog's
  `update`), then unreblogs it: the next event is a `delete` of the reblog's own status id,
  before carol's next post's `update`. The public
  stream, which never showed the boost, is not told (its first delete is still bob's post).
Usage: test_stream_deletes.py BASE_URL ALICE BOB CAROL DAVE IMAGE_PATH (tokens of fresh
accounts). Prints `ok - …` lines; exits 1 on a failure."""
import json
import sys

import requests
import websocket
from mastodon import Mastodon
from checks import check

base, alice_token, bob_token, carol_token, dave_token, image_path = sys.argv[1:]
m, b, c, d = (Mastodon(access_token=t, api_base_url=base, version_check_mode="none")
              for t in (alice_token, bob_token, carol_token, dave_token))


def post(account, text, visibility="public"):
    with open(image_path, "rb") as file:
        media = account.media_post(file.read(), mime_type="image/png")
    return account.status_post(text, media_ids=[media.id], visibility=visibility)


def sse(path, **params):
    stream = requests.get(f"{base}{path}", params=params, stream=True, timeout=30,
                          headers={"Authorization": f"Bearer {alice_token}"})
    check(stream.status_code == 200 and stream.headers["Content-Type"].startswith("text/event-stream"),
          f"{path} opens")
    return stream, stream.iter_lines(chunk_size=1, decode_unicode=True)  # each line as it comes


def next_event(lines, wanted):
    """The next event of a kind in `wanted` and its data."""
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: ") and event in wanted:
            return event, line[len("data: "):]
    return None, None


check(m.account_follow(c.me().id).following is True, "alice follows carol")
d.me()
bob_private = post(b, "#harbour for bob's followers", "private")
bob_direct = post(b, "@dave #harbour only for dave", "direct")
bob_public = post(b, "#harbour for everyone")
carol_direct = post(c, "@dave just us", "direct")
carol_private = post(c, "for carol's followers", "private")
boosted = post(b, "worth a boost")

public, public_lines = sse("/api/v1/streaming/public")
user, user_lines = sse("/api/v1/streaming/user")
socket = websocket.create_connection(
    base.replace("http", "ws", 1) + f"/api/v1/streaming?access_token={alice_token}&stream=hashtag&tag=harbour",
    timeout=30)

b.status_delete(bob_private.id)
b.status_delete(bob_direct.id)
c.status_delete(carol_direct.id)
c.status_delete(carol_private.id)
boost = c.status_reblog(boosted.id)

event, data = next_event(user_lines, {"delete"})
check(data == str(carol_private.id),
      f"the user stream's first delete is carol's followers-only post (alice follows her), never her direct "
      f"message to dave ({data}; {carol_private.id}, hidden {carol_direct.id})")
# Read before the boost is taken back: a stream presents a boost when it sends it, and one already
# gone by then is not sent at all.
event, data = next_event(user_lines, {"update"})
update = json.loads(data)
check(update["id"] == str(boost.id) and update["reblog"]["id"] == str(boosted.id),
      "the user stream: carol's boost comes as an update, the reblog its own status")

c.status_unreblog(boosted.id)
after = post(c, "after the unboost")  # the sentinel: an update, after the unboost's delete
b.status_delete(bob_public.id)

event, data = next_event(public_lines, {"delete"})
public.close()
check(data == str(bob_public.id),
      f"the public stream's first delete is the public post's: never the followers-only or direct post's id, "
      f"nor the boost's ({data}; {bob_public.id}, hidden {bob_private.id} {bob_direct.id}, boost {boost.id})")
message = {}
while message.get("event") != "delete":
    message = json.loads(socket.recv())
socket.close()
check(message["stream"] == ["hashtag", "harbour"] and message["payload"] == str(bob_public.id),
      f"the WebSocket's #harbour stream: the first delete is the public post's ({message})")

event, data = next_event(user_lines, {"delete", "update"})
user.close()
check((event, data) == ("delete", str(boost.id)), f"unreblogged: the user stream's next delete is the reblog's id ({event} {data})")
print("ok - a stream's deletes tell only what it could see")
