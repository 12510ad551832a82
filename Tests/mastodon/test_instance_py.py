#!/usr/bin/env python3
"""Mastodon.py against `timeline serve`: the instance's rules, texts, peers, translation languages
and weekly activity, and the operator's announcements (made beforehand with `timeline
announcements add`): the list, dismissing, reacting with emoji and taking a reaction back.
Usage: test_instance_py.py BASE_URL ALICE_TOKEN BOB_TOKEN RULE_ID CURRENT_ID ENDED_ID ALLDAY_ID
Prints `ok - …` lines; exits 1 on a failure."""
import sys
import time

from mastodon import Mastodon, MastodonAPIError, MastodonNotFoundError
from checks import check

base, alice_token, bob_token, rule, current, ended, allday = sys.argv[1:]
alice = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
bob = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")


rules = alice.instance_rules()
check([(r.id, r.text, r.hint) for r in rules] == [(rule, "No spam", "Ads count")], f"instance_rules: {rules}")
check([r.id for r in alice.instance().rules] == [rule], "the instance entity carries the rules")
check(alice.instance_peers() == [], "instance_peers: none (this server does not federate)")
check(dict(alice.instance_translation_languages()) == {}, "instance_translation_languages: none")
weeks = alice.instance_activity()
monday = int(time.time()) // 86400 * 86400
while time.gmtime(monday).tm_wday != 0:
    monday -= 86400
check(len(weeks) == 12 and int(weeks[0].week.timestamp() if hasattr(weeks[0].week, "timestamp") else weeks[0].week)
      == monday, f"instance_activity: twelve weeks, this Monday first ({weeks[0]})")
check(int(weeks[0].statuses) == 1 and int(weeks[0].registrations) == 2 and all(int(w.statuses) == 0 for w in weeks[1:]),
      "this week: one post, two sign-ups; the weeks before, nothing")
description = alice.instance_extended_description()
check(description.content == "<p>About us.</p>", f"instance_extended_description: {description.content}")

shown = alice.announcements()
check([a.id for a in shown] == [allday, current], f"announcements: those in effect, newest first ({[a.id for a in shown]})")
check(all(a.read is False and a.reactions == [] for a in shown), "none read, no reactions yet")
check(shown[0].all_day and shown[0].starts_at is not None and shown[1].starts_at is None, "times as given")
alice.announcement_reaction_create(current, "👍")
bob.announcement_reaction_create(current, "👍")
bob.announcement_reaction_create(current, "🎉")
alice.announcement_reaction_create(current, "👍")  # again: changes nothing
mine = {r.name: (r.count, r.me) for r in alice.announcements()[1].reactions}
check(mine == {"👍": (2, True), "🎉": (1, False)}, f"reactions counted, with me ({mine})")
alice.announcement_reaction_delete(current, "👍")
theirs = {r.name: (r.count, r.me) for r in bob.announcements()[1].reactions}
check(theirs == {"👍": (1, True), "🎉": (1, True)}, f"a reaction taken back ({theirs})")
try:
    alice.announcement_reaction_create(current, "smile")
    check(False, "a name that is no emoji is refused")
except MastodonAPIError as error:
    check(error.args[1] == 422, f"a name that is no emoji is refused ({error.args[1]})")
alice.announcement_dismiss(current)
check([a.read for a in alice.announcements()] == [False, True], "dismissed: read for alice")
check([a.read for a in bob.announcements()] == [False, False], "but not for bob")
try:
    alice.announcement_dismiss("-NoSuchAnnouncement0")
    check(False, "an unknown announcement is not found")
except MastodonNotFoundError:
    check(True, "an unknown announcement is not found")
print("ok - Mastodon.py reads the instance and its announcements")
