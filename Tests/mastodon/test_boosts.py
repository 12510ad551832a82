#!/usr/bin/env python3
"""Boosts (reblogs) through Mastodon.py against `timeline serve`: reblogging again answers the
same boost, a status of its own whose `reblog` is the post; who boosted it; the boost in the home
timeline of a follower of the booster (hidden with `reblogs=False`, `showing_reblogs` false); the
author's `reblog` notification; a user the author blocks, and a non-follower of the author once
the account is private, see nothing of the boost anywhere; unreblog by the boost's id.
Usage: test_boosts.py BASE_URL ALICE_TOKEN BOB_TOKEN CAROL_TOKEN DAVE_TOKEN POST_ID BOOST_ID
(bob boosted alice's post POST_ID as BOOST_ID; carol and dave follow bob; alice blocks dave).
Prints `ok - …` lines; exits 1 on a failure."""
import sys

from mastodon import Mastodon
from mastodon.errors import MastodonNotFoundError
from checks import check

base, alice_token, bob_token, carol_token, dave_token, post_id, boost_id = sys.argv[1:]
alice, bob, carol, dave = (Mastodon(access_token=token, api_base_url=base, version_check_mode="none")
                           for token in (alice_token, bob_token, carol_token, dave_token))


def missing(call):
    """Whether `call` answers 404."""
    try:
        call()
    except MastodonNotFoundError:
        return True
    return False


bob_id = bob.me().id
again = bob.status_reblog(post_id)
check(str(again.id) == boost_id and str(again.reblog.id) == post_id and again.reblog.reblogged,
      "status_reblog again: the same boost, a status of its own whose reblog is the post")
check(again.account.id == bob_id and again.reblog.reblogs_count == 1, "the boost's account is bob; one boost")
check([account.id for account in alice.status_reblogged_by(post_id)] == [bob_id], "status_reblogged_by: bob")
check(str(carol.status(boost_id).reblog.id) == post_id, "status(boost id): the boost")
home = carol.timeline_home()
check([str(status.id) for status in home] == [boost_id] and home[0].reblog.account.acct == "alice",
      "carol's home timeline: bob's boost of alice's post, once")
relationship = carol.account_follow(bob_id, reblogs=False)
check(relationship.showing_reblogs is False and carol.timeline_home() == [], "reblogs=False hides bob's boosts")
check(carol.account_follow(bob_id, reblogs=True).showing_reblogs, "reblogs=True shows them again")
told = alice.notifications(types=["reblog"])
check(any(n.type == "reblog" and str(n.status.id) == post_id and n.account.id == bob_id for n in told),
      "alice's reblog notification")

statuses = carol.account_statuses(bob_id)
check([str(status.id) for status in statuses] == [boost_id] and str(statuses[0].reblog.id) == post_id,
      "account_statuses: bob's boost among his statuses")
check(carol.account_statuses(bob_id, exclude_reblogs=True) == [], "exclude_reblogs: his posts only")

# Dave, whom alice blocks, sees nothing of it.
check(dave.account_statuses(bob_id) == [], "dave: bob's statuses without the boost of alice's post")
check(all(str(status.id) != boost_id for status in dave.timeline_home()), "dave's home: no boost of alice's post")
check(missing(lambda: dave.status(boost_id)), "dave: the boost is not found")
check(missing(lambda: dave.status_reblogged_by(post_id)), "dave: who boosted it is not found")
check(missing(lambda: dave.status_reblog(post_id)), "dave cannot boost it")

# Private means private: once alice's account is locked, carol (no follower of hers) sees nothing.
alice.account_update_credentials(locked=True)
check(carol.timeline_home() == [], "carol's home: nothing of a private account's post")
check(missing(lambda: carol.status(boost_id)), "carol: the boost of a private account's post is not found")
check(missing(lambda: carol.status_reblogged_by(post_id)), "carol: who boosted it is not found")
alice.account_update_credentials(locked=False)

undone = bob.status_unreblog(boost_id)
check(str(undone.id) == post_id and not undone.reblogged and undone.reblogs_count == 0,
      "status_unreblog by the boost's id: the post, no longer boosted")
check(carol.timeline_home() == [] and alice.notifications(types=["reblog"]) == [], "the boost and its notification went")
print("ok - boosts")
