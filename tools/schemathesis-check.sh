#!/usr/bin/env bash
# Runs schemathesis (PyPI, 4.x) against a running `timeline serve`, from the document it serves at
# BASE_URL/v1/openapi.json: a bounded number of generated requests per operation (valid and
# invalid ones), checking that no answer is a 5xx, and that every status, Content-Type and JSON
# body is one the document declares. Exits 0 when all pass, non-zero on any failure, on a request
# slower than the request timeout, or when the whole run exceeds its time limit (it never hangs).
#
# usage: tools/schemathesis-check.sh BASE_URL [--document PATH] [--token SESSION] [--max-examples N]
#                                    [--request-timeout SECONDS] [--time-limit SECONDS] [--seed N]
#                                    [--param LOCATION.NAME=VALUE]… [-- EXTRA SCHEMATHESIS OPTIONS…]
#   BASE_URL           e.g. http://127.0.0.1:8080 (no trailing /v1)
#   --document PATH    the document to check against (default /v1/openapi.json; the Mastodon
#                      API's is /api/openapi.json, whose endless streams are left out)
#   --token SESSION    a session token of a throwaway user, sent as `Authorization: Bearer SESSION`
#                      with every request, so the bearer-only routes are exercised past 401
#   --max-examples     generated test cases per operation (default 25)
#   --request-timeout  seconds per request (default 5)
#   --time-limit       seconds for the whole run, then it is killed and fails (default 300)
#   --param            a real value for a parameter, e.g. path.post=<id of a post of ANOTHER user>,
#                      path.user=@bob, path.image=<its image>, path.comment=<id>, path.tag=sea;
#                      without them most generated ids are unknown and answer 404
#
# Not exercised: GET /v1/stream (an endless response: the Swift stream tests cover it), and
# DELETE /v1/sessions/current, DELETE /v1/sessions and DELETE /v1/me, which would end the token's session or erase its
# user halfway through the run.
#
# How the Swift tests call it (after `tools/install-deps --tests`), from the repository root, with
# `timeline serve --db <temp dir> --listen 127.0.0.1:<free port>` running and a user signed up
# through POST /v1/users whose `session` is <token>:
#
#   tools/schemathesis-check.sh http://127.0.0.1:<port> --token <token> --max-examples 25 \
#       --request-timeout 5 --time-limit 300
#
# and expect exit status 0 (stdout/stderr carry schemathesis' report: show it when it fails).
set -euo pipefail

usage() { sed -n '8,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
BASE_URL="${1%/}"; shift
case "$BASE_URL" in http://*|https://*) ;; *) echo "schemathesis-check: BASE_URL must start with http:// or https://" >&2; usage ;; esac
DOCUMENT="/v1/openapi.json"; TOKEN=""; MAX_EXAMPLES=25; REQUEST_TIMEOUT=5; TIME_LIMIT=300; SEED=""; EXTRA=(); PARAMS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --document) DOCUMENT="${2:?--document needs a path}"; shift 2 ;;
    --token) TOKEN="${2:?--token needs a value}"; shift 2 ;;
    --max-examples) MAX_EXAMPLES="${2:?}"; shift 2 ;;
    --request-timeout) REQUEST_TIMEOUT="${2:?}"; shift 2 ;;
    --time-limit) TIME_LIMIT="${2:?}"; shift 2 ;;
    --seed) SEED="${2:?}"; shift 2 ;;
    --param)
      case "${2:-}" in
        path.*=*|query.*=*|header.*=*) PARAMS+=("$2") ;;
        *) echo "schemathesis-check: --param wants LOCATION.NAME=VALUE (path, query or header)" >&2; usage ;;
      esac
      shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "schemathesis-check: unknown option $1" >&2; usage ;;
  esac
done

# The CLI of schemathesis 3.x differs (--hypothesis-max-examples, no --phases): require 4.x.
if command -v schemathesis >/dev/null 2>&1; then
  ST=(schemathesis)
elif python3 -c "import schemathesis.cli" >/dev/null 2>&1; then
  ST=(python3 -c 'import sys; from schemathesis.cli import schemathesis; sys.argv[0] = "schemathesis"; schemathesis()')
else
  echo "schemathesis-check: schemathesis is not installed: run tools/install-deps --tests" >&2; exit 2
fi
VERSION="$("${ST[@]}" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p')"
case "$VERSION" in
  4.*) ;;
  *) echo "schemathesis-check: needs schemathesis 4.x, found '${VERSION:-unknown}': python3 -m pip install -U schemathesis" >&2; exit 2 ;;
esac

# Run in a scratch directory: schemathesis reads a schemathesis.toml from the working directory,
# and nothing of the run should land in the repository. Our own config holds the --param values.
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
CONFIG="$SCRATCH/schemathesis.toml"
: > "$CONFIG"
if [ ${#PARAMS[@]} -gt 0 ]; then
  # TOML basic strings: escape backslashes and quotes.
  toml() { local v="${1//\\/\\\\}"; printf '"%s"' "${v//\"/\\\"}"; }
  echo "[parameters]" >> "$CONFIG"
  for param in "${PARAMS[@]}"; do
    echo "$(toml "${param%%=*}") = $(toml "${param#*=}")" >> "$CONFIG"
  done
fi

args=(
  --config-file "$CONFIG"
  run "$BASE_URL$DOCUMENT"
  --url "$BASE_URL"
  --wait-for-schema 10
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
  --phases examples,coverage,fuzzing
  --max-examples "$MAX_EXAMPLES"
  --request-timeout "$REQUEST_TIMEOUT"
  --request-retries 0
  --max-redirects 0
  --workers 1
  --generation-database none
  --no-color
)
if [ "$DOCUMENT" = "/v1/openapi.json" ]; then
  args+=(--exclude-operation-id stream --exclude-operation-id signOut --exclude-operation-id signOutEverywhere
         --exclude-operation-id eraseUser)
else
  # Endless streams (the WebSocket route answers a GET without Upgrade as Server-Sent Events):
  # every one but the health check, which answers at once. A valid request to one would wait out
  # the request timeout.
  args+=(--exclude-path-regex '^/api/v1/streaming/(?!health$)' --exclude-operation-id getApiV1Streaming)
fi
[ -n "$TOKEN" ] && args+=(--header "Authorization: Bearer $TOKEN")
[ -n "$SEED" ] && args+=(--seed "$SEED")
args+=("${EXTRA[@]}")

status=0
(cd "$SCRATCH" && timeout --kill-after=10 "$TIME_LIMIT" "${ST[@]}" "${args[@]}") || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "schemathesis-check: FAILED: the run took longer than ${TIME_LIMIT}s (a hung request or a slow server)" >&2
  exit 1
elif [ "$status" -ne 0 ]; then
  echo "schemathesis-check: FAILED (schemathesis exit status $status)" >&2
  exit 1
fi
echo "schemathesis-check: passed ($BASE_URL$DOCUMENT, $MAX_EXAMPLES examples per operation)"
