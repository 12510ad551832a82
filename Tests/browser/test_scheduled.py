"""Scheduled posts in headless Chromium against a real `timeline serve`.

Ann chooses a photo in New post, ticks "Schedule for later" (the time offered is an hour ahead),
and the button says Schedule; scheduling opens Scheduled posts (from the profile's menu too),
which lists it with its caption and time; she changes its time (the list shows the new one), a
time in the past is refused beside it, and Cancel takes it away. Her profile shows no post:
nothing was published.
"""
import sys
from datetime import datetime, timedelta
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import by_label, button, check, go, nav, png, text_appears, wait, run_steps  # noqa: E402


def sign_up(driver, server, name):
    go(driver, server, "/signup")
    by_label(driver, "Username").send_keys(name)
    by_label(driver, "Email").send_keys(f"{name}@example.com")
    by_label(driver, "Password").send_keys(f"{name}-password-1")
    button(driver, "Sign up").click()
    text_appears(driver, "Your home timeline is empty")


def set_local(driver, element, when):
    """Sets a datetime-local input to `when` (local time), as typing it would."""
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))",
                          element, when.strftime("%Y-%m-%dT%H:%M"))


def steps(server, driver):
    sign_up(driver, server, "ann")
    photo = Path(server.db).parent / "scheduled.png"
    photo.write_bytes(png(64, 48, 0.4))
    nav(driver, "New post")
    by_label(driver, "Photos").send_keys(str(photo))
    by_label(driver, "Caption").send_keys("Sunrise, later #sea")
    by_label(driver, "Schedule for later").click()
    offered = by_label(driver, "Post at").get_attribute("value")
    assert offered, "no time offered"
    button(driver, "Schedule").click()
    wait(driver, lambda d: d.execute_script("return location.hash") == "#/scheduled", "Schedule did not open the list")
    text_appears(driver, "Sunrise, later #sea")
    rows = driver.find_elements(By.CSS_SELECTOR, "main .scheduled-post")
    assert len(rows) == 1, f"{len(rows)} scheduled posts listed"
    assert rows[0].find_element(By.CSS_SELECTOR, "input[type=datetime-local]").get_attribute("value") == offered
    check("New post's Schedule for later schedules it (an hour ahead by default) and opens Scheduled posts, which lists it")

    later = datetime.now().replace(second=0, microsecond=0) + timedelta(days=2)
    set_local(driver, rows[0].find_element(By.CSS_SELECTOR, "input[type=datetime-local]"), later)
    button(driver, "Change time", rows[0]).click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "main .scheduled-post input[type=datetime-local]")
         .get_attribute("value") == later.strftime("%Y-%m-%dT%H:%M"), "the new time is not shown")
    check("Change time moves it")

    row = driver.find_element(By.CSS_SELECTOR, "main .scheduled-post")
    set_local(driver, row.find_element(By.CSS_SELECTOR, "input[type=datetime-local]"), datetime.now() - timedelta(hours=1))
    button(driver, "Change time", row).click()
    text_appears(driver, "The scheduled date must be in the future")
    check("a time in the past is refused beside it")

    button(driver, "Cancel", driver.find_element(By.CSS_SELECTOR, "main .scheduled-post")).click()
    driver.switch_to.alert.accept()
    text_appears(driver, "Nothing scheduled")
    session = driver.execute_script("return JSON.parse(localStorage.getItem('timeline.session'))")
    posts = server.call("GET", f"/v1/users/{session['user']['id']}/posts", None, session["session"])
    assert posts["items"] == [], f"published: {posts}"
    check("Cancel takes it away; nothing was published")


def main():
    return run_steps(__doc__, "scheduled posts", steps)


if __name__ == "__main__":
    sys.exit(main())
