#!/usr/bin/env python3
"""Scheduled statuses through Mastodon.py against `timeline serve` (started with
TIMELINE_SCHEDULE_MIN_LEAD_MS=3000: the least lead is 3 s instead of Mastodon's 5 minutes, so
publication is seen without waiting): too soon is 422; alice schedules three posts an hour ahead
(status_post with scheduled_at answers a ScheduledStatus), pages them two by two, reads one, moves
one, cancels one; bob sees none of them; then she moves one to a few seconds ahead and the
server publishes it at its time, once, as the status she scheduled.
Usage: test_scheduled.py BASE_URL ALICE_TOKEN BOB_TOKEN ALICE_ID PHOTO_PATH
Prints `ok - …` lines; exits 1 on a failure."""
import sys
import time
from datetime import datetime, timedelta, timezone

from mastodon import Mastodon
from mastodon.errors import MastodonAPIError, MastodonNotFoundError
from checks import check

base, alice_token, bob_token, alice, photo = sys.argv[1:]
m = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
b = Mastodon(access_token=bob_token, api_base_url=base, version_check_mode="none")


def ahead(seconds):
    return datetime.now(timezone.utc) + timedelta(seconds=seconds)


uploads = [m.media_post(photo, mime_type="image/png", description=f"photo {n}") for n in range(3)]
try:
    m.status_post("too soon", media_ids=[uploads[0].id], scheduled_at=ahead(1))
    check(False, "scheduled_at less than the least lead ahead is refused")
except MastodonAPIError as error:
    check(error.args[1] == 422 and "Scheduled at" in str(error.args), f"too soon: 422 on scheduled_at ({error.args})")

made = []
for n, upload in enumerate(uploads):
    scheduled = m.status_post(f"later {n} #sea", media_ids=[upload.id], scheduled_at=ahead(3600 + n * 60),
                              spoiler_text="soon" if n == 0 else None, visibility="private" if n == 1 else None)
    check("scheduled_at" in scheduled and scheduled.params["text"] == f"later {n} #sea" and scheduled.id.isdigit()
          and [a["id"] for a in scheduled.media_attachments] == [upload.id],
          f"status_post with scheduled_at answers a ScheduledStatus ({scheduled.id})")
    made.append(scheduled)
check(made[0].params["spoiler_text"] == "soon" and made[1].params["visibility"] == "private", "its params as given")

first = m.scheduled_statuses(limit=2)
rest = m.fetch_next(first) or []
check([s.id for s in list(first) + list(rest)] == [s.id for s in reversed(made)],
      "scheduled_statuses pages the latest scheduled first, each once")
check(m.scheduled_status(made[0].id).params["text"] == "later 0 #sea", "scheduled_status(id)")
check(len(b.scheduled_statuses()) == 0, "bob has none")
try:
    b.scheduled_status(made[0].id)
    check(False, "bob cannot read alice's")
except MastodonNotFoundError:
    check(True, "bob's read of alice's is 404")

later = ahead(7200)
moved = m.scheduled_status_update(made[2].id, later)
check(abs((moved.scheduled_at - later).total_seconds()) < 1, "scheduled_status_update moves it")
m.scheduled_status_delete(made[1].id)
try:
    m.scheduled_status(made[1].id)
    check(False, "a cancelled one is gone")
except MastodonNotFoundError:
    check(True, "scheduled_status_delete cancels it (404 after)")

before = len(m.account_statuses(alice))
due = ahead(5)
m.scheduled_status_update(made[0].id, due)
deadline = time.time() + 60
while len(m.account_statuses(alice)) == before:
    check(time.time() < deadline, "published in time")
    time.sleep(0.1)
statuses = m.account_statuses(alice)
published = statuses[0]
check(published.spoiler_text == "soon" and "later 0" in published.content
      and [a.description for a in published.media_attachments] == ["photo 0"],
      "published at its time as scheduled")
check(published.created_at >= due - timedelta(seconds=1), f"created_at is the time of publication ({published.created_at})")
check([s.id for s in m.scheduled_statuses()] == [made[2].id], "it left the scheduled statuses")
check(len(statuses) == before + 1, "published once")
print("ok - every scheduled status call")
