#!/usr/bin/env python3
"""Two-factor sign-in over HTTP, checked by implementations written by others: pyotp (RFC 6238)
computes the codes from the secret `POST /v1/me/two-factor` answers and reads its otpauth:// URI;
zbarimg reads the QR code PNG and finds that URI. Then: signing in without a code is 401
two_factor_required; a code signs in once; a recovery code signs in once; Mastodon.py's password
grant needs the code as otp_attempt; turning it off needs the password and a code.
Usage: test_two_factor.py BASE_URL TOKEN EMAIL PASSWORD (a fresh account's). Prints `ok - …`
lines; exits 1 on a failure."""
import base64
import html
import re
import subprocess
import sys
import tempfile
import time

import pyotp
import requests
from mastodon import Mastodon, MastodonAPIError, MastodonIllegalArgumentError
from checks import check

base, token, email, password = sys.argv[1:]
bearer = {"Authorization": f"Bearer {token}"}


def sign_in(code=None):
    body = {"email": email, "password": password}
    if code is not None:
        body["code"] = code
    return requests.post(f"{base}/v1/sessions", json=body, timeout=30)


def next_step_code(totp, used):
    """A code of a step after `used`'s (codes count once, and a step's code is spent)."""
    while True:
        code = totp.now()
        if code != used:
            return code
        time.sleep(1)


enrolled = requests.post(f"{base}/v1/me/two-factor", headers=bearer, timeout=30)
check(enrolled.status_code == 201, f"POST /v1/me/two-factor answers the enrolment, 201 ({enrolled.status_code})")
enrolment = enrolled.json()
secret, uri = enrolment["secret"], enrolment["otpauthURI"]
parsed = pyotp.parse_uri(uri)
check(parsed.secret == secret and parsed.digits == 6 and parsed.interval == 30 and parsed.issuer == "Timeline",
      f"pyotp reads the otpauth URI: the secret, 6 digits, 30 s, the issuer ({uri})")
with tempfile.NamedTemporaryFile(suffix=".png") as png:
    png.write(base64.b64decode(enrolment["qrCode"]))
    png.flush()
    read = subprocess.run(["zbarimg", "--quiet", "--raw", png.name], capture_output=True, text=True, timeout=30)
check(read.returncode == 0 and read.stdout.strip() == uri, f"zbarimg reads the QR code: the URI ({read.stdout!r})")
check(sign_in().status_code == 201, "before confirming, the password alone still signs in")

totp = pyotp.TOTP(secret)
wrong = requests.post(f"{base}/v1/me/two-factor/confirm", headers=bearer, json={"code": "000000"}, timeout=30)
check(wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_credentials", "a wrong first code: 401")
first = totp.now()
confirmed = requests.post(f"{base}/v1/me/two-factor/confirm", headers=bearer, json={"code": first}, timeout=30)
check(confirmed.status_code in (200, 201), f"confirm with pyotp's code ({confirmed.status_code} {confirmed.text})")
recovery = confirmed.json()["recoveryCodes"]
check(len(recovery) == 10 and len(set(recovery)) == 10, "ten distinct recovery codes")
state = requests.get(f"{base}/v1/me/two-factor", headers=bearer, timeout=30).json()
check(state == {"enabled": True, "recoveryCodesLeft": 10}, f"GET /v1/me/two-factor: on, ten codes left ({state})")

refused = sign_in()
check(refused.status_code == 401 and refused.json()["error"]["code"] == "two_factor_required",
      f"without a code: 401 two_factor_required ({refused.text})")
check(sign_in(first).status_code == 401, "the confirming code is spent")
code = next_step_code(totp, first)
check(sign_in(code).status_code == 201, "pyotp's code of the next step signs in")
check(sign_in(code).status_code == 401, "the same code again does not")
check(sign_in(recovery[0]).status_code == 201, "a recovery code signs in")
check(sign_in(recovery[0]).status_code == 401, "the same recovery code again does not")

# Mastodon.py's password grant: refused without a code; otp_attempt is where it goes.
client_id, client_secret = Mastodon.create_app("Two-factor", api_base_url=base, scopes=["read"])
app = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base, version_check_mode="none")
try:
    app.log_in(email, password, scopes=["read"], allow_http=True)
    check(False, "the password grant without a code is refused")
except (MastodonAPIError, MastodonIllegalArgumentError):
    check(True, "the password grant without a code is refused (invalid_grant)")
granted = requests.post(f"{base}/oauth/token", data={
    "grant_type": "password", "client_id": client_id, "client_secret": client_secret, "username": email,
    "password": password, "scope": "read", "otp_attempt": recovery[1]}, timeout=30)
check(granted.status_code == 200 and granted.json()["access_token"],
      f"the password grant with otp_attempt gives a token ({granted.text})")

# The authorize page: the password alone is not enough; the page asks for the code.
def hidden_fields(page):
    return {name: html.unescape(value)
            for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


# The next step's code is waited for first: the page's forms then follow at once (an idle
# keep-alive connection is closed by the server meanwhile).
code = next_step_code(totp, code)
callback = "http://127.0.0.1:9/callback"
page_app_id, _ = Mastodon.create_app("Page app", api_base_url=base, scopes=["read"], redirect_uris=callback)
browser = requests.Session()
page = browser.get(f"{base}/oauth/authorize", params={
    "response_type": "code", "client_id": page_app_id, "redirect_uri": callback, "scope": "read"}, timeout=30)
asked = browser.post(f"{base}/oauth/authorize", data={**hidden_fields(page.text), "email": email, "password": password},
                     timeout=30)
check(asked.status_code == 200 and 'name="otp_attempt"' in asked.text and ">Authorize<" not in asked.text
      and password not in asked.text, "the authorize page asks for the code (and never holds the password)")
consent = browser.post(f"{base}/oauth/authorize", data={
    **hidden_fields(asked.text), "email": email, "password": password, "otp_attempt": code}, timeout=30)
check(consent.status_code == 200 and ">Authorize<" in consent.text, "with the code, the page asks to Authorize or Deny")

off = requests.delete(f"{base}/v1/me/two-factor", headers=bearer, json={"password": password, "code": "123456"},
                      timeout=30)
check(off.status_code == 401, "turning it off with a wrong code: 401")
off = requests.delete(f"{base}/v1/me/two-factor", headers=bearer, json={"password": password, "code": recovery[2]},
                      timeout=30)
check(off.status_code == 204, f"turned off with the password and a recovery code ({off.status_code} {off.text})")
check(sign_in().status_code == 201, "the password alone signs in again")
state = requests.get(f"{base}/v1/me/two-factor", headers=bearer, timeout=30).json()
check(state == {"enabled": False, "recoveryCodesLeft": 0}, f"GET /v1/me/two-factor: off ({state})")
print("ok - two-factor sign-in checked by pyotp and zbarimg")
