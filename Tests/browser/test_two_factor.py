"""Two-factor sign-in in headless Chromium against a real `timeline serve`.

Settings turns it on: the QR code shows (a loaded image) with the key beside it; the code pyotp
computes from that key confirms it, and the ten recovery codes are shown once. Then signing in
with the password alone asks for the code; a wrong code is told beside the field; a recovery
code signs in. Settings then says nine codes are left, and turns it off with the password and a
code.
"""
import sys
from pathlib import Path

import pyotp
from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_webapp import as_user, button, by_label, check, go, run_steps, sign_up, text_appears, wait  # noqa: E402


def steps(server, driver):
    ann = sign_up(server, "ann")
    as_user(driver, server, ann, "/settings")
    button(driver, "Turn on two-factor sign-in").click()
    qr = wait(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "main img.two-factor-qr")), None), "no QR code")
    wait(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", qr),
         "the QR code did not load")
    secret = driver.find_element(By.CSS_SELECTOR, "main code.two-factor-secret").text.strip()
    check("Settings shows an authenticator's QR code and its key")

    by_label(driver, "Code from the app").send_keys("000000")
    button(driver, "Confirm").click()
    wait(driver, lambda d: "not right" in d.find_element(By.ID, "settings-two-factor-code-error").text,
         "a wrong first code was not told")
    field = by_label(driver, "Code from the app")
    field.clear()
    field.send_keys(pyotp.TOTP(secret).now())
    button(driver, "Confirm").click()
    codes = wait(driver, lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "main ul.recovery-codes li")] or None,
                 "no recovery codes")
    assert len(codes) == 10, codes
    button(driver, "I have kept them").click()
    text_appears(driver, "10 recovery codes left")
    check("pyotp's code confirms it; ten recovery codes are shown once")

    driver.execute_script("localStorage.removeItem('timeline.session')")
    go(driver, server, "/signin")
    by_label(driver, "Email").send_keys("ann@example.com")
    by_label(driver, "Password").send_keys("password-123")
    button(driver, "Sign in").click()
    code = by_label(driver, "Code from your authenticator app")
    code.send_keys("123456")
    button(driver, "Sign in").click()
    wait(driver, lambda d: "not right" in d.find_element(By.ID, "signin-code-error").text, "a wrong code was not told")
    code.clear()
    code.send_keys(codes[0])
    button(driver, "Sign in").click()
    wait(driver, lambda d: d.execute_script("return localStorage.getItem('timeline.session')"), "not signed in")
    check("signing in asks for the code; a wrong one is told; a recovery code signs in")

    go(driver, server, "/settings")
    text_appears(driver, "9 recovery codes left")
    # The section's own fields (Settings has other Password fields).
    driver.find_element(By.ID, "settings-two-factor-password").send_keys("password-123")
    driver.find_element(By.ID, "settings-two-factor-off-code").send_keys(codes[1])
    button(driver, "Turn off two-factor sign-in").click()
    button(driver, "Turn on two-factor sign-in")
    check("Settings turns it off with the password and a recovery code")


def main():
    return run_steps(__doc__, "two-factor", steps)


if __name__ == "__main__":
    sys.exit(main())
