"""Boosts in headless Chromium against a real `timeline serve`: bob boosts alice's post with the
feed card's Boost button (the card says Boosted, one boost, and the server lists him); carol, who
follows bob and not alice, finds the post in Home with "Boosted by bob" over it; bob takes the
boost back and it leaves carol's Home.
"""
import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import article_with, check, go, png, wait, run_steps  # noqa: E402


def sign_in_as(driver, server, account):
    """Keeps `account`'s session ({session, user}) as the app does after signing in, then opens Home."""
    go(driver, server, "/")
    driver.execute_script("localStorage.setItem('timeline.session', arguments[0])", json.dumps(account))
    driver.get(f"{server.url}/#/")
    driver.refresh()


def steps(server, driver):
    def sign_up(name):
        return server.call("POST", "/v1/users", {"username": name, "email": f"{name}@example.com",
                                                 "password": "password-123"})
    alice, bob, carol = sign_up("alice"), sign_up("bob"), sign_up("carol")
    post = server.post(alice["session"], "harbour at dawn", png(320, 240, 0.55))
    server.call("PUT", f"/v1/me/following/{alice['user']['id']}", token=bob["session"])
    server.call("PUT", f"/v1/me/following/{bob['user']['id']}", token=carol["session"])

    sign_in_as(driver, server, bob)
    card = article_with(driver, "harbour at dawn")
    boost = wait(driver, lambda d: article_with(d, "harbour at dawn").find_element(By.CSS_SELECTOR, "button.boost"),
                 "no Boost button on the card")
    assert boost.text == "Boost" and boost.get_attribute("aria-pressed") == "false", boost.text
    boost.click()
    wait(driver, lambda d: article_with(d, "harbour at dawn").find_element(By.CSS_SELECTOR, "button.boost").text == "Boosted",
         "the button did not turn to Boosted")
    assert "1 boost" in article_with(driver, "harbour at dawn").text, card.text
    boosters = server.call("GET", f"/v1/posts/{post['id']}/boosts", token=alice["session"])
    assert [user["id"] for user in boosters["items"]] == [bob["user"]["id"]], boosters
    check("the feed card's Boost button boosts the post (Boosted, 1 boost, bob among its boosters)")

    sign_in_as(driver, server, carol)
    line = wait(driver, lambda d: article_with(d, "harbour at dawn").find_element(By.CSS_SELECTOR, ".boosted-by"),
                "no boosted-by line on carol's card")
    assert line.text.strip() == "↻ Boosted by bob", line.text
    check("carol, who follows bob, sees alice's post in Home with \"Boosted by bob\" over it")

    server.call("DELETE", f"/v1/posts/{post['id']}/boost", token=bob["session"])
    driver.refresh()
    wait(driver, lambda d: "harbour at dawn" not in d.find_element(By.CSS_SELECTOR, "main").text,
         "the boost stayed in carol's Home after bob took it back")
    check("bob's unreblog takes the post out of carol's Home")


def main():
    return run_steps(__doc__, "boosts", steps)


if __name__ == "__main__":
    sys.exit(main())
