"""The web app's "Your year" screen (the annual report) in headless Chromium against a real
`timeline serve`.

ann posts two photos tagged #sea and bob follows her and likes one; from her profile's "…" menu,
"Your year" offers "Make my report" for this year; made, it shows her archetype, her totals
(2 posts, 1 new follower), the twelve months, her top post (linking to it) and #sea; opening it
marked it read (the /v1 answer says so); last year, before her account, has no report; bob's own
year is not made by ann's.
"""
import datetime
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, check, go, png, run_steps, sign_up, text_appears, wait  # noqa: E402


def steps(server, driver):
    year = datetime.datetime.now(datetime.timezone.utc).year
    ann, bob = sign_up(server, "ann"), sign_up(server, "bob")
    first = server.post(ann["session"], "#sea at dawn", png(64, 48, 0.55))
    server.post(ann["session"], "#sea at dusk", png(64, 48, 0.1))
    server.call("PUT", f"/v1/me/following/{ann['user']['id']}", {}, bob["session"])
    server.call("PUT", f"/v1/posts/{first['id']}/like", None, bob["session"])

    as_user(driver, server, ann, "/profile")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "main .more-button"), "no … menu").click()
    wait(driver, lambda d: d.find_element(By.LINK_TEXT, "Your year"), "no Your year in the menu").click()
    text_appears(driver, f"Your {year}")
    wait(driver, lambda d: d.find_element(By.XPATH, "//main//button[text()='Make my report']"),
         "no Make my report").click()
    text_appears(driver, "The lurker")
    totals = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "main .year-totals"), "no totals").text
    assert "2 posts, comments and boosts" in totals and "1 new followers" in totals, totals
    rows = driver.find_elements(By.CSS_SELECTOR, "main table.year-months tbody tr")
    assert len(rows) == 12, len(rows)
    text_appears(driver, "#sea 2 posts", "main .year-hashtags")
    links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "main .year-top a")]
    assert any(link.endswith(f"#/post/{first['id']}") for link in links), links
    answer = server.call("GET", f"/v1/me/annual-reports/{year}", None, ann["session"])
    wait(driver, lambda d: server.call("GET", f"/v1/me/annual-reports/{year}", None, ann["session"])["report"]["read"],
         f"not marked read: {answer}")
    check("Your year: Make my report, then the archetype, totals, months, top post and hashtags; read once shown")

    go(driver, server, f"/year/{year - 1}")
    text_appears(driver, f"There is no report of {year - 1}")
    bobs = server.call("GET", f"/v1/me/annual-reports/{year}", None, bob["session"])
    assert bobs["state"] == "eligible" and bobs["report"] is None, bobs
    check("a year before the account has no report; bob's year is his own")


def main():
    return run_steps(__doc__, "annual report", steps)


if __name__ == "__main__":
    sys.exit(main())
