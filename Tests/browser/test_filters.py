"""Muted words (filters) in headless Chromium against a real `timeline serve`.

Alice follows bob. In Settings she mutes a word behind a warning: bob's post with it is covered
in her feed ("Shown because of filter …"), and "Show anyway" reveals it, as a comment with it on
a post's page; then she makes the filter hide: the post leaves her feed; she removes it: the
post is back, uncovered.
"""
import sys
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import article_with, button, by_label, check, go, png, text_appears, wait, run_steps  # noqa: E402,E501


def cards(driver):
    return [a for a in driver.find_elements(By.CSS_SELECTOR, "main article") if a.is_displayed()]


def steps(server, driver):
    alice = server.call("POST", "/v1/users", {"username": "alice", "email": "alice@example.com",
                                              "password": "password-123"})
    bob = server.call("POST", "/v1/users", {"username": "bob", "email": "bob@example.com", "password": "password-123"})
    server.call("PUT", f"/v1/me/following/{bob['user']['id']}", token=alice["session"])
    server.post(bob["session"], "The finale was wild", png(40, 30, 0.1))
    harbour = server.post(bob["session"], "A quiet harbour", png(40, 30, 0.6))
    server.call("POST", f"/v1/posts/{harbour['id']}/comments", {"text": "no finale talk here"}, token=bob["session"])
    go(driver, server, "/signin")
    by_label(driver, "Email").send_keys("alice@example.com")
    by_label(driver, "Password").send_keys("password-123")
    button(driver, "Sign in").click()
    article_with(driver, "The finale was wild")
    check("alice's feed shows bob's two posts before any filter")

    go(driver, server, "/settings")
    text_appears(driver, "You have not muted any words.")
    by_label(driver, "Word or phrase").send_keys("finale")
    Select(by_label(driver, "Posts with it")).select_by_visible_text("Show behind a warning")
    button(driver, "Mute word").click()
    wait(driver, lambda d: "finale" in d.find_element(By.CSS_SELECTOR, ".settings-filters").text, "the filter is not listed")
    check("Settings mutes a word and lists it")

    go(driver, server, "/")
    cover = wait(driver, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "main .filter-cover") if e.is_displayed()), None),
                 "no cover on the warned post")
    assert "Shown because of filter finale" in cover.text, cover.text
    article = cover.find_element(By.XPATH, "./ancestor::article")
    assert not article.find_element(By.CSS_SELECTOR, ".caption").is_displayed(), "the warned caption shows"
    article_with(driver, "A quiet harbour")
    button(driver, "Show anyway", article).click()
    wait(driver, lambda d: article.find_element(By.CSS_SELECTOR, ".caption").is_displayed(), "Show anyway did not reveal it")
    assert "The finale was wild" in article.text
    check("a warned post is covered with its filter's name until Show anyway")

    go(driver, server, f"/post/{harbour['id']}")
    comment = wait(driver, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "main li.comment") if e.is_displayed()), None),
                   "no comment on the post page")
    wait(driver, lambda d: "Shown because of filter finale" in comment.text, "the warned comment is not covered")
    assert "no finale talk here" not in comment.text, comment.text
    button(driver, "Show anyway", comment).click()
    wait(driver, lambda d: "no finale talk here" in comment.text, "Show anyway did not reveal the comment")
    check("a warned comment is covered on the post's page too")

    filters = server.call("GET", "/v1/me/filters", token=alice["session"])["filters"]
    server.call("PATCH", f"/v1/me/filters/{filters[0]['id']}", {"action": "hide"}, token=alice["session"])
    driver.refresh()
    article_with(driver, "A quiet harbour")
    assert not any("The finale was wild" in a.text for a in cards(driver)), "a hidden post shows"
    check("a hidden post leaves the feed")

    go(driver, server, "/settings")
    button(driver, "Remove").click()
    text_appears(driver, "You have not muted any words.")
    go(driver, server, "/")
    article = article_with(driver, "The finale was wild")
    assert not article.find_elements(By.CSS_SELECTOR, ".filter-cover")
    check("removing the filter brings the post back, uncovered")


def main():
    return run_steps(__doc__, "filters", steps)


if __name__ == "__main__":
    sys.exit(main())
