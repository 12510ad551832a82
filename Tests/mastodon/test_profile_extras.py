#!/usr/bin/env python3
"""Pinned posts, muted conversations, private notes, endorsements, removing a follower and
familiar followers (#41), through Mastodon.py against `timeline serve`.
Usage: test_profile_extras.py BASE_URL ALICE_TOKEN BOB_TOKEN CAROL_TOKEN POST_IDS
(POST_IDS: six of alice's public posts' Mastodon ids, comma-separated; bob and carol follow
alice, alice follows bob and carol follows bob). Prints `ok - …` lines; exits 1 on a failure."""
import sys

import requests
from mastodon import Mastodon, MastodonAPIError
from checks import check

base, alice_token, bob_token, carol_token, post_ids = sys.argv[1:]
posts = post_ids.split(",")
m = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")
c = Mastodon(access_token=carol_token, api_base_url=base, version_check_mode="none")
alice, bob, carol = m.me(), b.me(), c.me()


def refused(call, status):
    try:
        call()
    except MastodonAPIError as error:
        return error.args[1] == status
    return False


# Pinned posts: one's own, at most five, first on the profile, with `pinned`.
for post in posts[:5]:
    check(m.status_pin(post).pinned is True, f"status_pin({post}) answers pinned")
check(refused(lambda: m.status_pin(posts[5]), 422), "a sixth pin is 422")
check(refused(lambda: b.status_pin(posts[5]), 422), "pinning another's post is 422")
pinned = b.account_statuses(alice.id, pinned=True)
check([s.id for s in pinned] == list(reversed(posts[:5])), "account_statuses(pinned=True): the pins, latest first")
check(all(s.pinned is False for s in pinned), "`pinned` is the viewer's own: false for bob")
check(m.status(posts[0]).pinned is True and m.status(posts[5]).pinned is False, "status.pinned for alice")
check(m.status_unpin(posts[0]).pinned is False, "status_unpin")
check(len(m.account_statuses(alice.id, pinned=True)) == 4, "four pins left")

# A muted conversation: `muted`, and no notification from its thread.
check(m.status_mute(posts[1]).muted is True, "status_mute answers muted")
before = {n.id for n in m.notifications()}
b.status_favourite(posts[1])
b.status_post("nice", in_reply_to_id=posts[1])
b.status_favourite(posts[2])
after = [n for n in m.notifications() if n.id not in before]
check([n.status.id for n in after] == [posts[2]], f"only the unmuted thread notifies ({[n.type for n in after]})")
check(m.status_unmute(posts[1]).muted is False, "status_unmute")

# Private notes: in the writer's relationship only.
check(m.account_note_set(bob.id, "met at the lake").note == "met at the lake", "account_note_set")
check(m.account_relationships(bob.id)[0].note == "met at the lake", "the note in alice's relationship")
check(c.account_relationships(bob.id)[0].note == "", "carol does not read alice's note")
check(m.account_note_set(bob.id, "").note == "", "an empty note clears it")

# Endorsements: only of a followed account; `endorsed`; the lists.
check(refused(lambda: b.account_endorse(carol.id), 422), "endorsing an account not followed is 422")
check(m.account_endorse(bob.id).endorsed is True, "account_endorse")
check(refused(lambda: m.account_pin(carol.id), 422), "account_pin (the older name) follows the same rule")
check([a.id for a in m.endorsements()] == [bob.id], "endorsements: the bearer's (carol is not followed)")
listed = requests.get(f"{base}/api/v1/accounts/{alice.id}/endorsements",
                      headers={"Authorization": f"Bearer {carol_token}"}).json()
check([a["id"] for a in listed] == [bob.id], "GET /api/v1/accounts/:id/endorsements")
check(m.account_unendorse(bob.id).endorsed is False, "account_unendorse")
m.account_endorse(bob.id)

# Familiar followers: the accounts alice follows who follow bob.
familiar = m.account_familiar_followers(bob.id)
check(familiar[0].id == bob.id and [a.id for a in familiar[0].accounts] == [], "familiar followers of bob: none")
familiar = c.account_familiar_followers(alice.id)
check([a.id for a in familiar[0].accounts] == [bob.id], "carol follows bob, who follows alice")

# Removing a follower ends their follow.
relationship = m.account_remove_from_followers(bob.id)
check(relationship.followed_by is False, "remove_from_followers: bob no longer follows alice")
check(bob.id not in [a.id for a in m.account_followers(alice.id)], "bob left alice's followers")

# Featured hashtags: the posts of alice's that carry one are counted.
check([t.name for t in m.featured_tag_suggestions()] == ["extra"], "featured_tag_suggestions: her own posts' tags")
featured = m.featured_tag_create("Extra")
check(featured.name == "extra" and str(featured.statuses_count) == "6" and featured.last_status_at is not None,
      f"featured_tag_create: counted ({featured})")
check([t.id for t in c.account_featured_tags(alice.id)] == [featured.id], "account_featured_tags")
check(m.featured_tag_suggestions() == [], "a featured tag is no longer suggested")
m.featured_tag_delete(featured.id)
check(m.featured_tags() == [], "featured_tag_delete")
m.featured_tag_create("extra")

# A block hides the blocker's pins, endorsements and featured tags.
m.account_block(carol.id)
check(c.account_statuses(alice.id, pinned=True) == [], "a blocked account sees none of the pins")
check(c.account_featured_tags(alice.id) == [], "nor the featured tags")
print("ok - every profile extra")
