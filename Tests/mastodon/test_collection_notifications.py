#!/usr/bin/env python3
"""The `added_to_collection` notification (Mastodon 4.5's collections) through Mastodon.py against
`timeline serve`: alice features bob in a collection; bob's notifications hold one of type
`added_to_collection` from alice with the `collection` (Mastodon's Collection entity); the `types`
and `exclude_types` filters keep and drop it; grouped notifications (v2) hold it, with its
collection; carol, who is not featured, has none; once bob blocks alice it is gone.
Usage: test_collection_notifications.py BASE_URL. Prints `ok - …` lines; exits 1 on a failure."""
import sys

import requests
from mastodon import Mastodon
from checks import check

base = sys.argv[1]


def sign_up(name):
    """A Mastodon.py client for a new user `name`, through /v1 sign-up, and its token."""
    reply = requests.post(f"{base}/v1/users", json={"username": name, "email": f"{name}@example.com",
                                                   "password": "password-123"})
    reply.raise_for_status()
    token = reply.json()["session"]
    return Mastodon(access_token=token, api_base_url=base, version_check_mode="none"), token


(alice, _), (bob, bob_token), (carol, _) = (sign_up(name) for name in ("alice", "bob", "carol"))
me, bob_me = alice.account_verify_credentials(), bob.account_verify_credentials()
made = alice.collection_create("Starters", description="Well worth following", discoverable=True,
                               account_ids=[bob_me.id]).collection

notes = bob.notifications()
check([n.type for n in notes] == ["added_to_collection"], f"bob has one added_to_collection ({[n.type for n in notes]})")
note = notes[0]
check(note.account.id == me.id and note.status is None, "from alice, with no status")
check(note.collection.id == made.id and note.collection.name == "Starters"
      and note.collection.account_id == me.id, "its collection is alice's, as Mastodon's Collection entity")
check([i.account_id for i in note.collection["items"]] == [bob_me.id], "the collection's items name bob")
check([n.id for n in bob.notifications(types=["added_to_collection"])] == [note.id], "types=added_to_collection keeps it")
check(bob.notifications(types=["favourite"]) == [], "types=favourite leaves it out")
check(bob.notifications(exclude_types=["added_to_collection"]) == [], "exclude_types drops it")
check(bob.notifications(id=note.id).collection.id == made.id, "GET /api/v1/notifications/:id has it")
grouped = requests.get(f"{base}/api/v2/notifications", headers={"Authorization": f"Bearer {bob_token}"}).json()
groups = grouped["notification_groups"]
check([g["type"] for g in groups] == ["added_to_collection"] and groups[0]["collection"]["id"] == made.id
      and groups[0]["sample_account_ids"] == [me.id], "grouped notifications (v2) hold it, with its collection")
check(carol.notifications() == [], "carol, not featured, has none")
bob.account_block(me.id)
check(bob.notifications() == [], "once bob blocks alice the notification is gone")
print("ok - collection notifications")
