"""The Messages screen and the composer's Direct choice in headless Chromium against a real
`timeline serve`.

ann writes to @bob from Messages (text alone); bob opens Messages, sees the conversation unread,
opens it (it is read), answers; ann sees his answer as the conversation's last message; carol,
who follows ann, never sees the message (not in Home, not in her Messages); the composer offers
"Direct" and sends a direct message without a photo; Remove takes a conversation out of bob's
list only; a conversation of 105 messages (made through the API) opens on its newest 100, and
"Load older messages" reaches its first.
"""
import sys
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, check, go, run_steps, sign_up, text_appears, wait  # noqa: E402


def send(driver, text):
    box = wait(driver, lambda d: d.find_element(By.ID, "message-text"), "no message box")
    box.clear()
    box.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()


def rows(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "main ul.conversations li")]


def steps(server, driver):
    ann, bob, carol = sign_up(server, "ann"), sign_up(server, "bob"), sign_up(server, "carol")
    server.call("PUT", f"/v1/me/following/{ann['user']['id']}", {}, carol["session"])

    as_user(driver, server, ann, "/messages")
    text_appears(driver, "No messages yet")
    send(driver, "@bob lunch at noon?")
    wait(driver, lambda d: any("lunch at noon?" in r for r in rows(d)), f"ann's messages: {rows(driver)}")
    check("ann writes to @bob from Messages, text alone; it is her conversation")

    as_user(driver, server, bob, "/messages")
    wait(driver, lambda d: any("unread" in r and "@ann" in r for r in rows(d)), f"bob's messages: {rows(driver)}")
    driver.find_element(By.CSS_SELECTOR, "main ul.conversations li a").click()
    text_appears(driver, "With @ann")
    text_appears(driver, "lunch at noon?", "main ol.messages")
    send(driver, "@ann yes!")
    text_appears(driver, "yes!", "main ol.messages")
    go(driver, server, "/messages")
    wait(driver, lambda d: rows(d) and "unread" not in rows(d)[0] and "yes!" in rows(d)[0], f"bob's: {rows(driver)}")
    check("bob sees it unread, opens it (read), answers; his answer is its last message")

    as_user(driver, server, carol, "/")
    text_appears(driver, "Home", "body")
    go(driver, server, "/messages")
    text_appears(driver, "No messages yet")
    body = driver.find_element(By.CSS_SELECTOR, "body").text
    assert "lunch at noon?" not in body, "carol sees the message"
    check("carol, who follows ann, has no message and sees nothing of it")

    as_user(driver, server, ann, "/new")
    Select(wait(driver, lambda d: d.find_element(By.ID, "visibility"), "no visibility")).select_by_value("direct")
    driver.find_element(By.ID, "caption").send_keys("@bob see you at 1")
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait(driver, lambda d: d.execute_script("return location.hash").startswith("#/post/"), "the direct post did not open")
    text_appears(driver, "Direct")
    check("the composer's Direct choice sends a message without a photo")

    as_user(driver, server, bob, "/messages")
    wait(driver, lambda d: rows(d) and "see you at 1" in rows(d)[0], f"bob's: {rows(driver)}")
    driver.find_element(By.CSS_SELECTOR, "main ul.conversations li button").click()
    text_appears(driver, "No messages yet")
    assert len(server.call("GET", "/v1/conversations", None, ann["session"])["items"]) == 1
    check("Remove takes the conversation out of bob's list only")

    dan, eve = sign_up(server, "dan"), sign_up(server, "eve")
    first = server.call("POST", "/v1/posts", {"caption": "@eve message 0", "visibility": "direct"}, dan["session"])
    for n in range(1, 105):
        who, to = (dan, "eve") if n % 2 == 0 else (eve, "dan")
        server.call("POST", "/v1/posts", {"caption": f"@{to} message {n}", "visibility": "direct"}, who["session"])
    conversation = server.call("GET", "/v1/conversations", None, eve["session"])["items"][0]
    assert conversation["id"] == first["id"], conversation
    as_user(driver, server, eve, f"/messages/{conversation['id']}")
    text_appears(driver, "message 104", "main ol.messages")

    def shown(d):  # read in one script: the list is redrawn as pages come
        return d.execute_script(
            "return [...document.querySelectorAll('main ol.messages li')].map((li) => li.innerText)")
    wait(driver, lambda d: len(shown(d)) == 100, f"the newest page: {len(shown(driver))}")
    assert shown(driver)[0].endswith("message 5") and shown(driver)[-1].endswith("message 104"), shown(driver)[:2]
    driver.find_element(By.CSS_SELECTOR, "main button.load-older").click()
    wait(driver, lambda d: len(shown(d)) == 105, f"after Load older: {len(shown(driver))}")
    assert shown(driver)[0] == "@dan @eve message 0", shown(driver)[0]
    text_appears(driver, "The start of the conversation.")
    assert not driver.find_element(By.CSS_SELECTOR, "main button.load-older").is_displayed()
    send(driver, "no mention, still ours")
    wait(driver, lambda d: shown(d)[-1].endswith("no mention, still ours"), f"the answer: {shown(driver)[-3:]}")
    assert len(shown(driver)) == 106
    assert server.call("GET", "/v1/conversations", None, dan["session"])["items"][0]["lastPost"]["caption"] \
        == "no mention, still ours"
    check("105 messages: the newest 100 first, Load older reaches the first; an answer without @ stays in it")


def main():
    return run_steps(__doc__, "messages", steps)


if __name__ == "__main__":
    sys.exit(main())
