"""Polls in headless Chromium against a real `timeline serve`.

Ann signs up and shares a photo with a poll from New post (two choices, a length); Ben, who
signs up in a browser of his own and follows her, sees the poll on her card in Home with a button
per choice, votes, and sees the results with his choice marked; a second look at the post shows
the results, not the buttons.
"""
import argparse
import os
import sys
import tempfile
import traceback
from pathlib import Path

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import (ROOT, Server, browser, button, by_label, check, click, go, nav, png,  # noqa: E402
                         text_appears, wait)


def sign_up(driver, server, name):
    go(driver, server, "/signup")
    by_label(driver, "Username").send_keys(name)
    by_label(driver, "Email").send_keys(f"{name}@example.com")
    by_label(driver, "Password").send_keys(f"{name}-password-1")
    button(driver, "Sign up").click()
    text_appears(driver, "Your home timeline is empty")


def steps(server, out, a, b):
    sign_up(a, server, "ann")
    sign_up(b, server, "ben")
    photo = out / "poll.png"
    photo.write_bytes(png(64, 48, 0.3))

    nav(a, "New post")
    by_label(a, "Photos").send_keys(str(photo))
    by_label(a, "Caption").send_keys("Sea or hills this weekend?")
    click(a, by_label(a, "Add a poll"))
    by_label(a, "Choice 1").send_keys("Sea")
    by_label(a, "Choice 2").send_keys("Hills")
    button(a, "Share").click()
    wait(a, lambda d: "#/post/" in d.current_url, "Share did not open the new post")
    wait(a, lambda d: d.find_elements(By.CSS_SELECTOR, "main .poll button.poll-choice"), "no poll on the new post")
    check("ann shares a photo with a poll from New post; the post shows its choices")

    # Ben follows ann, and votes from her card in Home.
    ann = server.call("GET", "/v1/users/@ann")
    ben_session = b.execute_script("return JSON.parse(localStorage.getItem(Object.keys(localStorage)[0])).session")
    server.call("PUT", f"/v1/me/following/{ann['id']}", token=ben_session)
    nav(b, "Home")
    b.refresh()
    choice = wait(b, lambda d: next(iter(d.find_elements(By.XPATH, "//article//div[@class='poll']//button[normalize-space()='Hills']")), None),
                  "no Hills button on ann's card in Home")
    click(b, choice)
    result = wait(b, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "article .poll li.poll-result.mine")), None),
                  "the vote did not turn into results")
    assert "Hills" in result.text and "100%" in result.text, result.text
    assert not b.find_elements(By.CSS_SELECTOR, "article .poll button.poll-choice"), "the buttons stayed after voting"
    text_appears(b, "1 voter", "article .poll")
    check("ben sees the poll on ann's card, votes, and sees the results with his choice marked")

    a.refresh()
    wait(a, lambda d: d.find_elements(By.CSS_SELECTOR, "main .poll"), "no poll after a reload")
    check("the poll is read again after a reload")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeline", default=str(ROOT / ".build/debug/timeline"))
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="timeline-polls-browser-"))
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium download a driver
    server = Server(args.timeline, out)
    a = b = None
    try:
        a, b = browser(), browser()
        steps(server, out, a, b)
    except (AssertionError, TimeoutException) as error:
        print(f"FAILED: {error!r}", file=sys.stderr)
        traceback.print_exc()
        for name, driver in (("ann", a), ("ben", b)):
            if driver:
                driver.save_screenshot(str(out / f"failure-{name}.png"))
        print(f"logs: {out}", file=sys.stderr)
        return 1
    finally:
        for driver in (a, b):
            if driver:
                driver.quit()
        server.stop()
    print("all poll browser checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
