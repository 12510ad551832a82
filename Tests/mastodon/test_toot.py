#!/usr/bin/env python3
"""toot — the Mastodon command-line client, written by others — against `timeline serve`: it logs
in through the authorize page with the out-of-band redirect (the person's part, signing in and
authorizing, is played by an HTTP session on the page's forms), posts a photo with its alt text,
and reads the home timeline and, once bob likes and comments, the notifications. Usage: test_toot.py BASE_URL PHOTO_PATH (alice@example.com /
password-123 must exist). Prints `ok - …` lines; exits 1 on a failure."""
import html
import os
import re
import subprocess
import sys
import tempfile

import requests
from checks import check

base, photo = sys.argv[1:]
env = {**os.environ, "XDG_CONFIG_HOME": tempfile.mkdtemp(), "NO_COLOR": "1"}


def toot(*args):
    run = subprocess.run(["toot", *args], env=env, capture_output=True, text=True, timeout=60)
    check(run.returncode == 0, f"toot {' '.join(args)} exits 0 ({run.stdout[-400:]} {run.stderr[-400:]})")
    return run.stdout


login = subprocess.Popen(["toot", "login", "--instance", base], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
url = None
for line in login.stdout:
    if line.startswith(base + "/oauth/authorize"):
        url = line.strip()
        break
check(url is not None, "toot login prints the authorize page's URL")
login.stdin.write("n\n")
login.stdin.flush()

browser = requests.Session()
page = browser.get(url)
fields = {name: html.unescape(value) for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text)}
consent = browser.post(base + "/oauth/authorize", data={**fields, "email": "alice@example.com", "password": "password-123"})
fields = {name: html.unescape(value) for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', consent.text)}
shown = browser.post(base + "/oauth/authorize", data={**fields, "decision": "authorize"})
code = re.search(r'<input id="code" readonly value="([^"]+)"', shown.text)
check(shown.status_code == 200 and code is not None, "the out-of-band redirect shows the code on the page")
out, _ = login.communicate(code.group(1) + "\n", timeout=60)
check(login.returncode == 0 and "Successfully logged in" in out, f"toot login takes the code ({out[-300:]})")

check("alice" in toot("whoami"), "toot whoami: alice")
posted = toot("post", "from toot #sea", "--media", photo, "--description", "a pixel, from toot")
check("posted" in posted.lower(), f"toot post with a photo and its alt text ({posted.strip()})")
timeline = toot("timeline", "--count", "5")
check("from toot #sea" in timeline, "toot timeline shows the post in the home timeline")
token = next(iter(__import__("json").load(open(os.path.join(env["XDG_CONFIG_HOME"], "toot", "config.json")))["users"].values()))["access_token"]
status = requests.get(base + "/api/v1/timelines/home", headers={"Authorization": "Bearer " + token}).json()[0]
check(status["media_attachments"][0]["description"] == "a pixel, from toot", "the photo's alt text is kept")

# bob (a session of the first-party API is a bearer token here too) likes and comments; toot
# reads alice's notifications, and her home timeline by its numeric ids.
made = requests.post(base + "/v1/users", json={"username": "bob", "email": "bob@example.com", "password": "password-123"})
check(made.status_code == 201, f"bob signs up ({made.text[:200]})")
bob = {"Authorization": "Bearer " + made.json()["session"]}
liked = requests.post(f"{base}/api/v1/statuses/{status['id']}/favourite", headers=bob)
replied = requests.post(base + "/api/v1/statuses", headers=bob, data={"status": "lovely, @alice", "in_reply_to_id": status["id"]})
check(liked.status_code == 200 and replied.status_code == 200, "bob likes and comments on alice's post by its id")
notifications = toot("notifications")
check("bob" in notifications and "lovely, @alice" in notifications, f"toot notifications shows bob's ({notifications[-400:]})")
check(status["id"].isdigit(), f"a status id is a number ({status['id']})")
