#!/usr/bin/env python3
"""Serves peer.py's actor over HTTPS on loopback until killed; prints its id first.
Usage: serve_actor.py CERTIFICATE KEY"""
import sys
import time

from peer import Peer

peer = Peer(sys.argv[1], sys.argv[2])
print(peer.id, flush=True)
while True:
    time.sleep(60)
