#!/usr/bin/env python3
"""Lists through Mastodon.py against `timeline serve`: alice makes a list, puts bob (whom she
follows) in it — carol, whom she does not follow, is refused —, reads it, its accounts, the
lists holding bob and its timeline paged to the end (bob's posts only, newest first, each once,
his followers-only one included), makes it exclusive (bob's posts leave her home timeline),
takes bob out, deletes it; bob cannot read it.
Usage: test_lists.py BASE_URL ALICE_TOKEN BOB_TOKEN BOB_ID CAROL_ID BOB_POSTS
(alice follows bob and carol; BOB_POSTS is the number of bob's posts, carol has posted too).
Prints `ok - …` lines; exits 1 on a failure."""
import sys

from mastodon import Mastodon
from mastodon.errors import MastodonAPIError, MastodonNotFoundError
from checks import check

base, alice_token, bob_token, bob, carol, bob_posts = sys.argv[1:]
m = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")


made = m.list_create("Bob", replies_policy="followed")
check(made.title == "Bob" and made.replies_policy == "followed" and made.exclusive is False and made.id.isdigit(),
      f"list_create ({dict(made)})")
m.list_accounts_add(made.id, [bob])
try:
    m.list_accounts_add(made.id, [carol])
    check(False, "an account alice does not follow cannot be added")
except MastodonAPIError as error:
    check(error.args[1] == 422, f"an account alice does not follow is refused with 422 ({error.args[1]})")
check([account.id for account in m.list_accounts(made.id)] == [bob], "list_accounts: bob")
check([found.id for found in m.account_lists(bob)] == [made.id], "account_lists(bob): the list")
check([found.id for found in m.lists()] == [made.id], "lists(): the list")
check(m.list(made.id).title == "Bob", "list(id)")

# The list's timeline, paged ten at a time to its end: bob's posts, newest first, each once.
page = m.timeline_list(made.id, limit=10)
seen = []
while page:
    seen += page
    page = m.fetch_next(page)
ids = [status.id for status in seen]
check(len(ids) == int(bob_posts) and len(set(ids)) == len(ids), f"timeline_list pages through {len(ids)} statuses")
check(all(status.account.id == bob for status in seen), "only bob's statuses")
check(ids == sorted(ids, key=int, reverse=True), "newest first")
check(any(status.visibility == "private" for status in seen), "bob's followers-only post shows to alice, a follower")

# Bob sees nothing of alice's list.
try:
    b.list(made.id)
    check(False, "bob cannot read alice's list")
except MastodonNotFoundError:
    check(True, "another's list is 404")
try:
    b.timeline_list(made.id)
    check(False, "bob cannot read alice's list's timeline")
except MastodonNotFoundError:
    check(True, "another's list timeline is 404")

# Exclusive: bob's posts leave alice's home timeline.
updated = m.list_update(made.id, "Bob only", replies_policy="none", exclusive=True)
check(updated.title == "Bob only" and updated.exclusive is True and updated.replies_policy == "none", "list_update")
home = m.timeline_home(limit=40)
check(all(status.account.id != bob for status in home), "an exclusive list's member leaves the home timeline")

m.list_accounts_delete(made.id, [bob])
check(list(m.list_accounts(made.id)) == [] and list(m.timeline_list(made.id)) == [], "list_accounts_delete: empty")
check(any(status.account.id == bob for status in m.timeline_home(limit=40)), "bob is back in the home timeline")
m.list_delete(made.id)
check(m.lists() == [], "list_delete")
print("ok - every list call")
