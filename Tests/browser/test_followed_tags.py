"""Followed hashtags in headless Chromium against a real `timeline serve`.

A tag's page has a Follow button for someone signed in: following #harbour brings a stranger's
public #harbour post into Home (never a followers-only one), the tag shows in "Hashtags you follow"
(on the tag's page and in Search), and Unfollow takes the post out of Home again.
"""
import base64
import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import article_with, check, go, png, run_steps, sign_up, text_appears, wait  # noqa: E402


def followed(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "main .followed-tags a")]


def home_captions(driver):
    return [a.text for a in driver.find_elements(By.CSS_SELECTOR, "main article")]


def steps(server, driver):
    ann, bob = sign_up(server, "ann"), sign_up(server, "bob")
    server.post(bob["session"], "#harbour at dawn", png(64, 48, 0.55))
    server.call("POST", "/v1/posts", {"image": base64.b64encode(png(64, 48, 0.8)).decode(),
                                      "caption": "#harbour for friends", "visibility": "followers"}, bob["session"])
    go(driver, server, "/signin")
    driver.execute_script("localStorage.setItem('timeline.session', arguments[0])", json.dumps(ann))
    go(driver, server, "/tag/harbour")
    button = wait(driver, lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, "main button.follow-tag")
                                          if b.is_enabled() and b.text == "Follow"), None), "no Follow button")
    button.click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "main button.follow-tag").text == "Unfollow",
         "the button did not turn to Unfollow")
    wait(driver, lambda d: followed(d) == ["#harbour"], f"followed tags: {followed(driver)}")
    check("Follow on a tag's page follows it: the button turns to Unfollow and the tag is listed")

    go(driver, server, "/")
    article_with(driver, "at dawn")
    assert not any("for friends" in c for c in home_captions(driver)), home_captions(driver)
    check("Home shows the stranger's public #harbour post, not the followers-only one")

    go(driver, server, "/search")
    text_appears(driver, "Hashtags you follow")
    wait(driver, lambda d: followed(d) == ["#harbour"], f"Search's followed tags: {followed(driver)}")
    check("Search lists the hashtags one follows")

    go(driver, server, "/tag/harbour")
    button = wait(driver, lambda d: next((b for b in d.find_elements(By.CSS_SELECTOR, "main button.follow-tag")
                                          if b.is_enabled() and b.text == "Unfollow"), None), "no Unfollow button")
    button.click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "main button.follow-tag").text == "Follow",
         "the button did not turn back to Follow")
    go(driver, server, "/")
    wait(driver, lambda d: not any("at dawn" in c for c in home_captions(d)), "the post stayed in Home")
    check("Unfollow takes the tag's post out of Home")


def main():
    return run_steps(__doc__, "followed-tags", steps)


if __name__ == "__main__":
    sys.exit(main())
