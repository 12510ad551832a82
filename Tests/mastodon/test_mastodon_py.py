#!/usr/bin/env python3
"""Mastodon.py — a client library written by others, as apps use it — against `timeline serve`:
discovery, the bearer's account, an account by name and by id, its statuses, the home and
hashtag timelines paged by Link, a status with its photo; then the writes: a photo uploaded with
its description, a post of it, favourite, bookmark, replies, follow and relationships, delete.
Usage: test_mastodon_py.py BASE_URL TOKEN ALICE_ID BOB_ID BOB_TOKEN PHOTO_PATH POST_ID... (the posts newest
first). Prints `ok - …` lines; exits 1 on a failure."""
import sys

from mastodon import Mastodon, MastodonAPIError, MastodonIllegalArgumentError, MastodonNotFoundError, MastodonUnauthorizedError

base, token, alice, bob, bob_token, photo_path, *posts = sys.argv[1:]
m = Mastodon(access_token=token, api_base_url=base, version_check_mode="created")


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok - {what}")


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
check(mention.status.content == "<p>lovely @alice</p>" and mention.status.in_reply_to_id == posts[0], "a comment is a mention with its status")
check([n.type for n in m.notifications(types=["favourite"])] == ["favourite"], "types[] filters")
check("follow" not in [n.type for n in m.notifications(exclude_types=["follow"])], "exclude_types[] filters")
check(m.notifications(id=mention.id).id == mention.id, "a notification by its id")
check(m.stream_healthy(), "streaming/health")

# OAuth, as Mastodon.py's own flow: an app registered, a token by the password grant.
client_id, client_secret = Mastodon.create_app("Timeline tests", api_base_url=base, scopes=["read", "write", "follow"])
app = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="created")
oauth_token = app.log_in("alice@example.com", "password-123", scopes=["read", "write", "follow"])
check(app.account_verify_credentials().username == "alice", "create_app and log_in (password grant): the token is alice's")
check(app.app_verify_credentials().name == "Timeline tests", "apps/verify_credentials names the app")
check(app.status_post("with an app token", media_ids=[app.media_post(photo_path, mime_type="image/png").id]).account.id == alice,
      "the app's token writes")
reader_id, reader_secret = Mastodon.create_app("Reader", api_base_url=base, scopes=["read"])
reader = Mastodon(client_id=reader_id, client_secret=reader_secret, api_base_url=base, version_check_mode="created")
reader.log_in("alice@example.com", "password-123", scopes=["read"])
check(len(reader.timeline_home(limit=1)) == 1, "a read-only token reads")
try:
    reader.status_favourite(posts[0])
    check(False, "a read-only token cannot write")
except MastodonAPIError:
    check(True, "a read-only token cannot write (403, outside its scopes)")
try:
    Mastodon(client_id=reader_id, client_secret=reader_secret, api_base_url=base, version_check_mode="none").log_in(
        "alice@example.com", "password-123", scopes=["read", "write"])
    check(False, "a token cannot ask for more than its app's scopes")
except (MastodonAPIError, MastodonIllegalArgumentError):
    check(True, "a token cannot ask for more than its app's scopes")
try:
    Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="none").log_in(
        "alice@example.com", "wrong-password", scopes=["read"])
    check(False, "a wrong password gets no token")
except (MastodonAPIError, MastodonIllegalArgumentError):
    check(True, "a wrong password gets no token (invalid_grant)")
app.revoke_access_token()
try:
    Mastodon(access_token=oauth_token, api_base_url=base, version_check_mode="none").account_verify_credentials()
    check(False, "a revoked token is refused")
except MastodonUnauthorizedError:
    check(True, "revoke_access_token ends the token")
