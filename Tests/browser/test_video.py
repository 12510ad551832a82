"""Videos in the web app, in headless Chromium against a real `timeline serve`.

Ann chooses a video (an H.264 MP4 with sound that the ffmpeg command line makes) in New post: it
is previewed, uploaded, transcoded by the server (the form waits, saying so) and shared; the
post shows a `<video>` with its poster frame, and Chromium plays it: its duration is the
video's, and its time advances once it plays. Her profile's grid marks the tile as a video.
Then she adds the video to her story from Home's row; Ben, who follows her, opens it and it
plays in the story viewer.
"""
import subprocess
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, button, by_label, check, run_steps, sign_up, wait  # noqa: E402


def steps(server, driver):
    ann = sign_up(server, "ann")
    clip = Path(server.db).parent / "clip.mp4"
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=440", "-t", "3",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", str(clip)], check=True, timeout=120)
    as_user(driver, server, ann, "/new")
    by_label(driver, "Photos").send_keys(str(clip))
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "form.compose video.preview"), "no preview of the video")
    by_label(driver, "Caption").send_keys("A test card #video")
    button(driver, "Share").click()
    wait(driver, lambda d: "#/post/" in d.current_url, "Share did not open the new post", timeout=120)
    video = wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "main video.post-video")), None),
                 "the post shows no video")
    check("ann shares a video from New post: uploaded, transcoded, and shown as a video")

    poster = video.get_attribute("poster")
    assert poster and "/v1/images/" in poster, f"no poster frame: {poster!r}"
    status = driver.execute_async_script("fetch(arguments[0]).then(r => arguments[1](r.status), () => arguments[1](0))", poster)
    assert status == 200, f"the poster frame does not load: {status}"
    wait(driver, lambda d: d.execute_script("return arguments[0].readyState >= 1", video), "the video's metadata did not load")
    duration = driver.execute_script("return arguments[0].duration", video)
    assert abs(duration - 3) < 0.2, f"the video lasts {duration} s, not 3"
    driver.execute_script("arguments[0].muted = true; arguments[0].play()", video)
    wait(driver, lambda d: d.execute_script("return arguments[0].currentTime", video) > 0.5, "the video did not play")
    error = driver.execute_script("return arguments[0].error && arguments[0].error.message", video)
    assert not error, error
    check("Chromium plays it: its poster, its 3 seconds, its time advancing")

    as_user(driver, server, ann, "/profile")
    wait(driver, lambda d: any(m.get_attribute("title") == "Video" for m in d.find_elements(By.CSS_SELECTOR, "main .tile .album-mark")),
         "the profile's tile is not marked as a video")
    check("her profile's grid marks it as a video")

    as_user(driver, server, ann, "/")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main .stories-row button.story-add"), "no Add to your story")

    def choose(d):
        picker = d.find_element(By.CSS_SELECTOR, "main .stories input[type=file]")
        d.execute_script("arguments[0].hidden = false", picker)
        picker.send_keys(str(clip))
        return True

    wait(driver, choose, "could not choose the story's video")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "main .stories-row button[aria-label^='Your story']"),
         "no own story in the row", timeout=120)
    ben = sign_up(server, "ben")
    server.call("PUT", f"/v1/me/following/{ann['user']['id']}", token=ben["session"])
    as_user(driver, server, ben, "/")
    # Found and clicked in one step: the row may re-render between two.
    opens = "const b = document.querySelector('main .stories-row button.story-author.unseen'); if (b) b.click(); return !!b"
    wait(driver, lambda d: d.execute_script(opens), "no unseen story of ann's in ben's row")
    story = wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "dialog video.story-video")), None),
                 "the story viewer shows no video")
    state = "return [arguments[0].readyState, arguments[0].currentTime, arguments[0].paused, String(arguments[0].src).slice(0, 5), arguments[0].error && arguments[0].error.message]"
    try:
        wait(driver, lambda d: d.execute_script("return arguments[0].readyState >= 1 && arguments[0].currentTime > 0.3", story),
             "the story's video did not play")
    except Exception:
        raise AssertionError(f"the story's video did not play: {driver.execute_script(state, story)}")
    check("a video story: added from the row, played in a follower's story viewer")


def main():
    return run_steps(__doc__, "video", steps)


if __name__ == "__main__":
    sys.exit(main())
