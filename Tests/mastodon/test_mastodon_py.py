#!/usr/bin/env python3
"""Mastodon.py — a client library written by others, as apps use it — against `timeline serve`:
discovery, the bearer's account, an account by name and by id, its statuses, the home and
hashtag timelines paged by Link, a status with its photo; then the writes: a photo uploaded with
its description, a post of it, favourite, bookmark, replies, follow and relationships, delete.
Usage: test_mastodon_py.py BASE_URL TOKEN ALICE_ID BOB_ID BOB_TOKEN PHOTO_PATH POST_ID... (the posts newest
first). Prints `ok - …` lines; exits 1 on a failure."""
import sys

from mastodon import Mastodon, MastodonAPIError, MastodonIllegalArgumentError, MastodonNotFoundError, MastodonUnauthorizedError
from checks import check

base, token, alice, bob, bob_token, photo_path, *posts = sys.argv[1:]
m = Mastodon(access_token=token, api_base_url=base, version_check_mode="created")


instance = m.instance()
check(instance.version.startswith("4.3.0") and instance.configuration.statuses.max_media_attachments == 10,
      f"instance: version {instance.version}, 10 media per status")
check(m.verify_minimum_version("4.0.0"), "Mastodon.py takes it for Mastodon 4")
me = m.account_verify_credentials()
check(me.username == "alice" and me.id == alice and me.source.privacy == "public", "verify_credentials is alice's account")
check(m.account_lookup("alice").id == alice and m.account(alice).statuses_count == len(posts), "lookup and account by id")
home = m.timeline_home(limit=2)
check([s.id for s in home] == posts[:2], "the home timeline's first page, newest first")
older = m.fetch_next(home)
check([s.id for s in older] == posts[2:4], "fetch_next follows Link rel=next")
newer = m.timeline_home(min_id=posts[2], limit=1)
check([s.id for s in newer] == [posts[1]], "min_id answers the status right after it")
status = m.status(posts[0])
photo = status.media_attachments[0]
check(status.account.username == "alice" and photo.type == "image" and photo.blurhash and photo.meta.original.width > 0,
      "a status with its photo (image, blurhash, sizes)")
check(photo.url.startswith(base) and status.content.startswith("<p>"), "the photo's URL is this server's; content is HTML")
check([s.id for s in m.timeline_hashtag("sea")] == posts, "the hashtag timeline")
check([s.id for s in m.account_statuses(alice, limit=40)] == posts, "an account's statuses")
try:
    m.status("-NoSuchStatus0000000")
    check(False, "an unknown status is 404")
except MastodonNotFoundError:
    check(True, "an unknown status is 404 ({\"error\": …})")
try:
    Mastodon(access_token="wrong", api_base_url=base, version_check_mode="none").account_verify_credentials()
    check(False, "a wrong token is refused")
except MastodonUnauthorizedError:
    check(True, "a wrong token is 401")

# Writes, as an app makes them: the photo first (with its description), then the post.
media = m.media_post(photo_path, mime_type="image/png", description="A red pixel")
check(media.type == "image" and media.description == "A red pixel" and media.blurhash, "media_post: an image with its description and blurhash")
media = m.media_update(media.id, description="A red pixel, described")
check(media.description == "A red pixel, described", "media_update changes the description")
status = m.status_post("posted from Mastodon.py #sea", media_ids=[media.id], visibility="private", sensitive=True, spoiler_text="red")
check(status.visibility == "private" and status.sensitive and status.spoiler_text == "red"
      and status.media_attachments[0].description == "A red pixel, described", "status_post with media_ids, private, sensitive")
check(m.status_favourite(status.id).favourited, "status_favourite")
check(not m.status_unfavourite(status.id).favourited, "status_unfavourite")
check(m.status_bookmark(status.id).bookmarked, "status_bookmark")
reply = m.status_post("a comment", in_reply_to_id=status.id)
check(reply.in_reply_to_id == status.id and m.status(reply.id).content == "<p>a comment</p>", "in_reply_to_id makes a comment, a status too")
answer = m.status_post("a reply", in_reply_to_id=reply.id)
check(answer.in_reply_to_id == reply.id, "a reply to a comment")
relationship = m.account_follow(bob)
check(relationship.following and m.account_relationships([bob])[0].following, "account_follow and relationships")
check(not m.account_unfollow(bob).following, "account_unfollow")
try:
    m.status_post("no photo")
    check(False, "a post without a photo is refused")
except MastodonAPIError as error:
    check("422" in str(error) or getattr(error, "args", [None, 0])[1] == 422, "a post without a photo is 422")
m.status_delete(status.id)
try:
    m.status(status.id)
    check(False, "a deleted status is gone")
except MastodonNotFoundError:
    check(True, "status_delete: the status is gone")

# Notifications: bob likes and comments on alice's post and follows her; her notifications are
# Mastodon's types (a comment is a mention), filtered by type, each found by its id.
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")
b.status_favourite(posts[0])
b.status_post("lovely @alice", in_reply_to_id=posts[0])
b.account_follow(alice)
notes = m.notifications()
check({n.type for n in notes} == {"favourite", "mention", "follow"} and all(n.account.id == bob for n in notes),
      f"notifications: favourite, mention, follow ({[n.type for n in notes]})")
mention = next(n for n in notes if n.type == "mention")
check(mention.status.in_reply_to_id == posts[0] and [a.id for a in mention.status.mentions] == [alice]
      and 'class="u-url mention">@<span>alice</span></a>' in mention.status.content, "a comment is a mention with its status, @alice linked")
check([n.type for n in m.notifications(types=["favourite"])] == ["favourite"], "types[] filters")
check("follow" not in [n.type for n in m.notifications(exclude_types=["follow"])], "exclude_types[] filters")
check(m.notifications(id=mention.id).id == mention.id, "a notification by its id")
# Grouped (v2): the same three, one group each, with bob as their account.
grouped = m.grouped_notifications(expand_accounts="full")
check(sorted(g.type for g in grouped.notification_groups) == ["favourite", "follow", "mention"]
      and all(g.sample_account_ids == [bob] and g.notifications_count == 1 for g in grouped.notification_groups)
      and [a.id for a in grouped.accounts] == [bob] and posts[0] in [s.id for s in grouped.statuses],
      f"grouped_notifications: favourite, follow, mention ({grouped})")
liked = next(g for g in grouped.notification_groups if g.type == "favourite")
check(m.grouped_notification(liked.group_key).notification_groups[0].group_key == liked.group_key,
      "grouped_notification by its key")
check([a.id for a in m.grouped_notification_accounts(liked.group_key)] == [bob], "grouped_notification_accounts")
check(m.unread_grouped_notifications_count() == 3, "unread_grouped_notifications_count")
# The bell: alice asks to be told of bob's posts; his next one is a `status` notification.
check(m.account_follow(bob, notify=True).notifying and m.account_relationships([bob])[0].notifying, "account_follow(notify=True): notifying")
bobs = b.status_post("bob's new photo", media_ids=[b.media_post(photo_path, mime_type="image/png").id])
told = m.notifications(types=["status"])
check([(n.type, n.status.id, n.account.id) for n in told] == [("status", bobs.id, bob)], f"a post of an account one is notified of is a status notification ({told})")
check(not m.account_follow(bob, notify=False).notifying, "account_follow(notify=False) ends it")
check(m.stream_healthy(), "streaming/health")

# OAuth, as Mastodon.py's own flow: an app registered, a token by the password grant.
client_id, client_secret = Mastodon.create_app("Timeline tests", api_base_url=base, scopes=["read", "write", "follow"])
app = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="created")
oauth_token = app.log_in("alice@example.com", "password-123", scopes=["read", "write", "follow"], allow_http=True)
check(app.account_verify_credentials().username == "alice", "create_app and log_in (password grant): the token is alice's")
check(app.app_verify_credentials().name == "Timeline tests", "apps/verify_credentials names the app")
check(app.status_post("with an app token", media_ids=[app.media_post(photo_path, mime_type="image/png").id]).account.id == alice,
      "the app's token writes")
reader_id, reader_secret = Mastodon.create_app("Reader", api_base_url=base, scopes=["read"])
reader = Mastodon(client_id=reader_id, client_secret=reader_secret, api_base_url=base, version_check_mode="created")
reader.log_in("alice@example.com", "password-123", scopes=["read"], allow_http=True)
check(len(reader.timeline_home(limit=1)) == 1, "a read-only token reads")
try:
    reader.status_favourite(posts[0])
    check(False, "a read-only token cannot write")
except MastodonAPIError:
    check(True, "a read-only token cannot write (403, outside its scopes)")
try:
    Mastodon(client_id=reader_id, client_secret=reader_secret, api_base_url=base, version_check_mode="none").log_in(
        "alice@example.com", "password-123", scopes=["read", "write"], allow_http=True)
    check(False, "a token cannot ask for more than its app's scopes")
except (MastodonAPIError, MastodonIllegalArgumentError):
    check(True, "a token cannot ask for more than its app's scopes")
try:
    Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="none").log_in(
        "alice@example.com", "wrong-password", scopes=["read"], allow_http=True)
    check(False, "a wrong password gets no token")
except (MastodonAPIError, MastodonIllegalArgumentError):
    check(True, "a wrong password gets no token (invalid_grant)")
app.revoke_access_token(allow_http=True)
try:
    Mastodon(access_token=oauth_token, api_base_url=base, version_check_mode="none").account_verify_credentials()
    check(False, "a revoked token is refused")
except MastodonUnauthorizedError:
    check(True, "revoke_access_token ends the token")

# The authorization code grant, as an app does it: the person signs in on the authorize page and
# authorizes (a browser's part, played here by an HTTP session: the forms as served, their hidden
# fields, their cookies), the code comes back to the exact redirect URI with the state, and the
# app redeems it once.
import base64
import hashlib
import html
import re
import threading
import time
import urllib.parse

import requests


def text(content):
    return html.unescape(re.sub(r"<[^>]+>", "", content))


def hidden_fields(page):
    return {name: html.unescape(value) for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


def authorize(url, decision="authorize"):
    browser = requests.Session()
    page = browser.get(url)
    check(page.status_code == 200 and "Email" in page.text and "Password" in page.text
          and "frame-ancestors 'none'" in page.headers["Content-Security-Policy"] and page.headers["X-Frame-Options"] == "DENY",
          "the authorize page asks for Email and Password, and cannot be framed")
    fields = hidden_fields(page.text)
    consent = browser.post(base + "/oauth/authorize", data={**fields, "email": "alice@example.com", "password": "password-123"})
    check(consent.status_code == 200 and ">Authorize<" in consent.text and ">Deny<" in consent.text, "signed in, the page asks to Authorize or Deny")
    forged = requests.post(base + "/oauth/authorize", data={**hidden_fields(consent.text), "decision": "authorize"}, allow_redirects=False)
    check(forged.status_code == 403, "the same form without the page's cookie is refused (CSRF)")
    answer = browser.post(base + "/oauth/authorize", data={**hidden_fields(consent.text), "decision": decision}, allow_redirects=False)
    check(answer.status_code == 302, "the decision redirects to the app")
    return consent.text, urllib.parse.parse_qs(urllib.parse.urlparse(answer.headers["Location"]).query), answer.headers["Location"]


callback = "http://127.0.0.1:9/callback"
code_app_id, code_app_secret = Mastodon.create_app("Code app", api_base_url=base, scopes=["read", "write", "follow"], redirect_uris=callback)
code_app = Mastodon(client_id=code_app_id, client_secret=code_app_secret, api_base_url=base, version_check_mode="none")
url = code_app.auth_request_url(redirect_uris=callback, scopes=["read", "write"], state="st4te", allow_http=True)
consent, query, location = authorize(url)
check("Code app" in consent and "<code>read</code>" in consent and "<code>write</code>" in consent, "the page names the app and the scopes asked")
check(location.startswith(callback + "?") and query["state"] == ["st4te"] and len(query["code"][0]) > 20, "the code and state go to the exact redirect URI")
code_token = code_app.log_in(code=query["code"][0], redirect_uri=callback, scopes=["read", "write"], allow_http=True)
check(Mastodon(access_token=code_token, api_base_url=base, version_check_mode="none").account_verify_credentials().id == alice,
      "log_in(code=…) redeems it for alice's token")
try:
    code_app.log_in(code=query["code"][0], redirect_uri=callback, scopes=["read", "write"], allow_http=True)
    check(False, "a code is redeemed once")
except (MastodonAPIError, MastodonIllegalArgumentError):
    check(True, "a code is redeemed once (invalid_grant)")
_, denied, _ = authorize(url, decision="deny")
check(denied["error"] == ["access_denied"] and denied["state"] == ["st4te"], "Deny sends access_denied with the state")
wrong = requests.get(base + "/oauth/authorize", params={"response_type": "code", "client_id": code_app_id, "redirect_uri": "http://evil.example/cb"},
                     allow_redirects=False)
check(wrong.status_code == 400 and "Location" not in wrong.headers, "a redirect URI the app did not register is refused on the page, never redirected to")

# PKCE (S256): a public client sends no secret; the verifier must match the challenge.
verifier = base64.urlsafe_b64encode(hashlib.sha256(b"timeline-pkce").digest()).rstrip(b"=").decode() + "-extra-entropy"
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
_, pkce, _ = authorize(url + "&" + urllib.parse.urlencode({"code_challenge": challenge, "code_challenge_method": "S256"}))
refused = requests.post(base + "/oauth/token", data={"grant_type": "authorization_code", "client_id": code_app_id, "code": pkce["code"][0],
                                                      "redirect_uri": callback, "code_verifier": "not-the-verifier-" + "x" * 30})
check(refused.status_code == 400 and refused.json()["error"] == "invalid_grant", "a wrong PKCE verifier gets invalid_grant")
granted = requests.post(base + "/oauth/token", data={"grant_type": "authorization_code", "client_id": code_app_id, "code": pkce["code"][0],
                                                      "redirect_uri": callback, "code_verifier": verifier})
check(granted.status_code == 200 and granted.json()["scope"] == "read write", "the right verifier, no secret: a token (PKCE)")
discovery = requests.get(base + "/.well-known/oauth-authorization-server").json()
check(discovery["authorization_endpoint"] == base + "/oauth/authorize" and "S256" in discovery["code_challenge_methods_supported"]
      and "client_credentials" in discovery["grant_types_supported"], "RFC 8414 discovery")

# Sign-up through an app (client_credentials), then the new account's profile.
signup_app_id, signup_app_secret = Mastodon.create_app("Sign-up app", api_base_url=base, scopes=["read", "write", "follow"])
signup = Mastodon(client_id=signup_app_id, client_secret=signup_app_secret, api_base_url=base, version_check_mode="none")
new_token = signup.create_account("newcomer", "newcomer-password-1", "newcomer@example.com", agreement=True, scopes=["read", "write", "follow"])
newcomer = Mastodon(access_token=new_token, api_base_url=base, version_check_mode="none")
check(newcomer.account_verify_credentials().username == "newcomer", "create_account: signed up through the app, with its token")
updated = newcomer.account_update_credentials(note="I take photos", locked=True)
check(updated.locked and updated.source.note == "I take photos" and updated.note == "<p>I take photos</p>", "update_credentials: note and locked")

# A locked account: alice asks to follow, the newcomer sees the request and authorizes it.
check(m.account_follow(updated.id).requested, "following a locked account is a request")
check(newcomer.account_relationships([alice])[0].requested_by, "the locked account sees requested_by")
requests_seen = newcomer.follow_requests()
check([a.id for a in requests_seen] == [alice], "follow_requests lists alice")
check(newcomer.follow_request_authorize(alice).followed_by, "follow_request_authorize: alice follows now")
check([a.id for a in newcomer.account_followers(updated.id)] == [alice] and updated.id in [a.id for a in m.account_following(alice)],
      "followers and following")

# Blocks, mutes, search, reports.
check(m.account_mute(bob).muting and [a.id for a in m.mutes()] == [bob], "mute and mutes")
check(not m.account_unmute(bob).muting, "unmute")
check(newcomer.account_block(bob).blocking and [a.id for a in newcomer.blocks()] == [bob], "block and blocks")
check(not newcomer.account_unblock(bob).blocking, "unblock")
check(alice in [a.id for a in m.account_search("ali")], "account_search by username prefix")
found = m.search_v2("sea")
check(found.hashtags[0].name == "sea" and posts[0] in [s.id for s in found.statuses], "search_v2: the hashtag and its statuses")
check(m.report(bob, comment="spam").target_account.id == bob, "report an account")

# Statuses: a post with two photos, edited, its history, source, context, who favourited it.
first = m.media_post(photo_path, mime_type="image/png", description="first photo")
second = m.media_post(photo_path, mime_type="image/png", description="second photo")
album = m.status_post("an album #sea", media_ids=[first.id, second.id])
check([a.description for a in album.media_attachments] == ["first photo", "second photo"], "an album with alt texts")
edited = m.status_update(album.id, status="an album, edited #sea",
                         media_attributes=[m.generate_media_edit_attributes(first.id, description="first, described again")])
check(text(edited.content) == "an album, edited #sea" and 'class="mention hashtag" rel="tag">#<span>sea</span>' in edited.content
      and [t.name for t in edited.tags] == ["sea"] and edited.edited_at and edited.media_attachments[0].description == "first, described again",
      "status_update: the caption and an alt text")
check([text(h.content) for h in m.status_history(album.id)] == ["an album #sea", "an album, edited #sea"], "status_history")
check(m.status_source(album.id).text == "an album, edited #sea", "status_source")
b.status_favourite(album.id)
comment = b.status_post("what a view", in_reply_to_id=album.id)
context = m.status_context(album.id)
check([s.id for s in context.descendants] == [comment.id] and context.ancestors == [], "status_context: comments are descendants")
check([a.id for a in m.status_favourited_by(album.id)] == [bob], "status_favourited_by")
check(m.status_reblogged_by(album.id) == [], "no one reblogs here")
check(album.id in [s.id for s in m.timeline_public(limit=40)], "timeline_public")
m.status_favourite(posts[1])
check(posts[1] in [s.id for s in m.favourites()], "favourites")
check(m.status_bookmark(posts[2]).bookmarked and posts[2] in [s.id for s in m.bookmarks()], "bookmarks")

# Streaming: the user stream over Server-Sent Events and over a WebSocket, both live.
from mastodon import StreamListener


class Listener(StreamListener):
    def __init__(self):
        self.seen = []

    def on_notification(self, notification):
        self.seen.append(("notification", notification.type))

    def on_update(self, status):
        self.seen.append(("update", status.id))

    def on_status_update(self, status):
        self.seen.append(("status.update", status.id))

    def on_delete(self, status_id):
        # Mastodon.py reads the payload as JSON: a Mastodon id is a number, parsed as one.
        self.seen.append(("delete", str(status_id)))


sse, ws = Listener(), Listener()
sse_handle = m.stream_user(sse, run_async=True)
socket = m.stream_open_websocket()
m.stream_user(ws, websocket_handle=socket)
time.sleep(1.0)
b.status_favourite(album.id)  # a like is already there: unlike first so the new like is news
b.status_unfavourite(album.id)
b.status_favourite(album.id)
deadline = time.time() + 10
while time.time() < deadline and not (("notification", "favourite") in sse.seen and ("notification", "favourite") in ws.seen):
    time.sleep(0.1)
check(("notification", "favourite") in sse.seen, f"stream_user (SSE): a like arrives live as a notification ({sse.seen})")
check(("notification", "favourite") in ws.seen, f"stream_user over the WebSocket: the same, live ({ws.seen})")
m.status_update(album.id, status="an album, edited twice #sea")
deadline = time.time() + 10
while time.time() < deadline and not (("status.update", album.id) in sse.seen and ("status.update", album.id) in ws.seen):
    time.sleep(0.1)
check(("status.update", album.id) in sse.seen and ("status.update", album.id) in ws.seen, "an edit arrives as status.update on both")


def wait_for(event):
    deadline = time.time() + 10
    while time.time() < deadline and not (event in sse.seen and event in ws.seen):
        time.sleep(0.1)
    return event in sse.seen and event in ws.seen


brief = m.status_post("here and gone #sea", media_ids=[m.media_post(photo_path, mime_type="image/png").id])
check(wait_for(("update", brief.id)), "a new post arrives as update on both")
m.status_delete(brief.id)
check(wait_for(("delete", brief.id)), f"its deletion arrives as delete, the bare numeric id, on both ({sse.seen[-1:]})")
# Both streams live on past the delete: the next notification still arrives on each.
likes = (sse.seen.count(("notification", "favourite")), ws.seen.count(("notification", "favourite")))
b.status_unfavourite(album.id)
b.status_favourite(album.id)
deadline = time.time() + 10
while time.time() < deadline and not (sse.seen.count(("notification", "favourite")) > likes[0]
                                       and ws.seen.count(("notification", "favourite")) > likes[1]):
    time.sleep(0.1)
check(sse.seen.count(("notification", "favourite")) > likes[0] and ws.seen.count(("notification", "favourite")) > likes[1],
      "the streams survive a delete: a later like still arrives on both")
sse_handle.close()
socket.close()

# Notifications dismissed one by one, the read marker, then cleared.
notes = m.notifications(limit=40)
m.notifications_dismiss(notes[0].id)
check(notes[0].id not in [n.id for n in m.notifications(limit=40)], "notifications_dismiss")
markers = m.markers_set(["notifications"], [notes[1].id])
check(markers.notifications.last_read_id == notes[1].id and m.markers_get(["notifications"]).notifications.last_read_id == notes[1].id,
      "markers: the notifications marker is kept")
m.notifications_clear()
check(m.notifications() == [], "notifications_clear")

# Every paged list, followed to its end through its Link header, as apps page: one item a page.
for post in posts[:3]:
    b.status_favourite(post)
    m.status_bookmark(post)
    m.status_favourite(post)
b.status_favourite(album.id)
paged_lists = {
    "account_statuses": lambda **kw: m.account_statuses(alice, **kw),
    "timeline_home": m.timeline_home,
    "timeline_hashtag": lambda **kw: m.timeline_hashtag("sea", **kw),
    "timeline_public": m.timeline_public,
    "bookmarks": m.bookmarks,
    "favourites": m.favourites,
    "notifications": m.notifications,
    "account_followers": lambda **kw: m.account_followers(alice, **kw),
    "account_following": lambda **kw: b.account_following(bob, **kw),
}
for name, read in paged_lists.items():
    whole = [item.id for item in read(limit=40)]
    followed = [item.id for item in m.fetch_remaining(read(limit=1))]
    check(followed == whole and len(set(followed)) == len(followed), f"{name}: fetch_remaining pages to the end ({len(whole)})")
check(all(len([i.id for i in read(limit=40)]) >= 2 for name, read in paged_lists.items()
          if name in ("account_statuses", "timeline_home", "bookmarks", "favourites", "notifications")),
      "the lists paged one by one hold several items")
newest = m.timeline_home(limit=40)
newer = m.timeline_home(since_id=newest[2].id)
check([s.id for s in newer] == [s.id for s in newest[:2]], "since_id: the newer ones, newest first")
check([s.id for s in m.timeline_home(min_id=newest[3].id, limit=2)] == [newest[1].id, newest[2].id],
      "min_id: the ones right after it, newest first")
check(all(s.id.isdigit() if isinstance(s.id, str) else isinstance(s.id, int) for s in newest)
      and [int(s.id) for s in newest] == sorted((int(s.id) for s in newest), reverse=True),
      "ids are numbers, newest first in numeric order")
print("ok - all groups")
