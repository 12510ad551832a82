#!/usr/bin/env python3
"""Three Timeline servers federating (#43): `timeline serve` as one.test, two.test and
three.test, each behind nginx with TLS (a certificate of the test's own authority), each reaching the other
through `--federation-connect-to` and trusting the authority through `--federation-ca-file`.
People use them through Mastodon.py (the Mastodon API) and /v1, as apps do:
- one.test runs in authorised-fetch mode: an unsigned fetch of an actor there is 401, its own
  actor is served to anyone, and everything below works with the servers' signed fetches.
- alice at one.test finds @bob@two.test with a search that resolves it, and follows him;
  bob's server accepts; bob is followed by alice@one.test.
- bob changes his bio: his actor's Update reaches one.test.
- one.test serves no actor of its own for a remote account, and a remote status's `uri` is its
  Note's id on its server.
- bob posts an album of two photos with alt texts; it reaches alice's home timeline, its
  photos fetched and re-encoded by one.test, served from one.test; carol, who does not follow
  him, never has it in hers.
- bob posts a video: one.test fetches it, transcodes it and then records the post; alice has it
  with its alt text, played from one.test by ranges; carol does not.
- carol follows bob, then blocks two.test: her follow ends on both servers, his posts leave her
  sight, and come back when she lifts the block; while it stands, one.test (secure mode) refuses
  two.test's signed fetch of her post.
- the web app in headless Chromium, at https://one.test through nginx: carol finds @bob@two.test
  in Search, follows him from his profile, sees his next photo in Home served by one.test, likes
  it on its card and comments on it from its page; two.test has both. She blocks two.test from
  bob's profile (her follow ends), and lifts the block in Settings, under Blocked servers.
- bob's followers-only post reaches alice and nobody else on one.test sees it; his direct
  message to carol at two.test never leaves two.test.
- alice writes a direct message to bob and to tcarol at two.test (whom one.test looks up as she
  posts): they alone have it, in one conversation; bob's answer reaches her in it; carol at
  one.test and dave at two.test have nothing of either.
- alice likes and answers bob's post: bob's post has her like and her comment at two.test, and
  bob is notified; her unlike takes the like back; bob's answer to her comment is threaded under
  it at one.test, and his deletion of it reaches one.test.
- bob edits his caption, then deletes the post: one.test follows.
- a locked account at two.test gets alice's request, and approves it.
- two.test is unreachable (its proxy stopped) while alice likes, and one.test is killed and
  started again: the like reaches two.test once it is back.
- alice boosts bob's post: two.test counts her boost and notifies bob; erin at three.test, who
  follows alice, has the boost in her home timeline, bob's post fetched from two.test; carol's
  comment on alice's next post at one.test reaches three.test under it. Her followers-only boost
  reaches erin, addressed to her followers; her followers-only post and carol's comment on it
  reach erin, and frank at three.test, who does not follow her, sees neither.
- alice unfollows bob: two.test forgets her as a follower.
- dave blocks alice: one.test ends her follow of him and shows her the block.
- alice erases her account: one.test sends her actor's `Delete`, signed before her key is
  shredded, and three.test erases her account there (erin no longer follows her).
Usage: test_two_servers.py TIMELINE DIRECTORY (DIRECTORY holds ca.pem, peer.pem and peer.key:
a certificate for one.test, two.test and three.test). Prints `ok - …`; exits 1 on the first failure."""
import atexit
import base64
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib

import json
import urllib.parse

import requests
from mastodon import Mastodon, MastodonNotFoundError
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service as ChromeService
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

timeline, directory = sys.argv[1:]


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        stop_all()
        sys.exit(1)
    print(f"ok - {what}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eventually(probe, seconds=30):
    """The first truthy answer of `probe`, polled, or the last falsy one after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        answer = probe()
        if answer or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def make_png(rgb):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes(rgb) * 16 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


processes = []


def stop_all():
    for process in processes:
        if process.poll() is None:
            process.terminate()  # nginx's master stops its workers on SIGTERM (not on SIGKILL)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# Whatever ends the test (a failed check, an exception), no server outlives it.
atexit.register(stop_all)


class Server:
    """`timeline serve` for `name` (one.test or two.test) on its own database, behind nginx's
    port `public_port`; `peers` are the other servers' (name, port)."""

    def __init__(self, name, public_port, peers):
        self.name, self.public_port = name, public_port
        self.domain = f"{name}:{public_port}"
        self.database = os.path.join(directory, name)
        self.arguments = [timeline, "serve", "--db", self.database, "--listen", "127.0.0.1:0",
                          "--domain", self.domain, "--rate-limit", "1000000",
                          "--federation-allow-private", "--federation-ca-file", os.path.join(directory, "ca.pem")]
        for peer, port in peers:
            self.arguments += ["--federation-connect-to", f"{peer}:{port}:127.0.0.1:{port}"]
        if name == "one.test":
            # Authorised fetch's secure mode, as many Mastodon servers run (GoToSocial by default):
            # everything below works with one.test answering signed requests alone.
            self.arguments.append("--federation-authorized-fetch")
        self.start()

    def start(self):
        environment = dict(os.environ, TIMELINE_FEDERATION_RETRY_UNIT_MS="20")
        self.process = subprocess.Popen(self.arguments, stdout=subprocess.PIPE, stderr=open(
            os.path.join(directory, self.name + ".log"), "a"), env=environment, text=True)
        processes.append(self.process)
        line = self.process.stdout.readline()
        check(line.startswith("listening on http://127.0.0.1:"), f"{self.name} serves ({line.strip()})")
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.http = requests.Session()
        self.http.headers["Host"] = self.domain  # as the proxy passes it on

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def local(self, url):
        """A URL of this server's (https://one.test:PORT/…) on its loopback listener."""
        return url.replace(f"https://{self.domain}", self.base)

    def sign_up(self, name, locked=False):
        answer = self.http.post(f"{self.base}/v1/users", json={
            "username": name, "email": f"{name}@example.com", "password": "password-123"}, timeout=30).json()
        token = answer["session"]
        if locked:
            self.http.patch(f"{self.base}/v1/me", json={"locked": True},
                            headers={"Authorization": f"Bearer {token}"}, timeout=30).raise_for_status()
        return token, answer["user"]["id"]

    def mastodon(self, token):
        return Mastodon(access_token=token, api_base_url=self.base, session=self.http, version_check_mode="none")

    def v1(self, method, path, token=None, **kwargs):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.http.request(method, f"{self.base}{path}", headers=headers, timeout=30, **kwargs)


def start_nginx(servers):
    blocks = "".join(f"""
    server {{
        listen 127.0.0.1:{s.public_port} ssl;
        server_name {s.name};
        ssl_certificate {directory}/peer.pem;
        ssl_certificate_key {directory}/peer.key;
        client_max_body_size 20m;
        location / {{
            proxy_pass http://127.0.0.1:{s.port};
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto https;
        }}
    }}""" for s in servers)
    config = os.path.join(directory, "nginx.conf")
    with open(config, "w") as f:
        f.write(f"""daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {directory}/nginx-body;
    proxy_temp_path {directory}/nginx-proxy;
{blocks}
}}
""")
    nginx_binary = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx_binary, "-p", directory, "-c", config], stderr=subprocess.DEVNULL)
    processes.append(process)
    ca = os.path.join(directory, "ca.pem")
    for s in servers:
        def up():
            try:
                with socket.create_connection(("127.0.0.1", s.public_port), timeout=1):
                    return True
            except OSError:
                return False
        check(eventually(up, 20), f"nginx serves {s.domain} with TLS")
    return process


ports = {name: free_port() for name in ["one.test", "two.test", "three.test"]}
one, two, three = (Server(name, ports[name], [(peer, port) for peer, port in ports.items() if peer != name])
                   for name in ports)
nginx = start_nginx([one, two, three])

alice_token, alice_id = one.sign_up("alice")
unsigned = one.http.get(f"{one.base}/users/{alice_id}", headers={"Accept": "application/activity+json"}, timeout=30)
check(unsigned.status_code == 401, f"one.test answers an unsigned fetch of alice's actor 401 ({unsigned.status_code})")
own = one.http.get(f"{one.base}/actor", headers={"Accept": "application/activity+json"}, timeout=30)
check(own.status_code == 200 and own.json()["type"] == "Application",
      "and serves its own actor to anyone (what a server fetches to check a signature)")
carol_token, carol_id = one.sign_up("carol")
bob_token, bob_id = two.sign_up("bob")
dave_token, dave_id = two.sign_up("dave", locked=True)
tcarol_token, tcarol_id = two.sign_up("tcarol")
a, c = one.mastodon(alice_token), one.mastodon(carol_token)
b = two.mastodon(bob_token)

# Bob has a bio and a profile photo; alice finds him by his handle, and follows him.
b.account_update_credentials(note="Squares and circles", avatar=make_png((90, 30, 160)), avatar_mime_type="image/png")
found = a.search_v2(f"@bob@{two.domain}", resolve=True).accounts
check(len(found) == 1 and found[0].acct == f"bob@{two.domain}", f"alice's search resolves @bob@{two.domain}")
remote_bob = found[0]
remote_bob_native = one.v1("GET", "/v1/users", alice_token, params={"prefix": f"bob@{two.domain}"}).json()["items"][0]["id"]
check(remote_bob.note.endswith("Squares and circles</p>") or "Squares and circles" in remote_bob.note,
      f"his bio came with him ({remote_bob.note})")
check(remote_bob.avatar.startswith(f"https://{one.domain}/v1/images/"),
      f"his profile photo too, re-encoded and served by one.test ({remote_bob.avatar})")
check(remote_bob.url.startswith(f"https://{two.domain}/"), f"his account's url is on two.test ({remote_bob.url})")
relationship = a.account_follow(remote_bob.id)
check(relationship.requested or relationship.following, "alice's follow is sent")
alice_there = f"alice@{one.domain}"


def bobs_followers():
    return [u["username"] for u in two.v1("GET", f"/v1/users/{bob_id}/followers").json()["items"]]


check(eventually(lambda: alice_there in bobs_followers()), f"two.test has bob followed by {alice_there}")
check(eventually(lambda: a.account_relationships(remote_bob.id)[0].following),
      "two.test's Accept reaches one.test: alice follows bob")
b.account_update_credentials(note="Now with triangles")
check(eventually(lambda: "Now with triangles" in a.account(remote_bob.id).note),
      "bob's new bio reaches one.test (an Update of his actor)")

# Bob posts an album; it reaches alice's home timeline with its photos, served by one.test.
media = [two.v1("POST", "/v1/media", bob_token, json={"image": base64.b64encode(make_png(rgb)).decode(),
                                                        "alt": alt}).json()["id"]
         for rgb, alt in [((200, 40, 40), "a red square"), ((40, 40, 200), "a blue square")]]
album = two.v1("POST", "/v1/posts", bob_token, json={"media": media, "caption": "Two squares #squares"}).json()


def in_home(mastodon, caption):
    return next((s for s in mastodon.timeline_home() if caption in s.content), None)


arrived = eventually(lambda: in_home(a, "Two squares"))
check(arrived is not None, "bob's album reaches alice's home timeline at one.test")
check(arrived.account.acct == f"bob@{two.domain}", "by bob@two.test")
check(arrived.uri.startswith(f"https://{two.domain}/users/") and "/statuses/" in arrived.uri,
      f"its uri is its Note's id at two.test ({arrived.uri})")
# (Asked of two.test, which answers unsigned fetches: one.test's account of alice there.)
alice_at_two_native = two.v1("GET", "/v1/users", bob_token, params={"prefix": alice_there}).json()["items"][0]["id"]
actor_here = two.http.get(f"{two.base}/users/{alice_at_two_native}",
                          headers={"Accept": "application/activity+json"}, timeout=30)
check(actor_here.status_code == 404,
      f"a server serves no actor of its own for another server's account ({actor_here.status_code})")
check([m.description for m in arrived.media_attachments] == ["a red square", "a blue square"],
      "with both photos, in order, with their alt texts")
check(all(m.url.startswith(f"https://{one.domain}/") for m in arrived.media_attachments),
      "its photos are served by one.test, not from two.test")
photo = one.http.get(one.local(arrived.media_attachments[0].url), timeout=30)
check(photo.status_code == 200 and photo.headers["Content-Type"].startswith("image/"),
      f"one.test serves the re-encoded photo ({photo.status_code} {photo.headers.get('Content-Type')})")
check(in_home(c, "Two squares") is None, "carol, who does not follow bob, does not have it")
check(any("Two squares" in s.content for s in c.timeline_public(remote=True))
      and not any("Two squares" in s.content for s in c.timeline_public(local=True)),
      "it is public: in one.test's public timeline of other servers' posts, not of its own")

# Bob posts a video (made by the ffmpeg command line): one.test fetches it, transcodes it as its
# own uploads are, and records the post once it is ready; alice has it, played from one.test.
clip = os.path.join(directory, "clip.mp4")
subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=320x240:rate=25", "-t", "1", "-pix_fmt", "yuv420p", clip], check=True, timeout=120)
with open(clip, "rb") as f:
    video = two.v1("POST", "/v1/videos", bob_token,
                   json={"video": base64.b64encode(f.read()).decode(), "alt": "a test card"}).json()["id"]
check(eventually(lambda: two.v1("GET", f"/v1/media/{video}", bob_token).json()["video"]["state"] == "ready",
                 seconds=120), "bob's video is transcoded at two.test")
two.v1("POST", "/v1/posts", bob_token, json={"media": [video], "caption": "A moving picture"})
moving = eventually(lambda: in_home(a, "A moving picture"), seconds=120)
check(moving is not None, "bob's video post reaches alice's home timeline at one.test, once transcoded there")
check([(m.type, m.description) for m in moving.media_attachments] == [("video", "a test card")],
      f"with its video and its alt text ({[(m.type, m.description) for m in moving.media_attachments]})")
check(moving.media_attachments[0].url.startswith(f"https://{one.domain}/"), "served by one.test, not two.test")
played = one.http.get(one.local(moving.media_attachments[0].url), headers={"Range": "bytes=0-99"}, timeout=30)
check(played.status_code == 206 and played.headers["Content-Type"] == "video/mp4" and len(played.content) == 100,
      f"one.test plays it, by ranges ({played.status_code} {played.headers.get('Content-Type')})")
check(in_home(c, "A moving picture") is None, "carol, who does not follow bob, does not have it")

# Carol follows bob, then blocks his whole server: the follow ends on both sides and his posts
# leave her sight; lifting the block brings them back.
c.account_follow(remote_bob.id)
carol_there = f"carol@{one.domain}"
check(eventually(lambda: carol_there in bobs_followers()), "carol follows bob too")
c.domain_block(two.domain)
check(c.domain_blocks() == [two.domain], f"carol's domain blocks are [{two.domain}]")
check(one.v1("GET", "/v1/me/domain-blocks", carol_token).json() == {"servers": [two.domain]},
      "and /v1/me/domain-blocks lists the same")
relationship = c.account_relationships(remote_bob.id)[0]
check(relationship.domain_blocking and not relationship.following, "her follow of bob ended; she blocks his server")
check(eventually(lambda: carol_there not in bobs_followers()), "two.test is told: bob has lost her as a follower")
check(not any("Two squares" in s.content for s in c.timeline_public(remote=True)),
      "bob's album is hidden from carol")
check(any("Two squares" in s.content for s in a.timeline_public(remote=True)), "not from alice")
# one.test (secure mode) serves her documents to no server she blocks, as Mastodon does: two.test's
# signed fetch of her public post, as bob resolves its URL, is refused until she lifts the block.
carols = one.v1("POST", "/v1/posts", carol_token, json={"image": base64.b64encode(make_png((90, 30, 160))).decode(),
                                                         "caption": "Carol's violet square"}).json()
carols_url = f"https://{one.domain}/users/{carol_id}/statuses/{carols['id']}"
check(b.search_v2(carols_url, resolve=True).statuses == [],
      "two.test, which she blocks, cannot fetch her post from one.test")
c.domain_unblock(two.domain)
check(c.domain_blocks() == [] and any("Two squares" in s.content for s in c.timeline_public(remote=True)),
      "carol lifts the block: bob's album is back for her")
check([s.uri for s in b.search_v2(carols_url, resolve=True).statuses] == [carols_url],
      "and two.test fetches her post now")

# The web app, in headless Chromium, at https://one.test:PORT through nginx: carol finds bob by his
# handle in Search, follows him from his profile, sees his next photo in Home (served by one.test),
# likes it on its card and comments on it from its page; two.test has the like and the comment.
def web_app_follows_likes_and_comments():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--host-resolver-rules=MAP *.test 127.0.0.1",
                     "--ignore-certificate-errors"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=ChromeService(
        executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    wait = WebDriverWait(driver, 30, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException])
    origin = f"https://{one.domain}"
    try:
        driver.get(origin + "/")
        me = {"session": carol_token, "user": one.v1("GET", f"/v1/users/{carol_id}", carol_token).json()}
        driver.execute_script("localStorage.setItem('timeline.session', arguments[0])", json.dumps(me))
        driver.get(f"{origin}/#/search?q={urllib.parse.quote('@bob@' + two.domain)}")
        driver.refresh()
        link = wait.until(lambda d: next((a for a in d.find_elements(By.CSS_SELECTOR, "main a.user")
                                          if a.text == f"bob@{two.domain}"), None), "Search did not find bob")
        link.click()

        wait.until(lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, "main button") if b.text == "Follow"),
                                  None), "no Follow on bob's profile").click()
        check(eventually(lambda: carol_there in bobs_followers()),
              "in the web app carol finds bob by his handle and follows him; two.test accepts")
        caption = "Seen from a browser"
        two.v1("POST", "/v1/posts", bob_token, json={"image": base64.b64encode(make_png((20, 160, 160))).decode(),
                                                     "caption": caption}).raise_for_status()
        here = eventually(lambda: next((p for p in one.v1("GET", "/v1/timeline", carol_token).json()["items"]
                                        if p.get("caption") == caption), None))
        check(here is not None, "bob's new post reaches carol's Home")
        driver.get(origin + "/#/")
        driver.refresh()
        card = wait.until(lambda d: next((a for a in d.find_elements(By.CSS_SELECTOR, "main article")
                                          if caption in a.text), None), "the post is not in Home")
        images = [i.get_attribute("src") for i in card.find_elements(By.CSS_SELECTOR, "img")]
        check(any(src.startswith(origin + "/v1/images/") for src in images),
              f"its photo is shown from one.test ({images})")
        card.find_element(By.CSS_SELECTOR, "button.like").click()
        there = two.v1("GET", "/v1/users/" + bob_id + "/posts").json()["items"][0]
        check(eventually(lambda: two.v1("GET", f"/v1/posts/{there['id']}").json()["likeCount"] == 1),
              "carol likes it on its card; two.test counts her like")
        driver.get(f"{origin}/#/post/{here['id']}")
        box = wait.until(lambda d: d.find_element(By.ID, "comment"), "no comment box on the post's page")
        box.send_keys("Lovely colour")
        box.find_element(By.XPATH, "ancestor::form//button[@type='submit']").click()
        check(eventually(lambda: any(cm["text"].endswith("Lovely colour") and cm["authorUsername"] == carol_there
                                     for cm in two.v1("GET", f"/v1/posts/{there['id']}/comments").json()["items"])),
              "her comment from the post's page reaches bob's post at two.test")

        # From bob's profile she blocks his whole server, and lifts the block in Settings.
        driver.get(f"{origin}/#/u/{urllib.parse.quote('bob@' + two.domain)}")
        wait.until(lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, "main button.block-server")
                                   if b.text == f"Block {two.domain}"), None), "no Block server on bob's profile").click()
        wait.until(expected_conditions.alert_is_present(), "no confirmation asked").accept()
        check(eventually(lambda: one.v1("GET", "/v1/me/domain-blocks", carol_token).json()["servers"] == [two.domain]),
              f"from bob's profile carol blocks {two.domain}, once she confirms")
        check(eventually(lambda: carol_there not in bobs_followers()), "her follow of bob ends; two.test is told")
        driver.get(f"{origin}/#/settings")
        wait.until(lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, ".settings-servers button")
                                   if b.get_attribute("aria-label") == f"Unblock {two.domain}"), None),
                   "Settings does not list the blocked server").click()
        check(eventually(lambda: one.v1("GET", "/v1/me/domain-blocks", carol_token).json()["servers"] == []),
              "Settings lists it under Blocked servers, and its Unblock lifts the block")
    finally:
        driver.quit()


web_app_follows_likes_and_comments()
# Carol follows nobody at two.test now (her server block ended her follow of bob): the
# followers-only checks below are hers.
check(not c.account_relationships(remote_bob.id)[0].following, "carol no longer follows bob")

# Followers-only reaches alice only; a direct message stays at two.test.
image = base64.b64encode(make_png((40, 200, 40))).decode()
private_there = two.v1("POST", "/v1/posts", bob_token, json={"image": image, "caption": "Only for followers",
                                                             "visibility": "followers"}).json()
private = eventually(lambda: in_home(a, "Only for followers"))
check(private is not None and private.visibility == "private", "the followers-only post reaches alice, private")
try:
    c.status(private.id)
    check(False, "carol reads bob's followers-only post")
except Exception:
    check(True, "carol cannot read bob's followers-only post at one.test")
check(all("Only for followers" not in s.content for s in c.account_statuses(remote_bob.id)),
      "nor on bob's profile at one.test")
# Alice answers it: her reply is addressed to bob alone, and bob has it.
a.status_post("Just for you", in_reply_to_id=private.id)
check(eventually(lambda: any(cm["text"].endswith("Just for you") for cm in two.v1(
    "GET", f"/v1/posts/{private_there['id']}/comments", bob_token).json()["items"])),
      "alice's answer to the followers-only post reaches bob")
two.v1("POST", "/v1/posts", bob_token, json={"caption": "@tcarol a secret", "visibility": "direct"}
       ).raise_for_status()

# Alice likes and answers the album: two.test has both, and bob is notified.
post_here = arrived.id
a.status_favourite(post_here)
a.status_post("Lovely squares!", in_reply_to_id=post_here)
album_id = album["id"]


def album_there():
    return two.v1("GET", f"/v1/posts/{album_id}").json()


check(eventually(lambda: album_there()["likeCount"] == 1), "alice's like reaches bob's post at two.test")
check(eventually(lambda: any(cm["text"].endswith("Lovely squares!") and cm["authorUsername"] == alice_there
                             for cm in two.v1("GET", f"/v1/posts/{album_id}/comments").json()["items"])),
      "alice's answer is a comment on bob's post at two.test")
# Bob answers her comment at two.test: one.test threads his answer under hers; his deletion of it
# reaches one.test too (remote comments are known by their Notes).
her_comment = next(cm for cm in two.v1("GET", f"/v1/posts/{album_id}/comments").json()["items"]
                   if cm["text"].endswith("Lovely squares!"))
his_answer = two.v1("POST", f"/v1/posts/{album_id}/comments", bob_token,
                    json={"text": "Thank you!", "replyTo": her_comment["id"]}).json()


def answers_here():
    return [st for st in a.status_context(post_here).descendants if "Thank you!" in st.content]


answered = eventually(answers_here)
mine = [st for st in a.status_context(post_here).descendants if "Lovely squares!" in st.content]
check(answered and mine and answered[0].account.acct == f"bob@{two.domain}"
      and answered[0].in_reply_to_id == mine[0].id,
      "bob's answer to alice's comment reaches one.test, threaded under hers")
two.v1("DELETE", f"/v1/comments/{his_answer['id']}", bob_token).raise_for_status()
check(eventually(lambda: not answers_here()), "his deletion of it reaches one.test")
kinds = {(n.type, n.account.acct) for n in b.notifications()}
check(("favourite", alice_there) in kinds, f"bob is notified of alice's like ({kinds})")
check(("mention", alice_there) in kinds, "bob is notified of alice's answer (a comment is a mention)")
a.status_unfavourite(post_here)
check(eventually(lambda: album_there()["likeCount"] == 0), "alice's unlike takes it back at two.test")

# Bob edits his caption, then deletes the post: one.test follows.
two.v1("PATCH", f"/v1/posts/{album_id}", bob_token, json={"caption": "Two squares, edited"}).raise_for_status()
check(eventually(lambda: "edited" in a.status(post_here).content), "bob's edit reaches one.test")
two.v1("DELETE", f"/v1/posts/{album_id}", bob_token).raise_for_status()
check(eventually(lambda: in_home(a, "Two squares") is None), "bob's deletion reaches one.test")
check(one.v1("GET", f"/v1/posts/{arrived.id}").status_code == 404, "the post is gone at one.test")

# A secret that never travelled: nobody at one.test has it.
check(all("a secret" not in s.content for s in a.timeline_home() + c.timeline_home()),
      "bob's direct message to tcarol never reached one.test")

# Direct messages across servers. Alice writes to bob and to tcarol, whom one.test has not met
# yet (looked up as she posts): two.test has it for them alone; bob answers in the conversation,
# and alice has his answer; carol at one.test and dave at two.test have nothing of either.
t = two.mastodon(tcarol_token)
d = two.mastodon(dave_token)
a.status_post(f"@bob@{two.domain} @tcarol@{two.domain} a word for you", visibility="direct")


def conversation_with(mastodon, words):
    return next((cv for cv in mastodon.conversations() if cv.last_status and words in cv.last_status.content), None)


for name, mastodon in [("bob", b), ("tcarol", t)]:
    got = eventually(lambda: conversation_with(mastodon, "a word for you"))
    check(got is not None and got.last_status.visibility == "direct"
          and got.last_status.account.acct == alice_there, f"{name} at two.test has alice's direct message")
got = conversation_with(b, "a word for you")
check(got is not None and {acct.acct for acct in got.accounts} == {alice_there, "tcarol"},
      f"one conversation of alice, bob and tcarol ({got and [acct.acct for acct in got.accounts]})")
if got:
    b.status_post(f"@alice@{one.domain} back to you", in_reply_to_id=got.last_status.id, visibility="direct")
answer = eventually(lambda: conversation_with(a, "back to you"))
check(answer is not None and answer.last_status.account.acct == f"bob@{two.domain}"
      and answer.last_status.in_reply_to_id is not None,
      "bob's answer reaches alice at one.test, in answer to her message")
check(len(a.conversations()) == 1, "in the same conversation as hers (alice has one)")
check(eventually(lambda: conversation_with(t, "back to you")) is not None, "tcarol has bob's answer too")
check(c.conversations() == [] and all("a word" not in s.content and "back to you" not in s.content
                                      for s in c.timeline_home() + c.timeline_public()),
      "carol at one.test has nothing of them")
check(d.conversations() == [], "nor has dave at two.test")

# Mastodon's public streams at one.test: `public/local` carries alice's posts and never bob's,
# `public/remote` bob's and never alice's (each checked by the next post as a sentinel).
def updates(path):
    """The texts of a stream's `update`s, as they come (the stream is open when this returns)."""
    response = one.http.get(f"{one.base}/api/v1/streaming/{path}", stream=True, timeout=60,
                            headers={"Authorization": f"Bearer {alice_token}"})
    lines = response.iter_lines(chunk_size=1, decode_unicode=True)
    check(next(lines) == ":)", f"the {path} stream is open")

    def texts():
        event = None
        for line in lines:
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: ") and event == "update":
                yield re.sub("<[^>]+>", "", json.loads(line[len("data: "):])["content"])
    return texts()


local_stream, remote_stream = updates("public/local"), updates("public/remote")


def photo_post(server, token, caption):
    image = base64.b64encode(make_png((120, 60, 200))).decode()
    return server.v1("POST", "/v1/posts", token, json={"image": image, "caption": caption}).json()


photo_post(one, alice_token, "Local one")
photo_post(two, bob_token, "Remote one")
check(eventually(lambda: in_home(a, "Remote one")) is not None, "bob's post reached one.test")
photo_post(one, alice_token, "Local two")
photo_post(two, bob_token, "Remote two")
check(eventually(lambda: in_home(a, "Remote two")) is not None, "bob's next post reached one.test")
check([next(local_stream), next(local_stream)] == ["Local one", "Local two"],
      "the public/local stream carries alice's posts, and nothing of bob's between them")
check([next(remote_stream), next(remote_stream)] == ["Remote one", "Remote two"],
      "the public/remote stream carries bob's posts, and nothing of alice's between them")

# A locked account at two.test, found as the web app finds people (/v1's search, by handle):
# alice asks, dave approves.
found = one.v1("GET", "/v1/users", alice_token, params={"prefix": f"dave@{two.domain}"}).json()["items"]
check([u["username"] for u in found] == [f"dave@{two.domain}"], f"/v1's search finds dave at two.test ({found})")
profile = one.v1("GET", f"/v1/users/@dave@{two.domain}", alice_token)
check(profile.status_code == 200 and profile.json()["id"] == found[0]["id"],
      f"his profile opens by handle, as the web app opens it ({profile.status_code})")
looked_up = one.http.get(f"{one.base}/api/v1/accounts/lookup", params={"acct": f"dave@{two.domain}"}, timeout=30)
check(looked_up.status_code == 200 and looked_up.json()["acct"] == f"dave@{two.domain}",
      f"and Mastodon's account lookup finds him ({looked_up.status_code})")
remote_dave = a.search_v2(f"@dave@{two.domain}", resolve=True).accounts[0]
a.account_follow(remote_dave.id)
requests_there = eventually(lambda: two.v1("GET", "/v1/me/follow-requests", dave_token).json()["items"])
check([u["username"] for u in requests_there] == [alice_there], "dave at two.test has alice's request")
check(not a.account_relationships(remote_dave.id)[0].following, "alice does not follow him yet")
two.v1("PUT", f"/v1/me/follow-requests/{requests_there[0]['id']}", dave_token).raise_for_status()
check(eventually(lambda: a.account_relationships(remote_dave.id)[0].following),
      "dave's approval reaches one.test: alice follows him")

# Two.test unreachable while alice likes; one.test killed and started again; the like arrives.
image = base64.b64encode(make_png((200, 200, 40))).decode()
later = two.v1("POST", "/v1/posts", bob_token, json={"image": image, "caption": "Yellow"}).json()
later_here = eventually(lambda: in_home(a, "Yellow"))
check(later_here is not None, "bob's next post reaches alice")
nginx.send_signal(signal.SIGTERM)
nginx.wait()
a.status_favourite(later_here.id)
one.kill()
one.start()
nginx = start_nginx([one, two, three])
a, c = one.mastodon(alice_token), one.mastodon(carol_token)
check(eventually(lambda: two.v1("GET", f"/v1/posts/{later['id']}").json()["likeCount"] == 1, 60),
      "after the restart, one.test delivers the like it had queued")

# Erin at three.test follows alice; alice boosts bob's post: bob and erin see it.
erin_token, erin_id = three.sign_up("erin")
e = three.mastodon(erin_token)
remote_alice = e.search_v2(f"@alice@{one.domain}", resolve=True).accounts[0]
e.account_follow(remote_alice.id)
check(eventually(lambda: e.account_relationships(remote_alice.id)[0].following), "erin at three.test follows alice")
a.status_reblog(later_here.id)
check(eventually(lambda: two.v1("GET", f"/v1/posts/{later['id']}").json()["boostCount"] == 1),
      "alice's boost reaches bob's post at two.test")
check(eventually(lambda: ("reblog", alice_there) in {(n.type, n.account.acct) for n in b.notifications()}),
      "bob is notified of alice's boost")
boosted = eventually(lambda: next((s for s in e.timeline_home() if s.reblog and "Yellow" in s.reblog.content), None))
check(boosted is not None and boosted.account.acct == alice_there
      and boosted.reblog.account.acct == f"bob@{two.domain}",
      "erin at three.test has alice's boost of bob's post, fetched from two.test")
a.status_unreblog(later_here.id)
check(eventually(lambda: two.v1("GET", f"/v1/posts/{later['id']}").json()["boostCount"] == 0),
      "alice's unboost reaches two.test")
check(eventually(lambda: not any(s.reblog for s in e.timeline_home())), "and three.test: erin's home lets it go")
# A boost for her followers alone: an Announce addressed to them (and bob), as Mastodon's private reblog.
a.status_reblog(later_here.id, visibility="private")
privately = eventually(lambda: next((s for s in e.timeline_home() if s.reblog and "Yellow" in s.reblog.content), None))
check(privately is not None and privately.visibility == "private",
      f"alice's followers-only boost reaches erin, for alice's followers ({privately and privately.visibility})")
check(eventually(lambda: two.v1("GET", f"/v1/posts/{later['id']}").json()["boostCount"] == 1),
      "and bob's post at two.test counts it")
a.status_unreblog(later_here.id)
check(eventually(lambda: not any(s.reblog for s in e.timeline_home())), "its undoing reaches three.test")

# Alice posts at one.test and carol comments on it there: erin at three.test, who follows alice,
# has the post and carol's comment under it.
image = base64.b64encode(make_png((40, 160, 160))).decode()
teal = one.v1("POST", "/v1/posts", alice_token, json={"image": image, "caption": "Teal"}).json()
teal_there = eventually(lambda: in_home(e, "Teal"))
check(teal_there is not None, "alice's post reaches erin at three.test")
one.v1("POST", f"/v1/posts/{teal['id']}/comments", carol_token, json={"text": "So teal"}).raise_for_status()
comment_there = eventually(lambda: next((st for st in e.status_context(teal_there.id).descendants
                                         if "So teal" in st.content), None))
check(comment_there is not None and comment_there.account.acct == carol_there,
      "carol's comment on it at one.test reaches three.test, under the post")
if comment_there is not None:
    served = one.http.get(one.local(comment_there.uri), headers={"Accept": "application/activity+json"}, timeout=30)
    check(served.status_code == 401, f"its Note at one.test is for signed fetches alone there ({served.status_code})")

# A followers-only post of alice's: erin, her follower at three.test, has it and carol's comment
# under it; frank at three.test, who does not follow alice, has neither.
image = base64.b64encode(make_png((20, 80, 80))).decode()
night = one.v1("POST", "/v1/posts", alice_token,
               json={"image": image, "caption": "Night teal", "visibility": "followers"}).json()
night_there = eventually(lambda: in_home(e, "Night teal"))
check(night_there is not None and night_there.visibility == "private",
      "alice's followers-only post reaches erin at three.test, for followers")
c.account_follow(c.account_lookup("alice").id)  # carol sees it as alice's follower here
one.v1("POST", f"/v1/posts/{night['id']}/comments", carol_token, json={"text": "Quiet teal"}).raise_for_status()
quiet = eventually(lambda: next((st for st in e.status_context(night_there.id).descendants
                                 if "Quiet teal" in st.content), None))
check(quiet is not None and quiet.account.acct == carol_there,
      "carol's comment on it at one.test reaches erin, under the post")
frank_token, frank_id = three.sign_up("frank")
f = three.mastodon(frank_token)
for what, status in [("the post", night_there), ("the comment", quiet)]:
    try:
        f.status(status.id)
        check(False, f"frank at three.test sees {what}")
    except MastodonNotFoundError:
        check(True, f"frank at three.test, who does not follow alice, does not see {what}")

# Alice unfollows bob: two.test forgets her.
a.account_unfollow(remote_bob.id)
check(eventually(lambda: alice_there not in bobs_followers()), "alice's unfollow reaches two.test")

# Dave blocks alice: one.test ends her follow of him.
alice_at_two = b.search_v2(f"@alice@{one.domain}", resolve=True).accounts[0]
two.mastodon(dave_token).account_block(alice_at_two.id)
check(eventually(lambda: a.account_relationships(remote_dave.id)[0].blocked_by),
      "dave's block reaches one.test: alice is blocked by him")
check(not a.account_relationships(remote_dave.id)[0].following, "and no longer follows him")

# Alice erases her account: three.test, where erin follows her, erases its copy.
def erins_following():
    return [u["username"] for u in three.v1("GET", f"/v1/users/{erin_id}/following").json()["items"]]


check(erins_following() == [alice_there], "erin follows alice before her erasure")
one.v1("DELETE", "/v1/me", alice_token, json={"password": "password-123"}).raise_for_status()
check(eventually(lambda: erins_following() == []), "alice's erasure reaches three.test: her account there is gone")
check(e.search_v2(f"@alice@{one.domain}", resolve=True).accounts == [], "and her handle no longer resolves")

stop_all()
print("ok - done")
