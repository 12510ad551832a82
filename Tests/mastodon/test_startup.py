#!/usr/bin/env python3
"""What apps call as they start, through Mastodon.py (and plain requests where Mastodon.py has no
call) against `timeline serve`: the header uploaded through update_credentials and removed,
the avatar removed, preferences, custom emojis without a token, the unread notification count
against the marker, OAuth's userinfo (only with the `profile` scope), DELETE media, /health and
oEmbed (a public post; 404 for a followers-only one).
Usage: test_startup.py BASE_URL ALICE_TOKEN BOB_TOKEN HEADER_IMAGE_PATH PUBLIC_POST_ID PRIVATE_POST_ID
(alice has signed up as alice@example.com, password password-123; bob liked and commented on
alice's public post). Prints `ok - …` lines; exits 1 on a failure."""
import sys

import requests
from mastodon import Mastodon
from checks import check

base, alice_token, bob_token, image_path, public_post, private_post = sys.argv[1:]
m = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")


# The header: a default image until one is uploaded, then the uploaded one resized, then removed.
me = m.account_verify_credentials()
missing = me.header
check(missing.startswith(base) and requests.get(missing).headers["Content-Type"] == "image/png",
      f"an account without a header has the server's default image ({missing})")
with open(image_path, "rb") as file:
    me = m.account_update_credentials(header=file.read(), header_mime_type="image/png")
check(me.header != missing and me.header == me.header_static and me.header.startswith(base + "/v1/images/"),
      "update_credentials(header=…) sets a header of this server's")
served = requests.get(me.header)
check(served.status_code == 200 and served.headers["Content-Type"].startswith("image/"),
      "the header is served as an image")
check(b.account(me.id).header == me.header, "others see the header")
me = m.account_delete_header()
check(me.header == missing, "account_delete_header: back to the default image")
check(requests.get(served.url).status_code == 404, "the removed header is no longer served")
with open(image_path, "rb") as file:
    me = m.account_update_credentials(avatar=file.read(), avatar_mime_type="image/png")
check("/v1/images/" in me.avatar, "an avatar set")
me = m.account_delete_avatar()
check("/v1/images/" not in me.avatar and me.avatar.startswith(base), "account_delete_avatar: the default avatar")

# Preferences, from the account: a locked account posts followers-only by default.
prefs = m.preferences()
check(prefs["posting:default:visibility"] == "public" and prefs["posting:default:sensitive"] is False
      and prefs["posting:default:language"] is None and prefs["reading:expand:media"] == "default"
      and prefs["reading:expand:spoilers"] is False, f"preferences ({dict(prefs)})")
m.account_update_credentials(locked=True)
check(m.preferences()["posting:default:visibility"] == "private", "a locked account's default visibility is private")
m.account_update_credentials(locked=False)

# Custom emojis: none, and no token needed.
anonymous = Mastodon(api_base_url=base, version_check_mode="none")
check(anonymous.custom_emojis() == [], "custom_emojis without a token: []")

# The unread count follows the notifications marker.
notes = m.notifications(limit=40)
count = m.notifications_unread_count()["count"]
check(count == len(notes) and count >= 2, f"unread_count: every notification before a marker is set ({count})")
limited = requests.get(f"{base}/api/v1/notifications/unread_count", params={"limit": 1},
                       headers={"Authorization": f"Bearer {alice_token}"}).json()
check(limited == {"count": 1}, "unread_count: at most limit")
m.markers_set(["notifications"], [notes[-1].id])
check(m.notifications_unread_count()["count"] == len(notes) - 1, "unread_count: those after the marker")
m.markers_set(["notifications"], [notes[0].id])
check(m.notifications_unread_count()["count"] == 0, "unread_count: 0 once the marker is at the newest")

# OAuth's userinfo, where the metadata says: for a token with the `profile` scope; `read` alone is
# refused. (Mastodon.py's oauth_userinfo insists on https, so the call itself is made with requests.)
endpoint = m.oauth_authorization_server_info()["userinfo_endpoint"]
check(endpoint == base + "/oauth/userinfo", "the OAuth metadata names the userinfo endpoint")
client_id, client_secret = Mastodon.create_app("startup", scopes=["read", "profile"], api_base_url=base)
app = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="none")
profile_token = app.log_in("alice@example.com", "password-123", scopes=["profile"], allow_http=True)
info = requests.get(endpoint, headers={"Authorization": f"Bearer {profile_token}"}).json()
check(info["preferred_username"] == "alice" and info["sub"].startswith(base) and info["iss"] == base + "/"
      and info["picture"].startswith(base), f"userinfo with the profile scope ({info})")
app = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="none")
read_token = app.log_in("alice@example.com", "password-123", scopes=["read"], allow_http=True)
refused = requests.get(endpoint, headers={"Authorization": f"Bearer {read_token}"})
check(refused.status_code == 403, f"userinfo without the profile scope is 403 ({refused.status_code})")
check(requests.get(endpoint).status_code == 401, "userinfo without a token is 401")

# DELETE /api/v1/media/:id (Mastodon.py has no call for it).
auth = {"Authorization": f"Bearer {alice_token}"}
with open(image_path, "rb") as file:
    upload = m.media_post(file.read(), mime_type="image/png")
attached = m.media_post(open(image_path, "rb").read(), mime_type="image/png", description="in a post")
m.status_post("with its photo", media_ids=[attached.id])
other = requests.delete(f"{base}/api/v1/media/{upload.id}", headers={"Authorization": f"Bearer {bob_token}"})
check(other.status_code == 404, f"someone else's media is not found ({other.status_code})")
used = requests.delete(f"{base}/api/v1/media/{attached.id}", headers=auth)
check(used.status_code == 422 and "error" in used.json(), f"media in a status is 422 ({used.text})")
gone = requests.delete(f"{base}/api/v1/media/{upload.id}", headers=auth)
check(gone.status_code == 200 and gone.json() == {}, "an unattached upload is deleted: {}")
check(requests.get(f"{base}/api/v1/media/{upload.id}", headers=auth).status_code == 404, "and is gone")
check(requests.delete(f"{base}/api/v1/media/{upload.id}", headers=auth).status_code == 404, "deleting it again: 404")

# /health, as Mastodon answers it.
health = requests.get(f"{base}/health")
check(health.status_code == 200 and health.text == "OK" and health.headers["Content-Type"].startswith("text/plain"),
      "/health: OK")

# oEmbed: a public post by its URL; a followers-only one, or another server's URL, is not found.
url = m.status(public_post).url
embed = requests.get(f"{base}/api/oembed", params={"url": url})
body = embed.json()
check(embed.status_code == 200 and body["type"] == "rich" and body["author_name"] == "alice" and url in body["html"],
      "oembed: a public post")
hidden = m.status(private_post).url
check(requests.get(f"{base}/api/oembed", params={"url": hidden}).status_code == 404, "oembed: a followers-only post is 404")
elsewhere = requests.get(f"{base}/api/oembed", params={"url": f"https://elsewhere.example/#/post/{public_post}"})
check(elsewhere.status_code == 404, "oembed: another server's URL is 404")
print("ok - every start-up call")
