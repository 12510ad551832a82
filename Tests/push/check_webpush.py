#!/usr/bin/env python3
"""Checks a Web Push message and its VAPID header with implementations written by others:
http_ece (PyPI) decrypts the aes128gcm body with the subscriber's private key and secret, and
py_vapid's `cryptography` verifies the ES256 JWT against the announced key. Reads one JSON object
on stdin: {"body", "receiver_private", "receiver_public", "auth" (base64url), "authorization",
"endpoint", "plaintext"}. Prints `ok - …` lines; exits 1 on a failure."""
import base64
import json
import sys
import time
import urllib.parse

import http_ece
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok - {what}")


given = json.load(sys.stdin)
receiver = ec.derive_private_key(int.from_bytes(b64(given["receiver_private"]), "big"), ec.SECP256R1())
plain = http_ece.decrypt(b64(given["body"]), private_key=receiver, auth_secret=b64(given["auth"]), version="aes128gcm")
check(plain.decode() == given["plaintext"], "http_ece decrypts the aes128gcm message")
if "legacy_body" in given:
    headers = dict(line.split(": ", 1) for line in given["legacy_headers"])
    salt = b64(headers["Encryption"].split("salt=")[1])
    dh = b64(headers["Crypto-Key"].split("dh=")[1])
    legacy = http_ece.decrypt(b64(given["legacy_body"]), salt=salt, dh=dh, private_key=receiver, auth_secret=b64(given["auth"]),
                              version="aesgcm")
    check(legacy.decode() == given["plaintext"], "http_ece decrypts the legacy aesgcm message (Encryption and Crypto-Key headers)")

scheme, _, rest = given["authorization"].partition(" ")
fields = dict(part.strip().split("=", 1) for part in rest.split(","))
check(scheme == "vapid" and set(fields) == {"t", "k"}, "Authorization: vapid t=…, k=…")
header, claims, signature = fields["t"].split(".")
public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64(fields["k"]))
raw = b64(signature)
public.verify(utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
              f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
check(json.loads(b64(header)) == {"typ": "JWT", "alg": "ES256"}, "the JWT is ES256, and its signature verifies")
body = json.loads(b64(claims))
endpoint = urllib.parse.urlparse(given["endpoint"])
check(body["aud"] == f"{endpoint.scheme}://{endpoint.netloc}" and body["sub"].startswith("mailto:")
      and time.time() < body["exp"] <= time.time() + 24 * 3600, "aud is the push service's origin, sub the contact, exp within a day")
