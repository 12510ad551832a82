#!/usr/bin/env python3
"""The authorize page as a person uses it, in headless Chromium (Selenium): an app sends them to
/oauth/authorize with PKCE; they sign in with the fields labelled Email and Password, see the
app's name and the scopes it asks, and press Authorize — the browser lands on the app's own
redirect URI (another origin, served here) with the code and the state, which the app redeems
with its verifier. Deny sends access_denied; a wrong password is told on the page; another site
cannot show the page in a frame. Usage: test_authorize_browser.py BASE_URL (alice@example.com /
password-123 must exist). Prints `ok - …` lines; exits 1 on a failure."""
import base64
import hashlib
import http.server
import secrets
import shutil
import sys
import threading
import urllib.parse

import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait
from checks import check

base = sys.argv[1]
seen = []
authorize_url = None


class App(http.server.BaseHTTPRequestHandler):
    """The app's side: its redirect URI, and a page of another site that frames the authorize page."""

    def do_GET(self):
        seen.append(self.path)
        body = (f'<html><body><iframe id="frame" src="{authorize_url}"></iframe></body></html>' if self.path == "/decoy"
                else "<html><body>app</body></html>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


app_server = http.server.HTTPServer(("127.0.0.1", 0), App)
threading.Thread(target=app_server.serve_forever, daemon=True).start()
callback = f"http://127.0.0.1:{app_server.server_port}/callback"


registered = requests.post(base + "/api/v1/apps", data={"client_name": "Photo <App>", "redirect_uris": callback, "scopes": "read write"}).json()
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
authorize_url = base + "/oauth/authorize?" + urllib.parse.urlencode({
    "response_type": "code", "client_id": registered["client_id"], "redirect_uri": callback, "scope": "read write",
    "state": "s-42", "code_challenge": challenge, "code_challenge_method": "S256"})

options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,800"):
    options.add_argument(argument)
driver = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"))
driver.set_page_load_timeout(30)


def field(label):
    """The input the label with this text names, as a person finds it."""
    labels = [element for element in driver.find_elements(By.TAG_NAME, "label") if element.text.strip() == label]
    check(len(labels) == 1, f"a field labelled {label}")
    return driver.find_element(By.ID, labels[0].get_attribute("for"))


def button(text):
    return next(element for element in driver.find_elements(By.TAG_NAME, "button") if element.text.strip() == text)


def wait_for_page(condition):
    """Waits for a page the form's submission loads; the old page's elements go stale while it loads."""
    WebDriverWait(driver, 10, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)


def sign_in(password="password-123"):
    driver.get(authorize_url)
    field("Email").send_keys("alice@example.com")
    field("Password").send_keys(password)
    button("Sign in").click()


try:
    sign_in(password="not-her-password")
    wait_for_page(lambda d: "Wrong email or password." in d.find_element(By.TAG_NAME, "body").text)
    page = driver.find_element(By.TAG_NAME, "body").text
    check("Wrong email or password." in page, f"a wrong password is told on the page ({page[:300]})")

    sign_in()
    wait_for_page(lambda d: "Authorize" in d.find_element(By.TAG_NAME, "h1").text)
    check(driver.find_element(By.ID, "app-name").text == "Photo <App>", "the app's name is shown as text")
    scopes = driver.find_element(By.ID, "scopes").text
    check("read" in scopes and "write" in scopes, "the scopes asked are listed")
    button("Authorize").click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback))
    query = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    check(query["state"] == ["s-42"] and any(path.startswith("/callback?code=") for path in seen),
          "Authorize lands on the app's redirect URI (another origin) with the code and the state")
    token = requests.post(base + "/oauth/token", data={"grant_type": "authorization_code", "client_id": registered["client_id"],
                                                       "client_secret": registered["client_secret"], "code": query["code"][0],
                                                       "redirect_uri": callback, "code_verifier": verifier}).json()
    me = requests.get(base + "/api/v1/accounts/verify_credentials", headers={"Authorization": "Bearer " + token["access_token"]}).json()
    check(me["username"] == "alice" and token["scope"] == "read write", "the app redeems the code with its PKCE verifier: alice's token")

    sign_in()
    wait_for_page(lambda d: "Authorize" in d.find_element(By.TAG_NAME, "h1").text)
    button("Deny").click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback))
    denied = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    check(denied["error"] == ["access_denied"] and denied["state"] == ["s-42"], "Deny lands with access_denied")

    driver.get(f"http://127.0.0.1:{app_server.server_port}/decoy")
    driver.switch_to.frame(driver.find_element(By.ID, "frame"))
    check(driver.find_elements(By.ID, "email") == [], "another site cannot show the page in a frame (clickjacking)")
finally:
    driver.quit()
    app_server.shutdown()
