"""'Forgot password?' in headless Chromium against a real `timeline serve --smtp-url …`.

An SMTP server on loopback (aiosmtpd, in this process) takes the mail; the browser follows the
sign-in screen's "Forgot password?" link, asks for the link by email, opens the mailed link,
sets a new password and is signed in; the session held before is refused afterwards.
"""
import argparse
import os
import queue
import re
import socket
import sys
import tempfile
import traceback
from pathlib import Path

from aiosmtpd.controller import Controller
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import ROOT, Server, browser, button, by_label, check, go, text_appears, wait  # noqa: E402


class Sink:
    """Each message given to the SMTP server, on a queue."""

    def __init__(self):
        self.mails = queue.Queue()

    async def handle_DATA(self, server, session, envelope):
        self.mails.put((envelope.rcpt_tos, envelope.content.decode("utf-8", "replace")))
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def steps(server, sink, driver):
    alice = server.call("POST", "/v1/users", {"username": "alice", "email": "alice@example.com",
                                              "password": "password-123"})
    go(driver, server, "/signin")
    wait(driver, lambda d: d.find_element(By.LINK_TEXT, "Forgot password?"), "no Forgot password? link").click()
    wait(driver, lambda d: d.execute_script("return location.hash") == "#/forgot", "the link did not lead to #/forgot")
    by_label(driver, "Email").send_keys("alice@example.com")
    button(driver, "Send the link").click()
    text_appears(driver, "If an account has this email")
    check("the sign-in screen's Forgot password? asks for the email and never says whether it is known")
    recipients, mail = sink.mails.get(timeout=30)
    assert recipients == ["alice@example.com"], recipients
    link = re.search(r"http://\S+/#/reset\?token=[0-9a-f]{64}", mail)
    assert link, mail
    check("one mail with a one-hour link arrives")
    driver.get(link.group(0))
    by_label(driver, "Email").send_keys("alice@example.com")
    by_label(driver, "New password").send_keys("a new pass phrase")
    button(driver, "Set the password and sign in").click()
    wait(driver, lambda d: d.execute_script("return location.hash") in ("#/", ""), "not signed in after the reset")
    wait(driver, lambda d: d.execute_script("return Object.keys(localStorage).length") > 0, "no session kept")
    try:
        server.call("GET", "/v1/me", token=alice["session"])
        raise AssertionError("the session from before the reset still works")
    except AssertionError as error:
        assert "401" in str(error), error
    check("the link's page sets the new password, signs in, and the old session is refused")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeline", default=str(ROOT / ".build/debug/timeline"))
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="timeline-reset-browser-"))
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium download a driver
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    server = Server(args.timeline, out, ["--smtp-url", f"smtp://127.0.0.1:{port}", "--smtp-from", "noreply@timeline.test"])
    driver = None
    try:
        driver = browser()
        steps(server, sink, driver)
    except (AssertionError, TimeoutException, queue.Empty) as error:
        print(f"FAILED: {error!r}", file=sys.stderr)
        traceback.print_exc()
        if driver:
            driver.save_screenshot(str(out / "failure.png"))
        print(f"logs: {out}", file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        server.stop()
        controller.stop()
    print("all reset browser checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
