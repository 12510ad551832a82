#!/usr/bin/env python3
"""Filters through Mastodon.py against `timeline serve`: v2 filters with keywords and statuses,
v1 filters (one keyword each), and what they do where statuses surface — the home timeline,
a hashtag timeline, the account's statuses, a thread's context and notifications: `hide`
leaves the status (or the notification) out, `warn` returns it with `filtered`; an expired
filter matches nothing; a filter status naming a post alice may not see is refused (404).
Usage: test_filters.py BASE_URL ALICE_TOKEN BOB_TOKEN PUBLIC_POST_ID PRIVATE_POST_ID COMMENT_ID
(alice follows bob; bob's public post says "the #finale was great", his followers-only post is
out of alice's sight, and bob commented "what a finale" on alice's post). Prints `ok - …`
lines; exits 1 on a failure."""
import sys

import requests
from mastodon import Mastodon
from mastodon.errors import MastodonNotFoundError
from checks import check

base, alice_token, bob_token, public_post, private_post, comment = sys.argv[1:]
m = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")


def ids(statuses):
    return [s.id for s in statuses]


check(public_post in ids(m.timeline_home()), "bob's post is in alice's home timeline before any filter")

# A warn filter: the status comes back with `filtered`, as Mastodon returns it.
f = m.create_filter_v2("Spoilers", ["home", "public", "thread", "account", "notifications"], "warn",
                       keywords_attributes=[{"keyword": "Finale", "whole_word": True}])
check(f.title == "Spoilers" and f.filter_action == "warn" and f.expires_at is None
      and [k.keyword for k in f.keywords] == ["Finale"] and f.keywords[0].whole_word is True,
      "create_filter_v2 answers the filter with its keyword")
check([x.id for x in m.filters_v2()] == [f.id], "filters_v2 lists it")
home = {s.id: s for s in m.timeline_home()}
warned = home[public_post].get("filtered") or []
check(len(warned) == 1 and warned[0].filter.id == f.id and warned[0].keyword_matches == ["finale"]
      and "keywords" not in warned[0].filter, "a warned status carries filtered: its FilterResult")
tag = {s.id: s for s in m.timeline_hashtag("finale")}
check(tag[public_post].filtered[0].filter.title == "Spoilers", "the hashtag timeline (public) warns too")
notes = [n for n in m.notifications() if n.status and n.status.id == comment]
check(notes and notes[0].status.filtered[0].filter.id == f.id, "a notification's status is warned")
grouped = requests.get(base + "/api/v2/notifications", headers={"Authorization": f"Bearer {alice_token}"}).json()
check(any(s["id"] == comment and s["filtered"][0]["filter"]["id"] == f.id for s in grouped["statuses"]),
      "a grouped notification's status is warned")

# Hide: the status leaves every surface its contexts name.
m.update_filter_v2(f.id, filter_action="hide")
check(public_post not in ids(m.timeline_home()), "hide: the status leaves the home timeline")
check(public_post not in ids(m.timeline_hashtag("finale")), "hide: and the hashtag timeline")
bob = m.status(public_post).account
check(public_post not in ids(m.account_statuses(bob.id)), "hide: and the account's statuses")
check(not any(n.status and n.status.id == comment for n in m.notifications()), "hide: and notifications")
grouped = requests.get(base + "/api/v2/notifications", headers={"Authorization": f"Bearer {alice_token}"}).json()
check(comment not in [s["id"] for s in grouped["statuses"]]
      and all(g.get("status_id") != comment for g in grouped["notification_groups"]), "hide: and grouped notifications")
check(public_post not in ids(m.timeline_public()), "hide: and the public timeline")
check(comment not in ids(m.status_context(m.status(comment).in_reply_to_id).descendants), "hide: and the thread")

# Keywords and statuses of a filter.
kw = m.add_filter_keyword_v2(f.id, "sunset", whole_word=False)
check([k.keyword for k in m.filter_keywords_v2(f.id)] == ["Finale", "sunset"], "add_filter_keyword_v2")
m.delete_filter_keyword_v2(kw.id)
check([k.keyword for k in m.filter_keywords_v2(f.id)] == ["Finale"], "delete_filter_keyword_v2")
m.update_filter_v2(f.id, keywords_attributes=[{"id": f.keywords[0].id, "_destroy": True}])
check(m.filter_v2(f.id).keywords == [] and public_post in ids(m.timeline_home()),
      "keywords_attributes with _destroy removes the keyword: the status is back")
fs = m.add_filter_status_v2(f.id, public_post)
check(fs.status_id == public_post and m.filter_status_v2(fs.id).id == fs.id, "add_filter_status_v2")
check(public_post not in ids(m.timeline_home()), "a filter status hides its status")
check([s.id for s in m.filter_statuses_v2(f.id)] == [fs.id], "filter_statuses_v2")
m.delete_filter_status_v2(fs.id)
check(public_post in ids(m.timeline_home()), "delete_filter_status_v2: back")
try:
    m.add_filter_status_v2(f.id, private_post)
    check(False, "a post out of sight cannot be filtered")
except MastodonNotFoundError:
    check(True, "a filter status naming a post alice may not see is 404, as an unknown one")

# Expiry: a filter that expires in a second stops matching, with nothing to do.
m.update_filter_v2(f.id, expires_in=1, keywords_attributes=[{"keyword": "finale"}])
check(m.filter_v2(f.id).expires_at is not None and public_post not in ids(m.timeline_home()),
      "an expiring filter hides until it expires")
import time
deadline = time.time() + 10
while public_post not in ids(m.timeline_home()) and time.time() < deadline:
    time.sleep(0.2)
check(public_post in ids(m.timeline_home()), "once expired, it matches nothing (and is still listed)")
check([x.id for x in m.filters_v2()] == [f.id], "the expired filter is still listed")
m.delete_filter_v2(f.id)
check(m.filters_v2() == [], "delete_filter_v2")

# v1: a filter is one keyword.
v1 = m.filter_create("finale", ["home"], irreversible=True, whole_word=True)
check(v1.phrase == "finale" and v1.irreversible is True and v1.context == ["home"], "filter_create (v1)")
check(public_post not in ids(m.timeline_home()), "an irreversible v1 filter hides")
check([x.id for x in m.filters()] == [v1.id] and m.filter(v1.id).phrase == "finale", "filters and filter (v1)")
v1 = m.filter_update(v1.id, phrase="finales", context=["home"], irreversible=False)
check(v1.phrase == "finales" and v1.irreversible is False, "filter_update (v1)")
m.filter_delete(v1.id)
check(m.filters() == [], "filter_delete (v1)")
check(all(s.get("filtered") == [] for s in m.timeline_home()), "a bearer's statuses carry filtered: [] when none matched")
anonymous = requests.get(base + "/api/v1/timelines/tag/finale").json()
check(anonymous and all("filtered" not in s for s in anonymous), "a reader without a token gets no filtered")
print("ok - every filter call")
