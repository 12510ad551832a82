"""A federation test peer: another server's actor, served over HTTPS on loopback (a certificate
of the test's own authority), with an inbox that keeps what it is sent, and requests signed with
others' code — `httpsig` (draft-cavage) and `http-message-signatures` (RFC 9421)."""
import base64
import email.utils
import hashlib
import json
import ssl
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from httpsig import HeaderSigner, HeaderVerifier
from http_message_signatures import HTTPMessageSigner, HTTPSignatureKeyResolver, algorithms


def new_key():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


class Peer:
    """An actor `name` at https://localhost:PORT/users/NAME, with its inbox."""

    def __init__(self, certificate, key, name="peer", locked=False, authorized_fetch=False):
        self.name = name
        # Requires every GET to be signed, as GoToSocial does by default (and Mastodon in its
        # authorised-fetch mode): the signer's key fetched from its keyId, checked with httpsig.
        self.authorized_fetch = authorized_fetch
        self.signed_gets, self.unsigned_gets = 0, 0
        self.get_signers = []  # (path, the keyId that signed the GET, or None)
        self.private, self.public = new_key()
        self.received = []
        self.fail_next = 0  # answer this many deliveries 500 before taking any
        self.refused = []
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                signature = self.headers.get("Signature", "")
                peer.get_signers.append((self.path, next(
                    (part.split("=", 1)[1].strip('"') for part in signature.split(",")
                     if part.strip().startswith("keyId=")), None)))
                if peer.authorized_fetch and not peer.signed_by_its_key(self.path, dict(self.headers.items())):
                    peer.unsigned_gets += 1
                    self.send_response(401)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                peer.signed_gets += peer.authorized_fetch
                if self.path != f"/users/{peer.name}":
                    self.send_response(404)
                    self.end_headers()
                    return
                body = json.dumps(peer.actor_document()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/activity+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if peer.fail_next > 0:
                    peer.fail_next -= 1
                    peer.refused.append(body)
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                peer.received.append((self.path, dict(self.headers.items()), body))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.origin = f"https://localhost:{self.port}"
        self.id = f"{self.origin}/users/{name}"
        self.key_id = self.id + "#main-key"
        self.locked = locked
        self.also_known_as = []
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def signed_by_its_key(path, headers):
        """Whether a GET's draft-cavage signature verifies with httpsig, with the key its keyId
        names (fetched from the signer's server, as a server in authorised-fetch mode does)."""
        signature = headers.get("Signature", "")
        key_id = next((part.split("=", 1)[1].strip('"') for part in signature.split(",")
                       if part.strip().startswith("keyId=")), None)
        if not key_id:
            return False
        try:
            owner = requests.get(key_id.split("#")[0], headers={"Accept": "application/activity+json"},
                                 timeout=10).json()
            pem = owner["publicKey"]["publicKeyPem"]
            return owner["publicKey"]["id"] == key_id and HeaderVerifier(
                headers, pem.encode(), required_headers=["(request-target)", "host", "date"], method="GET",
                path=path, sign_header="Signature").verify()
        except Exception:
            return False

    def actor_document(self):
        return {
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": self.id, "type": "Person", "preferredUsername": self.name,
            "inbox": self.id + "/inbox", "outbox": self.id + "/outbox",
            "endpoints": {"sharedInbox": self.origin + "/inbox"},
            "manuallyApprovesFollowers": self.locked, "alsoKnownAs": self.also_known_as,
            "publicKey": {"id": self.key_id, "owner": self.id, "publicKeyPem": self.public.decode()},
        }

    def activity(self, kind, obj, actor=None):
        return {"@context": "https://www.w3.org/ns/activitystreams",
                "id": f"{self.origin}/activities/{uuid.uuid4()}", "type": kind, "actor": actor or self.id,
                "object": obj}

    def post_cavage(self, url, activity, *, key=None, date=None, body=None, signed_host=None, signed_body=None):
        """POSTs `activity` (or `body`) to `url` signed with httpsig (draft-cavage, rsa-sha256):
        by `key` (the peer's own by default), as if for `signed_host` and over `signed_body`
        (the request's own by default: a test of a forgery gives others)."""
        body = body if body is not None else json.dumps(activity).encode()
        target = requests.utils.urlparse(url)
        digest_of = signed_body if signed_body is not None else body
        headers = {"Host": signed_host or target.netloc, "Date": date or email.utils.formatdate(usegmt=True),
                   "Digest": "SHA-256=" + base64.b64encode(hashlib.sha256(digest_of).digest()).decode(),
                   "Content-Type": "application/activity+json"}
        signer = HeaderSigner(self.key_id, key or self.private, algorithm="rsa-sha256",
                              headers=["(request-target)", "host", "date", "digest"], sign_header="Signature")
        signed = signer.sign(headers, method="POST", path=target.path)
        signed["Host"] = target.netloc
        self.last_request = (url, body, signed)  # what `resend` sends again, as a replay would
        return requests.post(url, data=body, headers=signed, timeout=30)

    @staticmethod
    def resend(request):
        """POSTs a request `post_cavage` made (its `last_request`) again, byte for byte."""
        url, body, headers = request
        return requests.post(url, data=body, headers=headers, timeout=30)

    def post_rfc9421(self, url, activity):
        """POSTs `activity` to `url` signed with http-message-signatures (RFC 9421)."""
        body = json.dumps(activity).encode()
        private = self.private

        class Keys(HTTPSignatureKeyResolver):
            def resolve_private_key(self, key_id):
                return private

        request = requests.Request("POST", url, data=body, headers={
            "Content-Type": "application/activity+json", "Date": email.utils.formatdate(usegmt=True)}).prepare()
        HTTPMessageSigner(signature_algorithm=algorithms.RSA_V1_5_SHA256, key_resolver=Keys()).sign(
            request, key_id=self.key_id, body=body,
            covered_component_ids=("@method", "@target-uri", "@authority", "date", "content-digest"))
        return requests.Session().send(request, timeout=30)

    def wait_for(self, kind, seconds=30, where=lambda activity: True):
        """The first activity of `kind` (and `where`) delivered to this peer: (path, headers,
        body, parsed body), or None after `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for path, headers, body in list(self.received):
                activity = json.loads(body)
                if activity.get("type") == kind and where(activity):
                    return path, headers, body, activity
            time.sleep(0.05)
        return None

    def count(self, kind, where=lambda activity: True):
        """How many activities of `kind` (and `where`) this peer took."""
        return len([1 for _, _, body in list(self.received)
                    if json.loads(body).get("type") == kind and where(json.loads(body))])

    @staticmethod
    def verify_cavage(path, headers, public_pem):
        """Whether httpsig verifies a delivery's signature with `public_pem`."""
        return HeaderVerifier(headers, public_pem, required_headers=["(request-target)", "host", "date", "digest"],
                              method="POST", path=path, sign_header="Signature").verify()
