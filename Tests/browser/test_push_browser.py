#!/usr/bin/env python3
"""The web app's push notifications in a real browser: Debian's headless Chromium driven by
Selenium against a real `timeline serve`, and a test push service (HTTPS on loopback with its own
certificate authority, which the server trusts through --push-ca-file).

    python3 Tests/browser/test_push_browser.py [--timeline .build/debug/timeline] [--out DIR]

ann signs in and turns on "Notifications on this device" in Settings: the app asks for permission, registers
/sw.js, subscribes with the server's VAPID key and gives the subscription to the server. ben
comments on her photo: the server pushes it to the push service, where http_ece (PyPI) decrypts
it with the subscription's key; the decrypted message is handed to ann's service worker the way
the browser does on a push (DevTools' ServiceWorker.deliverPushMessage), and the notification it
shows names ben, quotes the comment and opens the post. Turned off again, the server forgets the
subscription.

One part stands in for what is out of reach offline: Chromium's own connection to its push
service (Google's FCM: `pushManager.subscribe` waits for it for ever here). The stand-in
`PushManager.subscribe` records the options the app passes (the VAPID key is checked) and
answers a subscription at the test push service, with keys made by this script; everything
else is the browser's and the server's own. Exits 0 when every check passed.
"""
import argparse
import base64
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from selenium.common.exceptions import TimeoutException

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "push"))
import push_service  # noqa: E402
from test_webapp import ROOT, Server, browser, button, by_label, check, go, png, text_appears, wait  # noqa: E402


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """An HTTPS push service on loopback that keeps each delivery (and answers 201)."""

    def __init__(self, certificates):
        self.received, self.lock = [], threading.Lock()
        self.server = push_service.start(certificates, self.deliver)
        self.url = f"https://127.0.0.1:{self.server.server_port}"

    def deliver(self, path, headers, body):
        with self.lock:
            self.received.append((path, headers, body))

    def wait_for(self, count, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return self.received[count - 1]
            time.sleep(0.05)
        raise AssertionError(f"{count} deliveries expected within {seconds} s, {len(self.received)} arrived")


# The browser's connection to its push service, stood in for (see the docstring).
STAND_IN = """
(() => {
  const keys = %s;
  const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - text.length %% 4) %% 4)), (c) => c.charCodeAt(0)).buffer;
  let current = null;
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    localStorage.setItem('test.pushOptions', JSON.stringify({ userVisibleOnly: options.userVisibleOnly,
      applicationServerKey: btoa(String.fromCharCode(...key)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '') }));
    current = { endpoint: keys.endpoint, expirationTime: null, getKey: (name) => bytes(keys[name]),
                unsubscribe: async () => { current = null; localStorage.setItem('test.pushUnsubscribed', 'yes'); return true; } };
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
})();
"""


def steps(server, push, driver, out):
    # ann has a photo; ben will comment on it.
    ann = server.call("POST", "/v1/users", {"username": "ann", "email": "ann@example.com", "password": "ann-password-1"})
    ben = server.call("POST", "/v1/users", {"username": "ben", "email": "ben@example.com", "password": "ben-password-1"})
    post = server.post(ann["session"], "Harbour at dawn", png(64, 48, 0.58))["id"]
    vapid = server.call("GET", "/api/v2/instance")["configuration"]["vapid"]["public_key"]

    receiver = ec.generate_private_key(ec.SECP256R1())
    secret = os.urandom(16)
    public = receiver.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    keys = {"endpoint": push.url + "/push/ann-chromium", "p256dh": b64(public), "auth": b64(secret)}
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STAND_IN % json.dumps(keys)})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": server.url})

    # ann signs in and turns notifications on in Settings.
    go(driver, server, "/signin")
    by_label(driver, "Email").send_keys("ann@example.com")
    by_label(driver, "Password").send_keys("ann-password-1")
    button(driver, "Sign in").click()
    text_appears(driver, "Harbour at dawn")
    go(driver, server, "/settings")
    button(driver, "Turn on notifications").click()
    text_appears(driver, "Notifications are on for this device.")
    options = json.loads(driver.execute_script("return localStorage.getItem('test.pushOptions')"))
    assert options == {"userVisibleOnly": True, "applicationServerKey": vapid}, f"subscribe was asked {options}, the server's key is {vapid}"
    registered = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistration('/').then((r) => done(r && r.active ? r.active.scriptURL : null), () => done(null));""")
    assert registered == server.url + "/sw.js", f"the active service worker is {registered!r}"
    session = json.loads(driver.execute_script("return localStorage.getItem('timeline.session')"))["session"]
    subscription = server.call("GET", "/v1/me/push", token=session)
    assert subscription["endpoint"] == keys["endpoint"] and "mention" in subscription["alerts"], subscription
    check("Notifications on this device: permission, /sw.js registered, subscribed with the server's VAPID key, the subscription given to the server")

    # ben comments: the push service receives it, encrypted for this browser's keys.
    started = time.time()
    server.call("POST", f"/v1/posts/{post}/comments", {"text": "Lovely light!"}, ben["session"])
    path, headers, body = push.wait_for(1, 10)
    assert path == "/push/ann-chromium" and headers["Content-Encoding"] == "aes128gcm", (path, headers)
    message = http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm")
    fields = json.loads(message)
    assert (fields["title"] == "ben commented on your photo" and fields["body"] == "Lovely light!"
            and fields["icon"] == server.url + "/app/icon-192.png"), fields
    check(f"ben's comment reaches the push service in {time.time() - started:.2f} s, and decrypts with the browser's keys")

    # The browser hands the decrypted message to the service worker, which shows it.
    driver.execute_cdp_cmd("ServiceWorker.enable", {})
    # The profile is new: its one registration has one of the first ids (the others are unknown
    # and ignored; all carry the same tag, so a notification would replace its twin). A delivery
    # made while the worker was still starting can be lost on a loaded machine: it is made again
    # every 2 s until the notification shows (the same tag: never two of them).
    def deliver():
        for registration in range(8):
            driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage",
                                   {"origin": server.url, "registrationId": str(registration), "data": message.decode()})
    deliver()
    shown, deadline, delivered = [], time.time() + 20, time.time()
    while time.time() < deadline and not shown:
        if time.time() - delivered > 2:
            deliver()
            delivered = time.time()
        shown = json.loads(driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            navigator.serviceWorker.ready.then((r) => r.getNotifications())
              .then((list) => done(JSON.stringify(list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))),
                    () => done('[]'));"""))
        time.sleep(0.2)
    assert len(shown) == 1, f"the service worker showed {shown}"
    notification = shown[0]
    assert (notification["title"] == "ben commented on your photo" and notification["body"] == "Lovely light!"
            and notification["tag"] == fields["notification_id"] and notification["data"]["url"].endswith(f"/@ann/{post}")), notification
    check("the service worker shows it: ben's name, the comment, and the post to open")

    # Turned off: the browser unsubscribes and the server forgets the subscription.
    button(driver, "Turn off notifications").click()
    text_appears(driver, "Notifications are off for this device.")
    assert driver.execute_script("return localStorage.getItem('test.pushUnsubscribed')") == "yes"
    try:
        server.call("GET", "/v1/me/push", token=session)
        raise AssertionError("the subscription is still there")
    except AssertionError as error:
        assert "404" in str(error), error
    check("turned off again: unsubscribed in the browser, gone from the server")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeline", default=str(ROOT / ".build/debug/timeline"))
    parser.add_argument("--out", help="where logs go (default: a new temporary directory)")
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="timeline-push-browser-"))
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium download a driver
    certificates = out / "ca"
    certificates.mkdir(exist_ok=True)
    push_service.make_ca(certificates)
    push = PushService(certificates)
    server = Server(args.timeline, out, ["--push-ca-file", str(certificates / "ca.pem"), "--push-allow-private"])
    driver = None
    try:
        driver = browser()
        steps(server, push, driver, out)
    except (AssertionError, TimeoutException) as error:
        print(f"FAILED: {error}", file=sys.stderr)
        traceback.print_exc()
        if driver:
            driver.save_screenshot(str(out / "failure.png"))
        print(f"logs: {out}", file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        server.stop()
        push.server.shutdown()
    print("all push browser checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
