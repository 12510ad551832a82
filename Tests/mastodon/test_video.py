#!/usr/bin/env python3
"""Videos over HTTP against `timeline serve`, made by the ffmpeg command line and checked by
ffprobe (an independent reader) and by Mastodon.py: a phone's MOV (H.264, sideways, with its
place) through Mastodon's POST /api/v2/media (202, url null, then 206 and 200 from
GET /api/v1/media/:id, as Mastodon.py's synchronous upload waits for), posted and served as an
upright H.264 + AAC MP4 with no metadata; HEVC and WebM through /v1's POST /v1/videos; Range
requests (206 with the exact bytes, 416 past the end); a followers-only post's video hidden from
strangers; a cut-short file failed (422) with its reason; a file that is no video refused at once.
Usage: test_video.py BASE_URL ALICE_TOKEN BOB_TOKEN (fresh accounts; bob does not follow alice).
Prints `ok - …` lines; exits 1 on a failure."""
import json
import os
import subprocess
import sys
import tempfile
import time

import requests
from mastodon import Mastodon, MastodonAPIError
from checks import check

base, alice_token, bob_token = sys.argv[1:]
alice = Mastodon(access_token=alice_token, api_base_url=base, version_check_mode="none")
bearer = {"Authorization": f"Bearer {alice_token}"}
work = tempfile.mkdtemp()


def ffmpeg(name, *arguments):
    path = os.path.join(work, name)
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *arguments, path], check=True, timeout=120)
    return path


def probe(data):
    path = os.path.join(work, f"probe-{time.monotonic_ns()}.mp4")
    with open(path, "wb") as out:
        out.write(data)
    answer = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", path],
                            capture_output=True, check=True, timeout=60)
    return json.loads(answer.stdout)


def ready(media_id, seconds=120):
    """Polls GET /v1/media/{id} until the video is no longer processing; its last answer."""
    deadline = time.monotonic() + seconds
    while True:
        media = requests.get(f"{base}/v1/media/{media_id}", headers=bearer, timeout=30).json()
        if media["video"]["state"] != "processing" or time.monotonic() > deadline:
            return media
        time.sleep(0.2)


plain = ffmpeg("plain.mov", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-f", "lavfi", "-i",
               "sine=frequency=440:sample_rate=44100", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
               "-c:a", "aac")
phone = ffmpeg("phone.mov", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90",
               "-metadata", "location=+48.8577+002.2950/")

# Mastodon's flow: 202 with url null, then GET /api/v1/media/:id until it is processed.
with open(phone, "rb") as f:
    first = requests.post(f"{base}/api/v2/media", headers=bearer, files={"file": ("phone.mov", f, "video/quicktime")},
                          data={"description": "A test card"}, timeout=60)
check(first.status_code == 202 and first.json()["type"] == "video" and first.json()["url"] is None,
      f"POST /api/v2/media with a video: 202, type video, url null ({first.status_code})")
statuses = []
while True:
    polled = requests.get(f"{base}/api/v1/media/{first.json()['id']}", headers=bearer, timeout=30)
    statuses.append(polled.status_code)
    if polled.status_code != 206:
        break
    time.sleep(0.2)
check(statuses[-1] == 200 and set(statuses[:-1]) <= {206}, f"GET /api/v1/media/:id: 206 while processing, then 200")
media = alice.media_post(phone, mime_type="video/quicktime", description="A clip", synchronous=True)
original = media.meta.original
check(media.type == "video" and media.url and media.preview_url and original.width == 360 and original.height == 640
      and abs(original.duration - 2) < 0.1 and original.frame_rate == "30/1",
      f"Mastodon.py's synchronous upload: a video, upright 360×640, 2 s at 30/1 ({original})")

status = alice.status_post("A clip #video", media_ids=[media.id])
attached = status.media_attachments[0]
check(attached.type == "video" and attached.url == media.url, "the status holds the video")
poster = requests.get(attached.preview_url, timeout=30)
check(poster.status_code == 200 and poster.headers["Content-Type"].startswith("image/"),
      f"its preview_url is the poster frame, an image ({poster.status_code})")
whole = requests.get(attached.url, timeout=60)
check(whole.status_code == 200 and whole.headers["Content-Type"] == "video/mp4"
      and whole.headers["Accept-Ranges"] == "bytes", "the MP4 is served, video/mp4, Accept-Ranges: bytes")
found = probe(whole.content)
codecs = sorted(stream["codec_name"] for stream in found["streams"])
video = next(stream for stream in found["streams"] if stream["codec_type"] == "video")
tags = {**found["format"].get("tags", {}), **video.get("tags", {})}
check(codecs == ["aac", "h264"] and (video["width"], video["height"]) == (360, 640),
      f"ffprobe: H.264 + AAC, 360×640 upright ({codecs}, {video['width']}×{video['height']})")
check(not any("location" in key for key in tags) and "rotate" not in tags,
      f"ffprobe: no place, no rotation left in the metadata ({tags})")

# Ranges: the exact bytes, a suffix, and one past the end.
part = requests.get(attached.url, headers={"Range": "bytes=100-199"}, timeout=30)
check(part.status_code == 206 and part.content == whole.content[100:200]
      and part.headers["Content-Range"] == f"bytes 100-199/{len(whole.content)}",
      "Range: bytes=100-199 answers 206 with exactly those bytes")
tail = requests.get(attached.url, headers={"Range": "bytes=-50"}, timeout=30)
check(tail.status_code == 206 and tail.content == whole.content[-50:], "Range: bytes=-50 answers the last 50")
past = requests.get(attached.url, headers={"Range": f"bytes={len(whole.content)}-"}, timeout=30)
check(past.status_code == 416 and past.headers["Content-Range"] == f"bytes */{len(whole.content)}",
      "a range past the end: 416 with the size")

# HEVC and WebM through /v1, then a followers-only post's video hidden from strangers.
hevc = ffmpeg("clip.mp4", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "1", "-c:v", "libx265",
              "-pix_fmt", "yuv420p", "-tag:v", "hvc1")
webm = ffmpeg("clip.webm", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "1", "-c:v", "libvpx-vp9")
ids = []
for path, kind in ((hevc, "video/mp4"), (webm, "video/webm")):
    with open(path, "rb") as f:
        answer = requests.post(f"{base}/v1/videos", headers=bearer, files={"video": (os.path.basename(path), f, kind)},
                               data={"alt": "test card"}, timeout=60)
    check(answer.status_code == 202 and answer.json()["video"]["state"] == "processing",
          f"POST /v1/videos {kind}: 202, processing")
    done = ready(answer.json()["id"])
    check(done["video"]["state"] == "ready" and done["width"] == 320 and done["height"] == 240,
          f"{kind}: transcoded ({done['video']})")
    served = requests.get(f"{base}/v1/videos/{done['id']}", headers=bearer, timeout=30)
    check(sorted(s["codec_name"] for s in probe(served.content)["streams"]) == ["h264"], f"{kind}: served as H.264")
    ids.append(done["id"])
posted = requests.post(f"{base}/v1/posts", headers=bearer, json={"media": ids, "visibility": "followers"}, timeout=30)
check(posted.status_code == 201 and [m["video"]["state"] for m in posted.json()["media"]] == ["ready", "ready"],
      "an album of two videos, followers only")
check(requests.get(f"{base}/v1/videos/{ids[0]}", timeout=30).status_code == 404
      and requests.get(f"{base}/v1/videos/{ids[0]}", headers={"Authorization": f"Bearer {bob_token}"},
                       timeout=30).status_code == 404,
      "a followers-only post's video: 404 to the anonymous and to a stranger")

# A cut-short file is recorded, then fails with its reason; a file that is no video is refused.
with open(plain, "rb") as f:
    cut = f.read()
cut = cut[: len(cut) // 3]
answer = requests.post(f"{base}/api/v2/media", headers=bearer, files={"file": ("cut.mov", cut, "video/quicktime")},
                       timeout=60)
check(answer.status_code == 202, "a cut-short MOV is taken (202) to be transcoded")
deadline = time.monotonic() + 60
while (failed := requests.get(f"{base}/api/v1/media/{answer.json()['id']}", headers=bearer, timeout=30)).status_code \
        == 206 and time.monotonic() < deadline:
    time.sleep(0.2)
check(failed.status_code == 422 and "processing" in failed.json()["error"].lower(),
      f"then GET /api/v1/media/:id answers 422 with the reason ({failed.status_code} {failed.text[:200]})")
try:
    alice.status_post("cut", media_ids=[answer.json()["id"]])
    check(False, "a failed video was attached")
except MastodonAPIError:
    check(True, "a failed video cannot be attached")
words = requests.post(f"{base}/v1/videos", headers=bearer, files={"video": ("x.mp4", b"not a video at all", "video/mp4")},
                      timeout=30)
check(words.status_code == 415, f"a file that is no video: 415 at once ({words.status_code})")
print("ok - videos checked by ffprobe and Mastodon.py")
