#!/usr/bin/env python3
"""Followed hashtags and the hashtag stream through Mastodon.py (and plain requests for the
Server-Sent Events) against `timeline serve`: alice follows #harbour (twice: the same answer),
reads the tag and her followed tags (paged by the Link header), opens the hashtag stream; then a
locked account's tagged post, a blocked account's and a followers-only one are made before a
public one: the stream's first update is the public post (the stream keeps the log's order, so the
others were left out), and alice's home timeline holds it once, nothing of the others; a boost of
it by someone she follows does not show it again; unfollowing takes it out.
Usage: test_followed_tags.py BASE_URL ALICE_TOKEN BOB_TOKEN CAROL_TOKEN DAVE_TOKEN IMAGE_PATH
(bob, carol and dave are fresh accounts nobody follows). Prints `ok - …` lines; exits 1 on a failure."""
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


tag = m.tag_follow("Harbour")
check(tag.name == "harbour" and tag.following is True, f"tag_follow: following ({tag})")
check(m.tag_follow("harbour").following is True, "tag_follow again: the same answer")
check(m.tag("harbour").following is True and b.tag("harbour").following is False, "tag: following is the bearer's")
m.tag_follow("sea")
first = m.followed_tags(limit=1)
check([t.name for t in first] == ["sea"], "followed_tags: the latest followed first")
rest = m.fetch_next(first)
check(rest is not None and [t.name for t in rest] == ["harbour"], "followed_tags: the next page by the Link header")
m.tag_unfollow("sea")
check([t.name for t in m.followed_tags()] == ["harbour"], "tag_unfollow: the tag leaves the list")

me = m.me()
bob = b.me()
d.account_update_credentials(locked=True)
m.account_block(c.me().id)
check(m.account_follow(bob.id).following is True, "alice follows bob")

stream = requests.get(f"{base}/api/v1/streaming/hashtag", params={"tag": "harbour"}, stream=True, timeout=30,
                      headers={"Authorization": f"Bearer {alice_token}"})
check(stream.status_code == 200 and stream.headers["Content-Type"].startswith("text/event-stream"),
      "the hashtag stream opens")
lines = stream.iter_lines(decode_unicode=True)
locked = post(d, "#harbour from a locked account")
blocked = post(c, "#harbour from a blocked account")
private = post(b, "#harbour for followers", visibility="private")
public = post(b, "#harbour for everyone")
event = None
for line in lines:
    if line.startswith("event: "):
        event = line[len("event: "):]
    elif line.startswith("data: ") and event == "update":
        update = json.loads(line[len("data: "):])
        break
stream.close()
check(update["id"] == public.id,
      f"the hashtag stream's first update is the public post, not the locked, blocked or followers-only ones "
      f"({update['id']}; {public.id})")

# alice follows bob: his followers-only post is hers to see by the follow, never by the tag; his
# public one shows once. A stranger's public tagged post comes in by the tag.
d.account_update_credentials(locked=False)
open_post = post(d, "#harbour from dave, unlocked now")
home = [s.id for s in m.timeline_home(limit=40)]
check(home.count(public.id) == 1 and home.count(open_post.id) == 1, "home: the tagged posts once each")
check(blocked.id not in home, "home: never a blocked account's tagged post")
check(home.count(private.id) == 1, "home: bob's followers-only post once, by the follow")
m.account_unfollow(bob.id)
home = [s.id for s in m.timeline_home(limit=40)]
check(private.id not in home and public.id in home,
      "home after unfollowing bob: his public tagged post stays by the tag, the followers-only one leaves")
b.status_reblog(open_post.id)
m.account_follow(bob.id)
home = [s.reblog.id if s.reblog else s.id for s in m.timeline_home(limit=40)]
check(home.count(open_post.id) == 1, "home: a followee's boost of a post that came in by its tag shows it once")
m.tag_unfollow("harbour")
home = [s.reblog.id if s.reblog else s.id for s in m.timeline_home(limit=40)]
check(open_post.id in home and m.timeline_home(limit=40)[0].reblog is not None,
      "after tag_unfollow the post comes in by the boost instead")
check(m.tag("harbour").following is False, "tag: not following any more")
# The WebSocket's hashtag stream (subscribed as it opens): a followers-only #harbour post of bob's,
# whom alice follows, is not public and never comes; the public one after it is the first event.
socket = websocket.create_connection(
    base.replace("http", "ws", 1) + f"/api/v1/streaming?access_token={alice_token}&stream=hashtag&tag=harbour",
    timeout=30)
hidden = post(b, "#harbour friends only, over the socket", visibility="private")
shown = post(b, "#harbour over the socket")
message = json.loads(socket.recv())
socket.close()
check(message["stream"] == ["hashtag", "harbour"] and message["event"] == "update"
      and json.loads(message["payload"])["id"] == shown.id and hidden.id != shown.id,
      f"the WebSocket's hashtag stream carries the public post first, never the followers-only one ({message})")
print("ok - followed hashtags through Mastodon.py")
