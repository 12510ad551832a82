#!/usr/bin/env python3
"""Check schemas/openapi.json: valid OpenAPI 3.1 (by `openapi-spec-validator` from PyPI), equal to
what tools/build-openapi.py generates from schemas/, every embedded schema valid JSON Schema
2020-12, and every route of SPEC.md's HTTP table (plus the routes added beyond it) present with
its operationId and success status.

usage: check-openapi.py [FILE]     (default schemas/openapi.json)
Prints what is wrong and exits 1; prints a one-line summary and exits 0 otherwise.
"""
import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (method, path, operationId, success status): SPEC.md "HTTP API (`timeline serve`)", then the
# routes added beyond it (changePassword, changeEmail, streamTicket). Kept apart from the
# generator's route table on purpose: dropping or renaming a route there must fail here.
EXPECTED = [
    ("post", "/v1/users", "createUser", "201"),
    ("post", "/v1/sessions", "signIn", "201"),
    ("delete", "/v1/sessions/current", "signOut", "204"),
    ("get", "/v1/me", "me", "200"),
    ("patch", "/v1/me", "updateProfile", "200"),
    ("delete", "/v1/me", "eraseUser", "204"),
    ("put", "/v1/me/avatar", "setAvatar", "200"),
    ("delete", "/v1/me/avatar", "removeAvatar", "200"),
    ("get", "/v1/users", "searchUsers", "200"),
    ("get", "/v1/users/{user}", "user", "200"),
    ("get", "/v1/users/{user}/posts", "posts", "200"),
    ("get", "/v1/users/{user}/followers", "followers", "200"),
    ("get", "/v1/users/{user}/following", "following", "200"),
    ("put", "/v1/me/following/{user}", "follow", "200"),
    ("delete", "/v1/me/following/{user}", "unfollow", "200"),
    ("post", "/v1/posts", "addPost", "201"),
    ("get", "/v1/posts/{post}", "post", "200"),
    ("delete", "/v1/posts/{post}", "deletePost", "204"),
    ("get", "/v1/posts/{post}/comments", "comments", "200"),
    ("post", "/v1/posts/{post}/comments", "addComment", "201"),
    ("delete", "/v1/comments/{comment}", "deleteComment", "204"),
    ("put", "/v1/posts/{post}/like", "like", "200"),
    ("delete", "/v1/posts/{post}/like", "unlike", "200"),
    ("get", "/v1/posts/{post}/likes", "likes", "200"),
    ("post", "/v1/posts/{post}/reports", "reportPost", "204"),
    ("get", "/v1/timeline", "timeline", "200"),
    ("get", "/v1/hashtags/{tag}/posts", "hashtag", "200"),
    ("get", "/v1/activity", "activity", "200"),
    ("get", "/v1/images/{image}", "image", "200"),
    ("get", "/v1/stream", "stream", "200"),
    ("get", "/v1/openapi.json", "openapi", "200"),
    ("get", "/healthz", "healthz", "200"),
    ("get", "/readyz", "readyz", "200"),
    # GET /metrics is on the operator's listener (--metrics-listen), not in this API (issue 22)
    ("post", "/v1/me/password", "changePassword", "204"),
    ("post", "/v1/me/email", "changeEmail", "204"),
    ("post", "/v1/stream/tickets", "streamTicket", "201"),
    # issue 17: social features
    ("put", "/v1/posts/{post}/bookmark", "bookmark", "200"),
    ("delete", "/v1/posts/{post}/bookmark", "unbookmark", "200"),
    ("get", "/v1/me/bookmarks", "bookmarks", "200"),
    ("put", "/v1/me/blocks/{user}", "block", "200"),
    ("delete", "/v1/me/blocks/{user}", "unblock", "200"),
    ("get", "/v1/me/blocks", "blocked", "200"),
    ("get", "/v1/posts/nearby", "nearby", "200"),
    ("get", "/v1/me/suggestions", "suggestions", "200"),
    ("post", "/v1/me/contacts", "findContacts", "200"),
]
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def main():
    try:
        from jsonschema import Draft202012Validator
        from openapi_spec_validator import validate
    except ImportError as error:
        sys.exit(f"check-openapi: {error.name} is missing: run tools/install-deps --tests")

    file = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "schemas" / "openapi.json"
    problems = []
    try:
        text = file.read_text()
        document = json.loads(text)
    except (OSError, ValueError) as error:
        sys.exit(f"check-openapi: cannot read {file}: {error}")

    # 1. The validator from PyPI.
    try:
        validate(document)
    except Exception as error:  # the validator raises several types; all mean "invalid"
        problems.append(f"openapi-spec-validator: {str(error).splitlines()[0]}")

    # 2. The committed file is the generator's output.
    spec = importlib.util.spec_from_file_location("build_openapi", ROOT / "tools" / "build-openapi.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    if file.resolve() == build.OUTPUT.resolve() and text != build.render():
        problems.append(f"{file.relative_to(ROOT)} differs from the output of tools/build-openapi.py: "
                        "run tools/build-openapi.py and commit the result")

    # 3. Version, dialect and every schema in components.
    if document.get("openapi") != "3.1.0":
        problems.append(f"openapi is {document.get('openapi')!r}, not 3.1.0")
    if document.get("jsonSchemaDialect") != "https://json-schema.org/draft/2020-12/schema":
        problems.append("jsonSchemaDialect is not JSON Schema 2020-12")
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as error:
            problems.append(f"components/schemas/{name}: {str(error).splitlines()[0]}")

    # 4. Routes, operationIds, summaries, success statuses, documented errors.
    paths = document.get("paths", {})
    seen = set()
    for method, path, operation_id, status in EXPECTED:
        op = paths.get(path, {}).get(method)
        if op is None:
            problems.append(f"{method.upper()} {path} is missing")
            continue
        seen.add((method, path))
        if op.get("operationId") != operation_id:
            problems.append(f"{method.upper()} {path}: operationId {op.get('operationId')!r}, expected {operation_id}")
        if not op.get("summary"):
            problems.append(f"{method.upper()} {path}: no summary")
        responses = op.get("responses", {})
        if status not in responses:
            problems.append(f"{method.upper()} {path}: no {status} response")
        if "default" not in responses:
            problems.append(f"{method.upper()} {path}: no default (error) response")
        for code, response in responses.items():
            if code == "204" and "content" in response:
                problems.append(f"{method.upper()} {path}: a 204 response with content")
    for path, item in paths.items():
        for method in set(item) & METHODS:
            if (method, path) not in seen:
                problems.append(f"{method.upper()} {path} is not in SPEC's table nor in the routes added beyond it")
    operation_ids = [op.get("operationId") for item in paths.values() for method, op in item.items() if method in METHODS]
    duplicates = {name for name in operation_ids if operation_ids.count(name) > 1}
    if duplicates:
        problems.append(f"duplicate operationIds: {sorted(duplicates)}")

    for problem in problems:
        print(f"check-openapi: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"{file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}: valid OpenAPI 3.1, "
          f"{len(operation_ids)} operations, up to date with tools/build-openapi.py")


if __name__ == "__main__":
    main()
