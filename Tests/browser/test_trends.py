"""The search screen's "Trending now" in headless Chromium against a real `timeline serve`.

Before anything is typed, the search screen shows the hashtags and posts trending on the server
(`GET /v1/trends/tags`, `/v1/trends/posts`); a tag links to its page; a post for followers never
shows there, even to a follower; a moderator's hidden tag leaves it; once a word is typed the
section goes.
"""
import base64
import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import check, go, png, run_steps, sign_up, text_appears, wait  # noqa: E402


def trending_tags(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "main .trending:not([hidden]) .trending-tags a")]


def steps(server, driver):
    ann, bob, mod = sign_up(server, "ann"), sign_up(server, "bob"), sign_up(server, "mod")
    server.operator("moderation", "grant", "@mod")
    sea = server.post(ann["session"], "#sea at dawn #sky", png(64, 48, 0.55))
    server.post(bob["session"], "#sea at dusk and #sky", png(64, 48, 0.1))
    server.post(bob["session"], "#sky again", png(64, 48, 0.2))
    server.call("PUT", f"/v1/me/following/{ann['user']['id']}", {}, bob["session"])
    closed = server.call("POST", "/v1/posts", {"image": base64.b64encode(png(64, 48, 0.8)).decode(),
                                                "caption": "#secret for followers", "visibility": "followers"},
                         ann["session"])
    for token in (bob["session"], mod["session"]):
        server.call("PUT", f"/v1/posts/{sea['id']}/like", None, token)
    for token in (bob["session"], ann["session"]):
        server.call("PUT", f"/v1/posts/{closed['id']}/like", None, token)
    server.call("POST", f"/v1/posts/{closed['id']}/comments", {"text": "lovely"}, bob["session"])

    # bob signs in (his session kept as the app keeps one) and opens Search.
    go(driver, server, "/signin")
    driver.execute_script("localStorage.setItem('timeline.session', arguments[0])", json.dumps(bob))
    go(driver, server, "/search")
    text_appears(driver, "Trending now")
    wait(driver, lambda d: trending_tags(d) == ["#sky", "#sea"], f"trending tags: {trending_tags(driver)}")
    tiles = driver.find_elements(By.CSS_SELECTOR, "main .trending-posts li")
    assert len(tiles) == 1, f"{len(tiles)} trending posts shown"
    assert "3 posts this week" in driver.find_element(By.CSS_SELECTOR, "main .trending-tags li").text
    check("Search opens on what trends: #sky and #sea (two accounts each; #sky used more) with their week's posts, the liked public post; "
          "the followers-only post bob follows and liked is not there")

    driver.find_element(By.CSS_SELECTOR, "main .trending-tags a").click()
    wait(driver, lambda d: d.execute_script("return location.hash") == "#/tag/sky", "the tag did not open its page")
    check("a trending tag opens its page")

    server.call("POST", "/v1/admin/trends/hide", {"tag": "sea"}, mod["session"])
    go(driver, server, "/search")
    wait(driver, lambda d: trending_tags(d) == ["#sky"], f"after hiding #sea: {trending_tags(driver)}")
    search = driver.find_element(By.ID, "search")
    search.send_keys("sk")
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "main .trending"), "the trends stayed under a search")
    check("a moderator's hidden tag leaves the trends, and typing a search replaces them")


def main():
    return run_steps(__doc__, "trends", steps)


if __name__ == "__main__":
    sys.exit(main())
