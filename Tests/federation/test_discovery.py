#!/usr/bin/env python3
"""Federation's discovery and documents against a real `timeline serve` (#43), read as a
Mastodon or Pixelfed server reads them: WebFinger (RFC 7033) from a handle to the actor, the
actor (`Person`) with its RSA key, its outbox's `Create`s of `Note`s (a photo with its alt text
and blurhash, a hashtag and a mention in `tag`, addressed to everyone), the featured collection,
NodeInfo 2.1 checked against its own JSON Schema, host-meta, and content negotiation (a
browser opening the same address is sent to the web app). A followers-only post is served to
no one. Usage: test_discovery.py BASE_URL [DOMAIN] — with DOMAIN (the server's --domain), every
request carries it as Host and the ids are https://DOMAIN/…. Prints `ok - …`; exits 1 on a failure."""
import base64
import json
import os
import struct
import sys
import uuid
import zlib
from urllib.parse import urlparse

import jsonschema
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

base = sys.argv[1]
domain = sys.argv[2] if len(sys.argv) > 2 else urlparse(base).netloc
origin = f"https://{domain}" if len(sys.argv) > 2 else base
host = {"Host": domain} if len(sys.argv) > 2 else {}
AP = {"Accept": 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'}
failures = 0


def check(condition, what):
    global failures
    if condition:
        print(f"ok - {what}")
    else:
        failures += 1
        print(f"not ok - {what}")


def get(path, headers=None, **kw):
    url = path if path.startswith("http") else base + path
    # The ids name the public origin; the requests go to the server on loopback.
    if url.startswith(origin):
        url = base + url[len(origin):]
    return requests.get(url, headers={**host, **(headers or {})}, allow_redirects=False, timeout=30, **kw)


def post(path, token, body):
    headers = {**host, "Authorization": f"Bearer {token}"} if token else host
    answer = requests.post(base + path, json=body, headers=headers, timeout=30)
    assert answer.status_code in (200, 201), f"{path}: {answer.status_code} {answer.text}"
    return answer.json()


def png(seed):
    """A 16×16 PNG of one colour."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes([seed % 256, 80, 160]) * 16 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


suffix = uuid.uuid4().hex[:6]
alice_name, bob_name = f"alice{suffix}", f"bob{suffix}"
alice = post("/v1/users", None, {"username": alice_name, "email": f"{alice_name}@example.com", "password": "password-123"})
bob = post("/v1/users", None, {"username": bob_name, "email": f"{bob_name}@example.com", "password": "password-123"})
token, alice_id, bob_id = alice["session"], alice["user"]["id"], bob["user"]["id"]
photo = post("/v1/media", token, {"image": base64.b64encode(png(1)).decode(), "alt": "A red square at dusk"})
public = post("/v1/posts", token, {"media": [photo["id"]], "caption": f"#sunset with @{bob_name}"})
hidden = post("/v1/posts", token, {"image": base64.b64encode(png(2)).decode(), "caption": "for my followers",
                                  "visibility": "followers"})
requests.put(f"{base}/v1/posts/{public['id']}/pin", headers={**host, "Authorization": f"Bearer {token}"}, timeout=30)
actor_id = f"{origin}/users/{alice_id}"

# WebFinger: the handle to the actor.
finger = get(f"/.well-known/webfinger?resource=acct:{alice_name}@{domain}")
check(finger.status_code == 200 and finger.headers["Content-Type"].startswith("application/jrd+json"),
      f"WebFinger answers a JRD ({finger.status_code})")
jrd = finger.json()
check(jrd["subject"] == f"acct:{alice_name}@{domain}", "its subject is the account's acct: URI")
selves = [l for l in jrd["links"] if l["rel"] == "self"]
check(len(selves) == 1 and selves[0]["type"] == "application/activity+json" and selves[0]["href"] == actor_id,
      "its self link is the actor, as application/activity+json")
check(get(f"/.well-known/webfinger?resource={actor_id}").json()["subject"] == jrd["subject"],
      "the actor's URL finds the same account")
check(get(f"/.well-known/webfinger?resource=acct:{alice_name}@elsewhere.example").status_code == 404,
      "a handle of another domain is not found")
check(get(f"/.well-known/webfinger?resource=acct:nobody{suffix}@{domain}").status_code == 404,
      "an unknown handle is not found")
check(get("/.well-known/webfinger").status_code == 400, "WebFinger without a resource is a bad request")

# The actor.
answer = get(actor_id, AP)
check(answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/activity+json"),
      "the actor is served as application/activity+json")
actor = answer.json()
check(actor["type"] == "Person" and actor["id"] == actor_id and actor["preferredUsername"] == alice_name,
      "the actor is a Person with its id and preferredUsername")
check("https://www.w3.org/ns/activitystreams" in actor["@context"], "with the ActivityStreams context")
for name in ("inbox", "outbox", "followers", "following", "featured"):
    check(actor[name].startswith(actor_id + "/"), f"its {name} is under its id")
check(actor["endpoints"]["sharedInbox"] == f"{origin}/inbox", "its shared inbox is the server's")
key = actor["publicKey"]
check(key["id"] == actor_id + "#main-key" and key["owner"] == actor_id, "its key is #main-key, owned by it")
pem = load_pem_public_key(key["publicKeyPem"].encode())
check(isinstance(pem, rsa.RSAPublicKey) and pem.key_size == 2048, "its key is RSA 2048 PEM")
check(get(actor_id, AP).json()["publicKey"]["publicKeyPem"] == key["publicKeyPem"], "the key is kept, not remade")
check(actor["manuallyApprovesFollowers"] is False and actor["url"] == f"{origin}/@{alice_name}",
      "it approves followers by itself and its url is the profile's page")
check(get(f"/@{alice_name}", AP).json()["id"] == actor_id, "the profile's page is the actor to an ActivityPub client")
page = get(actor_id, {"Accept": "text/html"})
check(page.status_code == 302 and page.headers["Location"] == f"{origin}/#/u/{alice_name}",
      "a browser opening the actor is sent to the web app's profile")
check(get(f"{origin}/users/nobody{suffix}", AP).status_code == 404, "an unknown actor is not found")

# The outbox and its notes.
outbox = get(actor["outbox"], AP).json()
check(outbox["type"] == "OrderedCollection" and outbox["totalItems"] == 2, "the outbox counts the posts")
first = get(outbox["first"], AP).json()
check(first["type"] == "OrderedCollectionPage" and first["partOf"] == actor["outbox"], "its first page is part of it")
notes = [item["object"] for item in first["orderedItems"]]
check([item["type"] for item in first["orderedItems"]] == ["Create"], "the page holds one Create")
check([n["id"] for n in notes] == [f"{actor_id}/statuses/{public['id']}"],
      "the public post is there, the followers-only one is not")
note = notes[0]
check(note["type"] == "Note" and note["attributedTo"] == actor_id, "the post is a Note attributed to the actor")
check("https://www.w3.org/ns/activitystreams#Public" in note["to"] and actor["followers"] in note["cc"],
      "addressed to everyone, the followers in copy")
media = note["attachment"]
check(len(media) == 1 and media[0]["name"] == "A red square at dusk" and media[0]["mediaType"] == "image/jpeg"
      and media[0]["blurhash"], "its photo is an attachment named by its alt text, with a blurhash")
check(get(media[0]["url"]).status_code == 200, "the photo's URL serves it")
tags = {t["type"]: t for t in note["tag"]}
check(tags["Hashtag"]["name"] == "#sunset", "its hashtag is in tag")
check(tags["Mention"]["name"] == f"@{bob_name}@{domain}" and tags["Mention"]["href"] == f"{origin}/users/{bob_id}",
      "its mention names bob's actor")
check(f'href="' in note["content"] and "#<span>sunset</span>" in note["content"], "its content is HTML with links")
fetched = get(note["id"], AP)
check(fetched.status_code == 200 and fetched.json()["id"] == note["id"] and "@context" in fetched.json(),
      "the Note is served at its id")
check(get(note["url"], AP).json()["id"] == note["id"], "and at its page, to an ActivityPub client")
check(get(note["id"], {"Accept": "text/html"}).headers.get("Location") == f"{origin}/#/post/{public['id']}",
      "a browser opening the Note is sent to the web app's post")
check(get(f"{actor_id}/statuses/{hidden['id']}", AP).status_code == 404, "the followers-only post is not found")
check(get(f"{origin}/users/{bob_id}/statuses/{public['id']}", AP).status_code == 404,
      "a post under another actor is not found")
activity = get(note["id"] + "/activity", AP).json()
check(activity["type"] == "Create" and activity["object"]["id"] == note["id"], "the Create is served at its id")
featured = get(actor["featured"], AP).json()
check([n["id"] for n in featured["orderedItems"]] == [note["id"]], "the pinned post is featured")
followers = get(actor["followers"], AP).json()
check(followers["type"] == "OrderedCollection" and followers["totalItems"] == 0, "followers are counted")

# NodeInfo and host-meta.
links = get("/.well-known/nodeinfo").json()["links"]
check([l["rel"] for l in links] == ["http://nodeinfo.diaspora.software/ns/schema/2.1"], "NodeInfo 2.1 is linked")
info = get(links[0]["href"])
schema = json.load(open(os.path.join(os.path.dirname(__file__), "nodeinfo-2.1.schema.json")))
try:
    jsonschema.validate(info.json(), schema)
    check(True, "NodeInfo is valid against NodeInfo 2.1's schema")
except jsonschema.ValidationError as error:
    check(False, f"NodeInfo is valid against NodeInfo 2.1's schema: {error.message}")
check(info.json()["usage"]["users"]["total"] >= 2 and info.json()["usage"]["localPosts"] >= 2,
      "NodeInfo counts the users and posts")
check(info.headers["Content-Type"].startswith("application/json"), "NodeInfo is JSON")
meta = get("/.well-known/host-meta")
check(meta.status_code == 200 and f'template="{origin}/.well-known/webfinger?resource={{uri}}"' in meta.text,
      "host-meta points at WebFinger")

sys.exit(1 if failures else 0)
