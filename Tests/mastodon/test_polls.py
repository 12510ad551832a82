#!/usr/bin/env python3
"""Polls through Mastodon.py against `timeline serve`: alice posts a photo with a poll (the
instance says the limits), bob reads it on the status, votes, reads the results; a second vote
is Mastodon's 422 "already voted"; carol, who does not follow alice's private account, gets 404
for the poll and for a vote, and so does bob once alice blocks him; a poll beyond the limits is refused.
Usage: test_polls.py BASE_URL ALICE_TOKEN BOB_TOKEN CAROL_TOKEN IMAGE_PATH
(alice's account is locked and bob follows her). Prints `ok - …` lines; exits 1 on a failure."""
import sys

from mastodon import Mastodon, MastodonAPIError, MastodonNotFoundError
from checks import check

base, alice_token, bob_token, carol_token, image_path = sys.argv[1:]
a = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")
c = Mastodon(access_token=carol_token, api_base_url=base, version_check_mode="none")


limits = a.instance_v2().configuration.polls
check(limits.max_options == 4 and limits.max_characters_per_option == 50 and limits.min_expiration == 300,
      f"the instance states the poll limits ({limits})")

media = a.media_post(image_path, mime_type="image/png")
status = a.status_post("Sea or hills?", media_ids=[media.id],
                       poll=a.make_poll(["sea", "hills", "both"], expires_in=3600, multiple=False))
check(status.poll is not None and [o.title for o in status.poll.options] == ["sea", "hills", "both"]
      and not status.poll.expired and status.poll.voted is False, "a status posted with a poll carries it")

seen = b.status(status.id)
check(seen.poll.id == status.poll.id and seen.poll.votes_count == 0, "a follower reads the poll on the status")
voted = b.poll_vote(seen.poll.id, [1])
check(voted.voted and voted.own_votes == [1] and voted.options[1].votes_count == 1 and voted.votes_count == 1,
      "a vote is counted and the voter's own vote shown")
try:
    b.poll_vote(seen.poll.id, [0])
    check(False, "a second vote is refused")
except MastodonAPIError as error:
    check("already voted" in str(error) and "422" in str(error), f"a second vote is Mastodon's 422 ({error})")
mine = a.poll_vote(status.poll.id, [2])
check(mine.own_votes == [2] and mine.votes_count == 2 and mine.voters_count == 2, "the author may vote too")
results = b.poll(status.poll.id)
check([o.votes_count for o in results.options] == [0, 1, 1] and results.own_votes == [1], "the results, read back")

for what, call in [("read", lambda: c.poll(status.poll.id)), ("vote", lambda: c.poll_vote(status.poll.id, [0]))]:
    try:
        call()
        check(False, f"a non-follower cannot {what} a private account's poll")
    except MastodonNotFoundError:
        check(True, f"a non-follower cannot {what} a private account's poll (404)")

# Blocked by the author: the poll and the vote are gone from sight (404), as the post is.
a.account_block(b.me().id)
for what, call in [("read", lambda: b.poll(status.poll.id)), ("vote", lambda: b.poll_vote(status.poll.id, [0]))]:
    try:
        call()
        check(False, f"a user the author blocks cannot {what} the poll")
    except MastodonNotFoundError:
        check(True, f"a user the author blocks cannot {what} the poll (404)")

try:
    a.status_post("Too many", media_ids=[a.media_post(image_path, mime_type="image/png").id],
                  poll=a.make_poll(["1", "2", "3", "4", "5"], expires_in=3600))
    check(False, "a poll of five options is refused")
except MastodonAPIError as error:
    check("422" in str(error), f"a poll of five options is refused with 422 ({error})")

print("ok - every poll call")
