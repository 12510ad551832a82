"""Stories in headless Chromium against a real `timeline serve`.

ann adds a story from Home's row ("Add to your story", a real file); bob, who follows her, sees
her in his row as not seen, opens the viewer (the photo loads), replies (a direct message), and
closes it: she is then seen. ann opens her own story: "Seen by 1" lists bob; Highlight keeps it
on her profile, where bob opens it.
"""
import sys
import tempfile
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, button, check, go, png, run_steps, sign_up, wait  # noqa: E402


def click_when_there(driver, css, message):
    """Clicks the element `css` finds, looking again if the screen re-rendered it meanwhile."""
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).click() or True, message)


def row_labels(driver):
    return [b.get_attribute("aria-label") for b in driver.find_elements(By.CSS_SELECTOR, "main .stories-row button.story-author")]


def photo_loaded(driver):
    return driver.execute_script(
        "const i = document.querySelector('dialog.story-viewer img.story-photo');"
        "return Boolean(i && i.complete && i.naturalWidth > 0)")


def steps(server, driver):
    ann, bob = sign_up(server, "ann"), sign_up(server, "bob")
    server.call("PUT", f"/v1/me/following/{ann['user']['id']}", None, bob["session"])
    photo = Path(tempfile.mkdtemp()) / "story.png"
    photo.write_bytes(png(120, 200, 0.3))

    as_user(driver, server, ann, "/")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main .stories-row button.story-add"), "no Add to your story")

    def choose(d):
        picker = d.find_element(By.CSS_SELECTOR, "main .stories input[type=file]")
        d.execute_script("arguments[0].hidden = false", picker)
        picker.send_keys(str(photo))
        return True

    wait(driver, choose, "could not choose the story's photo")
    # (The messages name no element: the row re-renders as it loads, so one read for a message
    # before the wait may be stale; the wait itself looks again.)
    wait(driver, lambda d: "Your story" in row_labels(d), "no own story in the row")
    check("Add to your story posts a photo: the row shows Your story")

    as_user(driver, server, bob, "/")
    wait(driver, lambda d: "Story by ann, not seen" in row_labels(d), "no unseen story of ann's in the row")
    click_when_there(driver, "main .stories-row button.story-author.unseen", "could not open ann's story")
    wait(driver, photo_loaded, "the story's photo did not load")
    reply = driver.find_element(By.CSS_SELECTOR, "dialog.story-viewer input[name=reply]")
    reply.send_keys("lovely light")
    button(driver, "Send").click()
    wait(driver, lambda d: "Sent as a message" in d.find_element(By.CSS_SELECTOR, "dialog .story-status").text,
         "the reply was not sent")
    button(driver, "Close").click()
    wait(driver, lambda d: "Story by ann" in row_labels(d), "ann's story is not in the row after viewing it")
    messages = server.call("GET", "/v1/conversations", None, ann["session"])
    assert any("lovely light" in ((c.get("lastPost") or {}).get("caption") or "") for c in messages["items"]), messages
    check("bob sees ann's unseen story, replies as a message, and it is seen")

    as_user(driver, server, ann, "/")
    wait(driver, lambda d: "Your story" in row_labels(d), "no own story")
    click_when_there(driver, "main .stories-row button.story-author", "could not open her own story")
    button(driver, "Seen by 1").click()
    wait(driver, lambda d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "dialog .story-viewers li")] == ["bob"],
         "the viewers list is not bob")
    button(driver, "Highlight").click()
    button(driver, "Remove highlight")
    highlights = server.call("GET", f"/v1/users/{ann['user']['id']}/highlights")
    assert len(highlights["stories"]) == 1, highlights
    button(driver, "Close").click()
    as_user(driver, server, bob, "/u/ann")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main section.stories .highlights button"),
         "no highlight on ann's profile")
    click_when_there(driver, "main section.stories .highlights button", "could not open the highlight")
    wait(driver, photo_loaded, "the highlight's photo did not load")
    check("ann sees who saw her story, and Highlight keeps it on her profile")


def main():
    return run_steps(__doc__, "stories", steps)


if __name__ == "__main__":
    sys.exit(main())
