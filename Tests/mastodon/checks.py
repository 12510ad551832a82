"""What every Mastodon client script here reports with: `check` prints `ok - …` for a condition
that holds, or `FAILED: …` and exits 1 (the Swift test that runs the script fails on it)."""
import sys


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok - {what}")
