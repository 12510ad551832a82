#!/usr/bin/env python3
"""Collections through Mastodon.py (its 4.6 collection methods) against `timeline serve`: alice
signs up bob, carol and herself, makes a collection featuring bob, reads it, her collections and
bob's in_collections, adds carol, changes it, takes carol out; bob revokes his item; a refused add
(a non-discoverable account, a block), another's change (403); the collection deleted.
Usage: test_collections.py BASE_URL. Prints `ok - …` lines; exits 1 on a failure."""
import sys

import requests
from mastodon import Mastodon
from mastodon.errors import MastodonAPIError, MastodonNotFoundError
from checks import check

base = sys.argv[1]


def sign_up(name):
    """A Mastodon.py client for a new user `name`, through /v1 sign-up."""
    reply = requests.post(f"{base}/v1/users", json={"username": name, "email": f"{name}@example.com",
                                                   "password": "password-123"})
    reply.raise_for_status()
    return Mastodon(access_token=reply.json()["session"], api_base_url=base, version_check_mode="none")


alice, bob, carol, dave = (sign_up(name) for name in ("alice", "bob", "carol", "dave"))
me, bob_me, carol_me, dave_me = (c.account_verify_credentials() for c in (alice, bob, carol, dave))

made = alice.collection_create("Starters", description="Well worth following", language="en", tag_name="photo",
                               discoverable=True, account_ids=[bob_me.id]).collection
check(made.name == "Starters" and made.account_id == me.id and made.tag.name == "photo" and made.language == "en",
      "collection_create answers the collection, wrapped")
check([i.account_id for i in made["items"]] == [bob_me.id] and made["items"][0].state == "accepted",
      "the account named at creation is featured, accepted at once")
shown = bob.collection(made.id)
check([a.id for a in shown.accounts] == [me.id, bob_me.id] and shown.collection.id == made.id,
      "collection() answers CollectionWithAccounts: the owner, then each featured account")
check([c.id for c in bob.account_collections(me.id).collections] == [made.id], "account_collections lists it")
check([c.id for c in bob.account_in_collections(bob_me.id).collections] == [made.id],
      "account_in_collections lists the collections bob is in")
try:
    alice.account_in_collections(bob_me.id)
    check(False, "another's in_collections is refused")
except MastodonAPIError as error:
    check(error.args[1] == 403, "another's in_collections is 403")

item = alice.collection_item_add(made.id, carol_me.id).collection_item
check(item.account_id == carol_me.id and item.state == "accepted", "collection_item_add features carol")
changed = alice.collection_update(made.id, name="Starter pack", sensitive=True).collection
check(changed.name == "Starter pack" and changed.sensitive and changed.item_count == 2, "collection_update changes it")
try:
    carol.collection_update(made.id, name="Mine")
    check(False, "carol cannot change alice's collection")
except MastodonAPIError as error:
    check(error.args[1] == 403, "carol changing alice's collection is 403")
alice.collection_item_delete(made.id, item.id)
check([i.account_id for i in alice.collection(made.id).collection["items"]] == [bob_me.id],
      "collection_item_delete takes carol out")

# Dave does not let himself be featured; carol blocks alice: neither may be added (403).
dave.account_update_credentials(discoverable=False)
carol.account_block(me.id)
for who, account in (("a non-discoverable account", dave_me.id), ("an account that blocks the owner", carol_me.id)):
    try:
        alice.collection_item_add(made.id, account)
        check(False, f"{who} cannot be added")
    except MastodonAPIError as error:
        check(error.args[1] == 403, f"adding {who} is 403")
try:
    carol.collection(made.id)
    check(False, "a collection across a block is not found")
except MastodonNotFoundError:
    check(True, "a collection across a block is 404")

bobs = alice.collection(made.id).collection["items"][0]
try:
    alice.collection_item_revoke(made.id, bobs.id)
    check(False, "only the featured account revokes")
except MastodonAPIError as error:
    check(error.args[1] == 403, "the owner revoking bob's item is 403")
bob.collection_item_revoke(made.id, bobs.id)
check(alice.collection(made.id).collection["items"] == [] and bob.account_in_collections(bob_me.id).collections == [],
      "bob revokes his item: it shows to nobody")
alice.collection_delete(made.id)
try:
    alice.collection(made.id)
    check(False, "a deleted collection is gone")
except MastodonNotFoundError:
    check(True, "a deleted collection is 404")
print("ok - collections through Mastodon.py")
