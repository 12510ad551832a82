"""Being added to someone's collection on the web app's Activity screen, in headless Chromium
against a real `timeline serve`.

ann features bob in a collection (through the API); bob's Activity says "@ann added you to a
collection", and the Collections filter keeps it (Likes leaves it out);
its link opens the collection; once bob blocks ann it is gone.
"""
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, check, go, run_steps, sign_up, text_appears, wait  # noqa: E402


def items(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('main ol.activity li')].map((li) => li.innerText)")


def steps(server, driver):
    ann, bob = sign_up(server, "ann"), sign_up(server, "bob")
    made = server.call("POST", "/v1/collections", {"name": "Starters", "accounts": [bob["user"]["id"]]}, ann["session"])
    as_user(driver, server, bob, "/activity")
    wait(driver, lambda d: any("ann added you to a collection" in i for i in items(d)), f"loaded: {items(driver)}")
    driver.find_element(By.CSS_SELECTOR, "main .filters button[data-kind=like]").click()
    wait(driver, lambda d: items(d) == [], f"Likes: {items(driver)}")
    driver.find_element(By.CSS_SELECTOR, "main .filters button[data-kind=added_to_collection]").click()
    wait(driver, lambda d: len(items(d)) == 1 and "added you to a collection" in items(d)[0], f"Collections: {items(driver)}")
    link = driver.find_element(By.LINK_TEXT, "a collection")
    assert link.get_attribute("href").endswith(f"#/collection/{made['id']}"), link.get_attribute("href")
    link.click()
    text_appears(driver, "Starters")
    check("bob's Activity: ann added him to a collection; the Collections filter keeps it, Likes leaves it out; "
          "its link opens the collection")

    server.call("PUT", f"/v1/me/blocks/{ann['user']['id']}", {}, bob["session"])
    go(driver, server, "/")
    go(driver, server, "/activity")
    text_appears(driver, "Nothing yet")
    check("once bob blocks ann, it is gone")


def main():
    return run_steps(__doc__, "collection notifications", steps)


if __name__ == "__main__":
    sys.exit(main())
