"""Collections in headless Chromium against a real `timeline serve`.

Alice makes a collection of bob and carol from the Collections screen (her profile's menu), sees
its people, removes carol and adds her back by username, finds it on her profile; a
non-discoverable account is refused with the server's reason; bob, featured, finds it under
"Featuring you" and leaves it (revoke): it no longer shows him, for alice either. Each step is
checked against the server's own answer too.
"""
import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import button, by_label, check, go, text_appears, wait, run_steps  # noqa: E402


def sign_in_as(driver, server, account):
    """Keeps `account`'s session ({session, user}) as the app does after signing in, then opens Home."""
    go(driver, server, "/")
    driver.execute_script("localStorage.setItem('timeline.session', arguments[0])", json.dumps(account))
    driver.get(f"{server.url}/#/")
    driver.refresh()


def main_text(driver):
    return driver.find_element(By.CSS_SELECTOR, "main").text


def steps(server, driver):
    def user(name):
        return server.call("POST", "/v1/users", {"username": name, "email": f"{name}@example.com",
                                                 "password": "password-123"})
    alice, bob, carol, dave = user("alice"), user("bob"), user("carol"), user("dave")
    token = alice["session"]
    server.call("PATCH", "/v1/me", {"discoverable": False}, token=dave["session"])

    sign_in_as(driver, server, alice)
    go(driver, server, "/collections")
    text_appears(driver, "No collections yet")
    by_label(driver, "Name").send_keys("Harbour folk")
    by_label(driver, "Description").send_keys("Worth following")
    by_label(driver, "People you follow (usernames, comma-separated)").send_keys("bob, carol")
    button(driver, "Make the collection").click()
    wait(driver, lambda d: d.execute_script("return location.hash").startswith("#/collection/"),
         "the collection did not open")
    text_appears(driver, "carol")
    collections = server.call("GET", f"/v1/users/{alice['user']['id']}/collections", token=token)["collections"]
    assert [c["name"] for c in collections] == ["Harbour folk"], collections
    assert [i["user"] for i in collections[0]["items"]] == [bob["user"]["id"], carol["user"]["id"]], collections
    check("Collections: a collection of bob and carol is made")

    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Remove carol']").click()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "button[aria-label='Remove carol']"),
         "carol stayed after Remove")
    field = by_label(driver, "Add someone you follow (username)")
    field.send_keys("carol")
    button(driver, "Add").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "button[aria-label='Remove carol']"),
         "carol was not added back")
    check("carol is removed and added back")

    field = by_label(driver, "Add someone you follow (username)")
    field.send_keys("dave")
    button(driver, "Add").click()
    text_appears(driver, "cannot be added to collections")
    check("a non-discoverable account is refused, with the server's reason")

    go(driver, server, "/u/alice")
    wait(driver, lambda d: next(iter(d.find_elements(By.LINK_TEXT, "Harbour folk (2 people)")), None),
         "the collection is not on alice's profile")
    check("the collection shows on alice's profile")

    sign_in_as(driver, server, bob)
    go(driver, server, "/collections")
    text_appears(driver, "Harbour folk")
    button(driver, "Leave").click()
    wait(driver, lambda d: d.switch_to.alert, "no confirmation").accept()
    text_appears(driver, "Nobody features you in a collection yet")
    shown = server.call("GET", f"/v1/collections/{collections[0]['id']}", token=token)
    assert [i["user"] for i in shown["items"]] == [carol["user"]["id"]], shown
    check("bob leaves the collection: it no longer shows him")


def main():
    return run_steps(__doc__, "collections", steps)


if __name__ == "__main__":
    sys.exit(main())
