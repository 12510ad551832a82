"""Moving in from Instagram in the web app, in headless Chromium against a real `timeline serve`.

Ann chooses an export's zip (Instagram's "Download your information" layout, JSON format: a
photo post with a caption and a video post, written here with Python's zipfile, the photo by
the test's PNG writer and the video by the ffmpeg command line) in Settings' "Move in from
Instagram" and imports it: the section tells its progress, then what it did; her profile then
holds both posts, the video among them.
"""
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, button, by_label, check, png, run_steps, sign_up, text_appears, wait  # noqa: E402


def export(directory):
    clip = directory / "clip.mp4"
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc=size=320x240:rate=25", "-t", "1", "-pix_fmt", "yuv420p", str(clip)], check=True, timeout=120)
    posts = [
        {"media": [{"uri": "media/posts/201901/a.png", "creation_timestamp": 1546300800, "title": "Harbour at dawn #sea"}]},
        {"media": [{"uri": "media/posts/202001/v.mp4", "creation_timestamp": 1577836800, "title": "Waves"}]},
    ]
    path = directory / "instagram.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("your_instagram_activity/content/posts_1.json", json.dumps(posts))
        z.writestr("media/posts/201901/a.png", png(64, 48, 0.4))
        z.write(clip, "media/posts/202001/v.mp4")
    return path


def steps(server, driver):
    ann = sign_up(server, "ann")
    archive = export(Path(server.db).parent)
    as_user(driver, server, ann, "/settings")
    by_label(driver, "Instagram archive (zip)").send_keys(str(archive))
    button(driver, "Import").click()
    text_appears(driver, "2 posts imported", css="main .settings-status")
    check("Settings imports an Instagram export and tells what it did")

    posts = server.call("GET", f"/v1/users/{ann['user']['id']}/posts", token=ann["session"])["items"]
    assert [p["caption"] for p in posts] == ["Waves", "Harbour at dawn #sea"], posts
    assert posts[0]["media"][0]["video"]["state"] == "ready", posts[0]
    as_user(driver, server, ann, "/profile")
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "main .tile")) == 2, "the profile does not show both posts")
    check("her profile holds both posts, the video among them")


def main():
    return run_steps(__doc__, "import", steps)


if __name__ == "__main__":
    sys.exit(main())
