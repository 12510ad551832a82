"""The Lists screen in headless Chromium against a real `timeline serve`.

Alice (who follows bob and carol) makes a list from her profile's menu, opens it, adds bob by
username — and is refused carol once she stops following her —, reads bob's post in the list's
timeline (not carol's), removes bob, renames the list and deletes it; each step is checked
against the server's own answer too.
"""
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import button, by_label, check, go, png, text_appears, wait, run_steps  # noqa: E402


def steps(server, driver):
    def user(name):
        return server.call("POST", "/v1/users", {"username": name, "email": f"{name}@example.com",
                                                 "password": "password-123"})
    alice, bob, carol = user("alice"), user("bob"), user("carol")
    token = alice["session"]
    for other in (bob, carol):
        server.call("PUT", f"/v1/me/following/{other['user']['id']}", token=token)
    server.post(bob["session"], "bob at the harbour", png(64, 64, 0.1))
    server.post(carol["session"], "carol in the hills", png(64, 64, 0.6))
    server.call("DELETE", f"/v1/me/following/{carol['user']['id']}", token=token)

    go(driver, server, "/signin")
    by_label(driver, "Email").send_keys("alice@example.com")
    by_label(driver, "Password").send_keys("password-123")
    button(driver, "Sign in").click()
    wait(driver, lambda d: d.execute_script("return location.hash") in ("#/", ""), "alice is not signed in")

    go(driver, server, "/lists")
    text_appears(driver, "No lists yet")
    by_label(driver, "Title").send_keys("Harbour")
    button(driver, "Make the list").click()
    link = wait(driver, lambda d: next(iter(d.find_elements(By.LINK_TEXT, "Harbour")), None), "the list is not shown")
    lists = server.call("GET", "/v1/lists", token=token)["lists"]
    assert [found["title"] for found in lists] == ["Harbour"], lists
    check("Lists: a list is made")

    link.click()
    wait(driver, lambda d: d.execute_script("return location.hash").startswith("#/lists/"), "the list did not open")
    field = by_label(driver, "Add someone you follow (username)")
    field.send_keys("bob")
    button(driver, "Add").click()
    text_appears(driver, "bob at the harbour")
    assert "carol in the hills" not in driver.find_element(By.CSS_SELECTOR, "main").text
    check("a followed account is added, and the list shows its posts only")

    field = by_label(driver, "Add someone you follow (username)")
    field.send_keys("carol")
    button(driver, "Add").click()
    text_appears(driver, "only add accounts you follow")
    check("an account alice does not follow is refused, with the server's reason")

    button(driver, "Remove").click()
    wait(driver, lambda d: "bob at the harbour" not in d.find_element(By.CSS_SELECTOR, "main").text,
         "bob's post stayed after removing him")
    members = server.call("GET", f"/v1/lists/{lists[0]['id']}/accounts", token=token)["items"]
    assert members == [], members
    check("removing bob empties the list")

    go(driver, server, "/lists")
    button(driver, "Rename").click()
    alert = wait(driver, lambda d: d.switch_to.alert, "no prompt for the new title")
    alert.send_keys("Port")
    alert.accept()
    wait(driver, lambda d: next(iter(d.find_elements(By.LINK_TEXT, "Port")), None), "the list was not renamed")
    check("a list is renamed")
    button(driver, "Delete").click()
    wait(driver, lambda d: d.switch_to.alert, "no confirmation").accept()
    text_appears(driver, "No lists yet")
    assert server.call("GET", "/v1/lists", token=token)["lists"] == []
    check("a list is deleted")


def main():
    return run_steps(__doc__, "lists", steps)


if __name__ == "__main__":
    sys.exit(main())
