"""Profile extras (#41) in headless Chromium against a real `timeline serve`: alice pins a post
from its page's Pin to profile (her profile then shows it first, labelled Pinned; Unpin takes
it off), features bob (Featured on her profile), writes a private note on bob's profile (kept
across a reload, and not on carol's view of bob), and removes carol from her followers list.

    python3 Tests/browser/test_profile_extras.py [--timeline .build/debug/timeline]
"""
import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import button, by_label, check, click, go, png, text_appears, wait, run_steps  # noqa: E402


def sign_in(driver, server, account):
    """Opens the app signed in as `account` (the answer of POST /v1/users)."""
    go(driver, server, "/")
    driver.execute_script("localStorage.setItem('timeline.session', arguments[0])", json.dumps(account))


def first_tile(driver):
    """The data-post of the profile grid's first tile, and whether it is labelled Pinned."""
    tile = wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "main ul.grid li.tile")), None),
                "no tile in the profile grid")
    return tile.get_attribute("data-post"), "Pinned" in tile.text


def steps(server, driver):
    users = {}
    for name in ("alice", "bob", "carol"):
        users[name] = server.call("POST", "/v1/users", {"username": name, "email": f"{name}@example.com",
                                                        "password": "password-123"})
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    old = server.post(alice["session"], "the old one", png(64, 48, 0.1))
    new = server.post(alice["session"], "the new one", png(64, 48, 0.6))
    server.call("PUT", f"/v1/me/following/{bob['user']['id']}", token=alice["session"])
    server.call("PUT", f"/v1/me/following/{alice['user']['id']}", token=carol["session"])

    sign_in(driver, server, alice)
    go(driver, server, "/u/alice")
    assert first_tile(driver) == (new["id"], False), first_tile(driver)
    go(driver, server, f"/post/{old['id']}")
    click(driver, button(driver, "Pin to profile"))
    button(driver, "Unpin")
    go(driver, server, "/u/alice")
    driver.refresh()
    wait(driver, lambda d: first_tile(d) == (old["id"], True), "the pinned post is not first, labelled Pinned")
    tiles = [t.get_attribute("data-post") for t in driver.find_elements(By.CSS_SELECTOR, "main ul.grid li.tile")]
    assert tiles == [old["id"], new["id"]], tiles
    check("Pin to profile puts the post first on the profile, labelled Pinned, and only once")
    go(driver, server, f"/post/{old['id']}")
    click(driver, button(driver, "Unpin"))
    button(driver, "Pin to profile")
    go(driver, server, "/u/alice")
    driver.refresh()
    wait(driver, lambda d: first_tile(d) == (new["id"], False), "Unpin did not take the post off the top")
    check("Unpin takes it off")

    go(driver, server, "/u/bob")
    click(driver, button(driver, "Feature on profile"))
    button(driver, "Featured")
    note = by_label(driver, "Private note")
    note.send_keys("met at the lake")
    click(driver, button(driver, "Save note"))
    text_appears(driver, "Saved", "form.account-note")
    driver.refresh()
    wait(driver, lambda d: by_label(d, "Private note").get_attribute("value") == "met at the lake", "the note was not kept")
    go(driver, server, "/u/alice")
    driver.refresh()
    featured = wait(driver, lambda d: next((s for s in d.find_elements(By.CSS_SELECTOR, "main section.featured") if s.is_displayed()), None),
                    "no Featured section on alice's profile")
    assert "bob" in featured.text, featured.text
    check("Feature on profile shows bob under Featured on alice's profile; the private note is kept")

    sign_in(driver, server, carol)
    go(driver, server, "/u/bob")
    driver.refresh()
    wait(driver, lambda d: by_label(d, "Private note").get_attribute("value") == "", "carol reads alice's note")
    check("the note is not shown to anyone else")

    sign_in(driver, server, alice)
    go(driver, server, "/u/alice/followers")
    driver.refresh()
    driver.execute_script("window.confirm = () => true")
    click(driver, button(driver, "Remove follower"))
    text_appears(driver, "@carol removed")
    followers = server.call("GET", f"/v1/users/{alice['user']['id']}/followers")
    assert followers["items"] == [], followers
    check("Remove follower in one's followers list ends their follow")


def main():
    return run_steps(__doc__, "profile extras", steps)


if __name__ == "__main__":
    sys.exit(main())
