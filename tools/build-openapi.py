#!/usr/bin/env python3
"""Assemble schemas/openapi.json (OpenAPI 3.1) from the route table below and the JSON Schemas in
schemas/ (results/*.schema.json, commands/*.schema.json, envelope.schema.json).

usage: build-openapi.py            write schemas/openapi.json
       build-openapi.py --check    exit 1 if schemas/openapi.json differs from what would be written
       build-openapi.py --stdout   print the document

The document is self-contained: every schema it uses is copied under components/schemas (its $id
and $schema dropped, its $refs rewritten to #/components/schemas/…), because the server serves
only this one file at /v1/openapi.json and relative $refs would be resolved against that URL.
The schema files stay the source: edit them (or the route table), then run this script.
"""
import copy
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
OUTPUT = SCHEMAS / "openapi.json"


def load(relative):
    return json.loads((SCHEMAS / relative).read_text())


# --- schemas ------------------------------------------------------------------------------------

def localise(schema, here):
    """A copy of `schema` (from the file `here`, relative to schemas/) with $id/$schema dropped and
    every $ref pointing into #/components/schemas."""
    def ref(target):
        path, _, fragment = target.partition("#")
        if not path:
            raise SystemExit(f"{here}: local $ref {target} is not supported by build-openapi.py")
        resolved = (pathlib.PurePosixPath(here).parent / path).as_posix()
        parts = []
        for part in resolved.split("/"):
            if part == "..":
                parts.pop()
            elif part != ".":
                parts.append(part)
        resolved = "/".join(parts)
        if resolved == "envelope.schema.json" and fragment == "/$defs/identifier":
            return "#/components/schemas/identifier"
        if resolved == "envelope.schema.json" and fragment == "/$defs/place":
            return "#/components/schemas/place"
        if resolved.startswith("results/") and resolved.endswith(".schema.json"):
            name = resolved[len("results/"):-len(".schema.json")]
            return f"#/components/schemas/{name}{fragment}"
        raise SystemExit(f"{here}: cannot place $ref {target} in the OpenAPI document")

    def walk(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key in ("$id", "$schema"):
                    continue
                out[key] = ref(value) if key == "$ref" else walk(value)
            return out
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    return walk(schema)


def result_schemas():
    out = {}
    for path in sorted((SCHEMAS / "results").glob("*.schema.json")):
        name = path.name[: -len(".schema.json")]
        out[name] = localise(json.loads(path.read_text()), f"results/{path.name}")
    # postDetail repeats post's fields (additionalProperties false forbids extending it by allOf,
    # and flat objects generate better clients): make sure the two never drift apart.
    post, detail = out["post"], out["postDetail"]
    for field, definition in post["properties"].items():
        if field != "likedByViewer" and detail["properties"].get(field) != definition:
            raise SystemExit(f"results/postDetail.schema.json: field {field} differs from results/post.schema.json")
    missing = set(post["required"]) - set(detail["required"])
    if missing:
        raise SystemExit(f"results/postDetail.schema.json: does not require {sorted(missing)} as post does")
    return out


def page_of(item, description):
    page = load("results/page.schema.json")
    return {
        "type": "object",
        "description": description,
        "additionalProperties": False,
        "required": page["required"],
        "properties": {
            "items": dict(page["properties"]["items"], items={"$ref": f"#/components/schemas/{item}"}),
            "next": {"$ref": "#/components/schemas/page/properties/next"},
        },
    }


HTTP_ONLY_FIELDS = {"command", "id", "as", "session"}


def request_body_schema(command, drop=(), description=None):
    """The JSON body of an HTTP command: the command's exec schema without the exec-only fields
    (command, id, as, session) and without the fields the path gives (`drop`)."""
    schema = load(f"commands/{command}.schema.json")
    dropped = HTTP_ONLY_FIELDS | set(drop)
    out = {
        "type": "object",
        "description": description or f"The body of {command} (schemas/commands/{command}.schema.json without the exec-only fields).",
        "additionalProperties": False,
        "properties": {k: localise(v, f"commands/{command}.schema.json") for k, v in schema["properties"].items() if k not in dropped},
    }
    required = [k for k in schema.get("required", []) if k not in dropped]
    if required:
        out["required"] = required
    return out


# Constraints of SPEC's invariants, added to the request bodies for client generators (the server
# checks them too; where SPEC counts bytes or characters, the description says so).
REQUEST_CONSTRAINTS = {
    "username": {"minLength": 1, "maxLength": 30, "description": "1–30 of [a-z0-9._] after lowercasing; unique case-insensitively."},
    "email": {"minLength": 3, "maxLength": 254, "description": "A well-formed address; stored lowercased; unique."},
    "password": {"maxLength": 1024, "description": "8–1024 bytes of UTF-8."},
    "currentPassword": {"maxLength": 1024},
    "newPassword": {"maxLength": 1024, "description": "8–1024 bytes of UTF-8."},
    "bio": {"maxLength": 150, "description": "At most 150 characters."},
    "url": {"maxLength": 2048, "description": "An http or https URL, at most 2048 characters."},
    "caption": {"maxLength": 2200, "description": "At most 2200 characters; its #hashtags (at most 30) are extracted."},
    "text": {"minLength": 1, "maxLength": 2200, "description": "1–2200 characters."},
    "reason": {"minLength": 1, "maxLength": 500, "description": "Why the post is reported: 1–500 characters."},
}


def constrained(schema):
    for field, extra in REQUEST_CONSTRAINTS.items():
        if field in schema["properties"]:
            schema["properties"][field] = {**schema["properties"][field], **extra}
    return schema


def components_schemas():
    identifier = load("envelope.schema.json")["$defs"]["identifier"]
    schemas = {
        "identifier": dict(identifier, description="An identifier of a user, post, comment or image: 1–64 of [A-Za-z0-9_-]. "
                                                    "Ids the server makes are 20-character time-sortable push ids."),
    }
    schemas["place"] = localise(load("envelope.schema.json")["$defs"]["place"], "envelope.schema.json")
    schemas.update(result_schemas())
    schemas["userPage"] = page_of("user", "A page of users.")
    schemas["postPage"] = page_of("post", "A page of posts, newest first.")
    schemas["commentPage"] = page_of("comment", "A page of comments, oldest first.")
    schemas["activityPage"] = page_of("activityItem", "A page of activity, newest first.")
    schemas["suggestionPage"] = page_of("suggestion", "A page of suggested users, the most followed by the bearer's follows first.")
    schemas["health"] = {
        "type": "object",
        "description": "The answer of /healthz and /readyz.",
        "required": ["status"],
        "properties": {"status": {"type": "string", "description": "ok, or why the server is not ready."}},
    }
    schemas["createUserRequest"] = constrained(request_body_schema("createUser", description="Sign up: createUser, then sign in."))
    schemas["signInRequest"] = constrained(request_body_schema("signIn"))
    schemas["updateProfileRequest"] = constrained(request_body_schema("updateProfile", description="The fields to change; the others stay as they are."))
    schemas["changePasswordRequest"] = constrained(request_body_schema("changePassword"))
    schemas["changeEmailRequest"] = constrained(request_body_schema("changeEmail"))
    schemas["eraseUserRequest"] = constrained(request_body_schema("eraseUser", drop=["user"]))
    schemas["addCommentRequest"] = constrained(request_body_schema("addComment", drop=["post"]))
    schemas["reportPostRequest"] = constrained(request_body_schema("reportPost", drop=["post"]))
    schemas["findContactsRequest"] = {
        "type": "object",
        "description": "The emails to look up (a contact list): neither stored nor logged.",
        "additionalProperties": False,
        "required": ["emails"],
        "properties": {
            "emails": {"type": "array", "maxItems": 500, "items": {"type": "string"},
                       "description": "At most 1000 emails (more is 400 invalid_argument); any case; one that is not a "
                                      "well-formed address simply matches nobody."},
        },
    }
    add_post = constrained(request_body_schema("addPost", description="addPost as JSON: the image's bytes in base64."))
    add_post["properties"]["image"] = {**add_post["properties"]["image"],
                                       "description": "The image file in base64: JPEG, PNG, GIF, HEIC or WebP (by content), at most 10 MiB."}
    schemas["addPostRequest"] = add_post
    schemas["addPostForm"] = {
        "type": "object",
        "description": "addPost as multipart/form-data (what FormData and iOS uploads send).",
        "additionalProperties": False,
        "required": ["image"],
        "properties": {
            "image": {"type": "string", "format": "binary", "contentMediaType": "application/octet-stream",
                      "description": "The image file: JPEG, PNG, GIF, HEIC or WebP (by content, not by name), at most 10 MiB."},
            "caption": dict(REQUEST_CONSTRAINTS["caption"], type="string"),
            "location": {"type": "string", "contentMediaType": "application/json",
                         "description": "Where the photo was taken: a JSON object {latitude, longitude, name?} as text "
                                        "(see the place schema)."},
        },
    }
    schemas["avatarForm"] = {
        "type": "object",
        "description": "A profile photo as multipart/form-data.",
        "additionalProperties": False,
        "required": ["image"],
        "properties": {
            "image": {"type": "string", "format": "binary", "contentMediaType": "application/octet-stream",
                      "description": "The image file: JPEG, PNG, GIF, HEIC or WebP (by content, not by name), at most 10 MiB."},
        },
    }
    return schemas


# --- routes -------------------------------------------------------------------------------------

ERRORS = {
    400: ("BadRequest", "invalid_argument: a malformed body, path or query parameter, an unknown field or query parameter (`field` names it)."),
    401: ("Unauthenticated", "unauthenticated (no, expired or unknown bearer token) or invalid_credentials."),
    403: ("Forbidden", "forbidden: the bearer may not do this."),
    404: ("NotFound", "not_found: no such user, post, comment or image (or it was deleted or removed by the operator, or reports hide the post from everyone but its author)."),
    409: ("Conflict", "username_taken, email_taken or conflict (`field` names the field)."),
    413: ("PayloadTooLarge", "payload_too_large: the body is over the limit (11 MiB; images at most 10 MiB)."),
    415: ("UnsupportedMediaType", "unsupported_media_type: a body that is not JSON (or multipart where accepted), or an image that is not JPEG, PNG, GIF, HEIC or WebP."),
    429: ("RateLimited", "rate_limited: too many attempts; try again after `Retry-After` seconds."),
    500: ("Internal", "internal: a bug or an unusable database."),
    503: ("Unavailable", "Not ready: the read models are catching up with the log."),
    507: ("StorageFull", "storage_full: the disk is full; nothing was written."),
}

PUBLIC, OPTIONAL, BEARER = "public", "optional", "bearer"
WRITE = (413, 415, 507)  # errors of a command with a body


def route(method, path, operation_id, summary, tag, auth, ok, *, errors=(), paged=False, body=None,
          params=(), description=None, extra_responses=None):
    return dict(method=method, path=path, operation_id=operation_id, summary=summary, tag=tag, auth=auth, ok=ok,
                errors=errors, paged=paged, body=body, params=params, description=description,
                extra_responses=extra_responses or {})


def json_response(description, schema, headers=None):
    out = {"description": description, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}
    if headers:
        out["headers"] = headers
    return out


LINK = {"Link": {"$ref": "#/components/headers/Link"}}
IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/heic", "image/webp"]

ROUTES = [
    # sessions and the bearer's account
    route("post", "/v1/users", "createUser", "Sign up: create a user and sign in.", "account", PUBLIC,
          (201, json_response("The new user and a session for them.", "session")),
          errors=(409, 429) + WRITE, body="createUserRequest"),
    route("post", "/v1/sessions", "signIn", "Sign in with email and password.", "account", PUBLIC,
          (201, json_response("A new session.", "session")),
          errors=(401, 429) + WRITE, body="signInRequest",
          description="Wrong credentials give 401 invalid_credentials; repeated failures are slowed down (429 with Retry-After)."),
    route("delete", "/v1/sessions/current", "signOut", "Sign out: end the bearer's session.", "account", BEARER,
          (204, None), errors=(401, 507)),
    route("get", "/v1/me", "me", "The bearer's own profile.", "account", BEARER, (200, json_response("The bearer's profile.", "user")),
          errors=(401,)),
    route("patch", "/v1/me", "updateProfile", "Change the bearer's username, bio, url, profile photo or discoverability.", "account", BEARER,
          (200, json_response("The updated profile.", "user")), errors=(401, 409) + WRITE, body="updateProfileRequest"),
    route("put", "/v1/me/avatar", "setAvatar", "Set the bearer's profile photo (stored as 320 px and 96 px squares).", "account", BEARER,
          (200, json_response("The updated profile.", "user")), errors=(401,) + WRITE, body="avatar",
          description="The body is the image itself (Content-Type image/*), or multipart/form-data with one part, `image`."),
    route("delete", "/v1/me/avatar", "removeAvatar", "Remove the bearer's profile photo.", "account", BEARER,
          (200, json_response("The updated profile.", "user")), errors=(401, 507)),
    route("delete", "/v1/me", "eraseUser", "Erase the bearer's account (crypto-shredding their personal data; needs the password).", "account", BEARER,
          (204, None), errors=(400, 401, 429, 507), body="eraseUserRequest",
          description="The JSON body gives the current password: a stolen session is not the account. A wrong one gives 401 invalid_credentials."),
    route("post", "/v1/me/password", "changePassword", "Change the bearer's password (ends every session, this one too).", "account", BEARER,
          (204, None), errors=(401, 429) + WRITE, body="changePasswordRequest",
          description="A wrong currentPassword gives 401 invalid_credentials."),
    route("post", "/v1/me/email", "changeEmail", "Change the bearer's email address (needs the password).", "account", BEARER,
          (204, None), errors=(401, 409, 429) + WRITE, body="changeEmailRequest",
          description="A wrong password gives 401 invalid_credentials; an address in use gives 409 email_taken."),
    # users
    route("get", "/v1/users", "searchUsers", "Users whose username starts with `prefix` (all users without it).", "users", OPTIONAL,
          (200, json_response("A page of users.", "userPage", LINK)), paged=True, params=("prefix",)),
    route("get", "/v1/users/{user}", "user", "One user's profile.", "users", OPTIONAL,
          (200, json_response("The profile (with followedByViewer when there is a bearer).", "user")), errors=(404,), params=("user",)),
    route("get", "/v1/users/{user}/posts", "posts", "A user's posts, newest first.", "users", OPTIONAL,
          (200, json_response("A page of posts.", "postPage", LINK)), errors=(404,), paged=True, params=("user",)),
    route("get", "/v1/users/{user}/followers", "followers", "Who follows a user.", "users", OPTIONAL,
          (200, json_response("A page of users.", "userPage", LINK)), errors=(404,), paged=True, params=("user",)),
    route("get", "/v1/users/{user}/following", "following", "Whom a user follows.", "users", OPTIONAL,
          (200, json_response("A page of users.", "userPage", LINK)), errors=(404,), paged=True, params=("user",)),
    route("put", "/v1/me/following/{user}", "follow", "Follow a user (idempotent).", "users", BEARER,
          (200, json_response("Whether anything changed (false if already following).", "changed")),
          errors=(401, 403, 404, 507), params=("user",),
          description="Following yourself gives 400 invalid_argument; a user who blocks you, or whom you block, 403 forbidden."),
    route("delete", "/v1/me/following/{user}", "unfollow", "Unfollow a user (idempotent).", "users", BEARER,
          (200, json_response("Whether anything changed (false if not following).", "changed")),
          errors=(401, 404, 507), params=("user",)),
    # posts
    route("post", "/v1/posts", "addPost", "Post a photo with an optional caption.", "posts", BEARER,
          (201, json_response("The new post.", "post", {"Location": {"$ref": "#/components/headers/Location"}})),
          errors=(401,) + WRITE, body="addPost"),
    route("get", "/v1/posts/nearby", "nearby", "Posts placed near a point, newest first.", "posts", OPTIONAL,
          (200, json_response("A page of posts.", "postPage", LINK)), paged=True, params=("latitude", "longitude", "radiusKm"),
          description="Every post whose place is within `radiusKm` (great-circle distance) of `latitude`, `longitude`, and no "
                      "other; posts of users the bearer blocks, or who block the bearer, are left out. An out-of-range "
                      "coordinate or radius is 400 invalid_argument naming it."),
    route("get", "/v1/posts/{post}", "post", "A post with its first page of comments.", "posts", OPTIONAL,
          (200, json_response("The post detail; likedByViewer only with a bearer.", "postDetail")),
          errors=(404,), paged=True, params=("post",),
          description="`limit` and `before` page through the post's comments (oldest first)."),
    route("delete", "/v1/posts/{post}", "deletePost", "Delete a post (its author only).", "posts", BEARER,
          (204, None), errors=(401, 403, 404, 507), params=("post",)),
    route("get", "/v1/posts/{post}/comments", "comments", "A post's comments, oldest first.", "comments", OPTIONAL,
          (200, json_response("A page of comments.", "commentPage", LINK)), errors=(404,), paged=True, params=("post",)),
    route("post", "/v1/posts/{post}/comments", "addComment", "Comment on a post.", "comments", BEARER,
          (201, json_response("The new comment.", "comment")), errors=(401, 403, 404) + WRITE, body="addCommentRequest", params=("post",),
          description="403 forbidden while the post's author blocks you or you block them."),
    route("delete", "/v1/comments/{comment}", "deleteComment", "Delete a comment (its author or the post's author).", "comments", BEARER,
          (204, None), errors=(401, 403, 404, 507), params=("comment",)),
    route("put", "/v1/posts/{post}/like", "like", "Like a post (idempotent).", "likes", BEARER,
          (200, json_response("Whether anything changed (false if already liked).", "changed")),
          errors=(401, 403, 404, 507), params=("post",),
          description="403 forbidden while the post's author blocks you or you block them."),
    route("delete", "/v1/posts/{post}/like", "unlike", "Take back a like (idempotent).", "likes", BEARER,
          (200, json_response("Whether anything changed (false if not liked).", "changed")),
          errors=(401, 404, 507), params=("post",)),
    route("get", "/v1/posts/{post}/likes", "likes", "Who liked a post, newest first.", "likes", OPTIONAL,
          (200, json_response("A page of users.", "userPage", LINK)), errors=(404,), paged=True, params=("post",)),
    route("put", "/v1/posts/{post}/bookmark", "bookmark", "Save a post to the bearer's bookmarks (idempotent).", "bookmarks", BEARER,
          (200, json_response("Whether anything changed (false if already bookmarked).", "changed")),
          errors=(401, 404, 507), params=("post",)),
    route("delete", "/v1/posts/{post}/bookmark", "unbookmark", "Take a post out of the bearer's bookmarks (idempotent).", "bookmarks", BEARER,
          (200, json_response("Whether anything changed (false if not bookmarked).", "changed")),
          errors=(401, 404, 507), params=("post",)),
    route("get", "/v1/me/bookmarks", "bookmarks", "The bearer's bookmarks, the latest saved first (private).", "bookmarks", BEARER,
          (200, json_response("A page of posts.", "postPage", LINK)), errors=(401,), paged=True),
    route("put", "/v1/me/blocks/{user}", "block", "Block a user (idempotent); ends the follows between you both ways.", "blocks", BEARER,
          (200, json_response("Whether anything changed (false if already blocked).", "changed")),
          errors=(401, 404, 507), params=("user",), description="Blocking yourself gives 400 invalid_argument. While a block stands "
          "neither user can follow the other or like or comment on the other's posts (403 forbidden), and neither appears in "
          "the other's search, lists or activity."),
    route("delete", "/v1/me/blocks/{user}", "unblock", "Lift a block (idempotent).", "blocks", BEARER,
          (200, json_response("Whether anything changed (false if not blocked).", "changed")),
          errors=(401, 404, 507), params=("user",)),
    route("get", "/v1/me/blocks", "blocked", "The users the bearer blocks, the latest block first (private).", "blocks", BEARER,
          (200, json_response("A page of users.", "userPage", LINK)), errors=(401,), paged=True),
    route("get", "/v1/me/suggestions", "suggestions", "People the bearer might follow, followed by people the bearer follows (private).",
          "users", BEARER, (200, json_response("A page of suggestions.", "suggestionPage", LINK)), errors=(401,), paged=True,
          description="Ranked by how many of the people the bearer follows follow each (most first, then by user id), without the "
          "bearer, those the bearer follows and anyone blocked either way. The work is bounded: the bearer's 200 most recent "
          "follows are sampled, and the 500 most recent follows of each. The cursor is `<count>:<user id>`."),
    route("post", "/v1/me/contacts", "findContacts", "The users among up to 1000 emails who let others find them by email (private).",
          "users", BEARER, (200, json_response("The users found, in the emails' order, each once.", "contacts")), errors=(401,),
          body="findContactsRequest",
          description="A query sent by POST so that the emails travel in the body (never in a URL or a log): it records nothing. "
          "Users who turned `discoverable` off, the bearer and anyone blocked either way are absent, exactly as an unknown "
          "email is."),
    route("post", "/v1/posts/{post}/reports", "reportPost", "Report a post to the moderators.", "posts", BEARER,
          (204, None), errors=(401, 404) + WRITE, body="reportPostRequest", params=("post",),
          description="One report per reporter and post: a repeat is accepted and changes nothing (the library and "
          "`timeline exec` answer `{changed: false}` for it)."),
    # feeds
    route("get", "/v1/timeline", "timeline", "The bearer's home timeline, newest first.", "feeds", BEARER,
          (200, json_response("A page of posts.", "postPage", LINK)), errors=(401,), paged=True),
    route("get", "/v1/hashtags/{tag}/posts", "hashtag", "Posts with a hashtag, newest first.", "feeds", OPTIONAL,
          (200, json_response("A page of posts (empty for an unknown tag).", "postPage", LINK)), paged=True, params=("tag",)),
    route("get", "/v1/activity", "activity", "What happened to the bearer: comments and likes on their posts, new followers.", "feeds", BEARER,
          (200, json_response("A page of activity, newest first.", "activityPage", LINK)), errors=(401,), paged=True),
    # images
    route("get", "/v1/images/{image}", "image", "An image's bytes.", "images", PUBLIC,
          (200, {
              "description": "The bytes, with their Content-Type. Immutable: cache forever, revalidate with If-None-Match.",
              "headers": {"ETag": {"$ref": "#/components/headers/ETag"}, "Cache-Control": {"$ref": "#/components/headers/Cache-Control"}},
              "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in IMAGE_TYPES},
          }),
          errors=(400, 404), params=("image", "variant", "If-None-Match"),
          description=("With `variant`, the image id may be any image of a post (its `image`): the answer is that post's photo "
                       "in the chosen size, and the ETag is the id of the image sent. An image without variants (a post's "
                       "from before the image pipeline, not yet reprocessed) answers itself for every variant; such an "
                       "answer (the id asked for, with `variant`) is sent with `Cache-Control: public, no-cache`, to be "
                       "revalidated, since reprocessing may give it variants later."),
          extra_responses={"304": {"description": "Not modified: the If-None-Match ETag is current.",
                                   "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}}}),
    # live updates
    route("post", "/v1/stream/tickets", "streamTicket", "A short-lived, single-use ticket for GET /v1/stream?ticket= (for EventSource).", "stream", BEARER,
          (201, json_response("The ticket.", "streamTicket")), errors=(401, 429)),
    route("get", "/v1/stream", "stream", "Live updates for the bearer (Server-Sent Events).", "stream", OPTIONAL,
          (200, {"description": "An endless text/event-stream.", "content": {"text/event-stream": {"schema": {"type": "string"}}}}),
          errors=(401, 429), params=("ticket", "Last-Event-ID"),
          description=(
              "Authenticate with the bearer header or, where headers cannot be sent (EventSource), with `?ticket=` from "
              "POST /v1/stream/tickets; without either the answer is 401. Events: `post` (a post entered the home timeline; "
              "data: a post), `activity` (a comment, like or follow concerning the bearer; data: an activityItem), `removed` "
              "(a post left the home timeline; data: {\"post\": id}). Each event's `id` is its log sequence number: reconnect "
              "with `Last-Event-ID` to get every later event exactly once. A comment line comes at least every 15 s.")),
    # operations
    route("get", "/v1/openapi.json", "openapi", "This document.", "operations", PUBLIC,
          (200, {"description": "The OpenAPI 3.1 document (schemas/openapi.json).",
                 "content": {"application/json": {"schema": {"type": "object"}}}})),
    route("get", "/healthz", "healthz", "Liveness: the process answers.", "operations", PUBLIC,
          (200, json_response("Alive.", "health"))),
    route("get", "/readyz", "readyz", "Readiness: the database is open and the read models are caught up.", "operations", PUBLIC,
          (200, json_response("Ready.", "health")),
          extra_responses={"503": json_response("Not ready yet (read models catching up).", "health")}),
]

PARAMETERS = {
    "limit": {"name": "limit", "in": "query", "required": False, "description": "Items per page: 1–100, default 20.",
              "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
    "before": {"name": "before", "in": "query", "required": False,
               "description": "The cursor: the previous page's `next` (exclusive).", "schema": {"type": "string", "minLength": 1}},
    "prefix": {"name": "prefix", "in": "query", "required": False,
               "description": "Only users whose username starts with it (case-insensitive).", "schema": {"type": "string"}},
    "user": {"name": "user", "in": "path", "required": True, "description": "A user id, or `@` and a username (case-insensitive).",
             "schema": {"type": "string", "pattern": "^(@.+|[A-Za-z0-9_-]{1,64})$"}},
    "post": {"name": "post", "in": "path", "required": True, "description": "A post id.", "schema": {"$ref": "#/components/schemas/identifier"}},
    "comment": {"name": "comment", "in": "path", "required": True, "description": "A comment id.",
                "schema": {"$ref": "#/components/schemas/identifier"}},
    "image": {"name": "image", "in": "path", "required": True, "description": "An image id (a post's `image`).",
              "schema": {"$ref": "#/components/schemas/identifier"}},
    "latitude": {"name": "latitude", "in": "query", "required": True, "description": "Degrees north of the search's centre.",
                 "schema": {"type": "number", "minimum": -90, "maximum": 90}},
    "longitude": {"name": "longitude", "in": "query", "required": True, "description": "Degrees east of the search's centre.",
                  "schema": {"type": "number", "minimum": -180, "maximum": 180}},
    "radiusKm": {"name": "radiusKm", "in": "query", "required": False,
                 "description": "The search's radius in kilometres: more than 0, at most 50, default 10.",
                 "schema": {"type": "number", "exclusiveMinimum": 0, "maximum": 50, "default": 10}},
    "variant": {"name": "variant", "in": "query", "required": False,
                "description": "Which size of a post's photo: `full` (long side ≤ 1080 px), `feed` (≤ 640 px) or `thumb` "
                               "(320 px square). Anything else is 400 invalid_argument.",
                "schema": {"enum": ["full", "feed", "thumb"]}},
    "tag": {"name": "tag", "in": "path", "required": True, "description": "A hashtag without `#` (any case).",
            "schema": {"type": "string", "minLength": 1}},
    "ticket": {"name": "ticket", "in": "query", "required": False,
               "description": "A stream ticket from POST /v1/stream/tickets, instead of the Authorization header.",
               "schema": {"type": "string", "minLength": 1}},
    "Last-Event-ID": {"name": "Last-Event-ID", "in": "header", "required": False,
                      "description": "Resume after this event id (a log sequence number).", "schema": {"type": "string"}},
    "If-None-Match": {"name": "If-None-Match", "in": "header", "required": False,
                      "description": "The ETag of a cached copy: 304 if it is current.", "schema": {"type": "string"}},
}


def operation(r):
    op = {"operationId": r["operation_id"], "summary": r["summary"], "tags": [r["tag"]]}
    if r["description"]:
        op["description"] = r["description"]
    if r["auth"] == BEARER:
        op["security"] = [{"bearer": []}]
    elif r["auth"] == OPTIONAL:
        op["security"] = [{}, {"bearer": []}]
    else:
        op["security"] = []
    params = [{"$ref": f"#/components/parameters/{name}"} for name in r["params"]]
    if r["paged"]:
        params += [{"$ref": "#/components/parameters/limit"}, {"$ref": "#/components/parameters/before"}]
    if params:
        op["parameters"] = params
    if r["body"] == "addPost":
        op["requestBody"] = {"required": True, "content": {
            "multipart/form-data": {"schema": {"$ref": "#/components/schemas/addPostForm"},
                                    "encoding": {"image": {"contentType": ", ".join(IMAGE_TYPES + ["application/octet-stream"])}}},
            "application/json": {"schema": {"$ref": "#/components/schemas/addPostRequest"}},
        }}
    elif r["body"] == "avatar":
        op["requestBody"] = {"required": True, "content": {
            "multipart/form-data": {"schema": {"$ref": "#/components/schemas/avatarForm"},
                                    "encoding": {"image": {"contentType": ", ".join(IMAGE_TYPES + ["application/octet-stream"])}}},
            **{t: {"schema": {"type": "string", "format": "binary"}} for t in IMAGE_TYPES + ["application/octet-stream"]},
        }}
    elif r["body"]:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{r['body']}"}}}}
    status, response = r["ok"]
    responses = {str(status): response if response else {"description": "Done."}}
    responses.update(r["extra_responses"])
    errors = set(r["errors"]) | {400, 500}
    if r["auth"] == OPTIONAL:
        errors.add(401)  # a bearer that is sent must be valid
    for code in sorted(errors):
        responses.setdefault(str(code), {"$ref": f"#/components/responses/{ERRORS[code][0]}"})
    responses["default"] = {"$ref": "#/components/responses/Error"}
    op["responses"] = responses
    return op


def document():
    paths = {}
    for r in ROUTES:
        paths.setdefault(r["path"], {})[r["method"]] = operation(r)
    responses = {}
    for code, (name, description) in sorted(ERRORS.items()):
        if code == 503:
            continue
        response = json_response(description, "error")
        if code == 429:
            response["headers"] = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}
        responses[name] = response
    responses["Error"] = json_response("Any other error, in the same shape.", "error")
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "Timeline HTTP API",
            "version": "1",
            "summary": "The photo-sharing backend's API for the apps: sign up, post photos, follow, like, comment, timelines, live updates.",
            "description": (
                "Served by `timeline serve` (this document at /v1/openapi.json). Bodies are UTF-8 application/json unless said "
                "otherwise; unknown fields, wrong types and unknown query parameters give 400 invalid_argument naming the field. "
                "A request acts as its bearer (`Authorization: Bearer <session>` from POST /v1/users or POST /v1/sessions) or "
                "anonymously. Lists are pages `{items, next}`: pass `next` as `before` for the next page (a page with a next "
                "also sends a `Link: <…>; rel=\"next\"` header). Errors are `{\"error\": {\"code\", \"message\", \"field\"?}}`; "
                "a known path with a wrong method gives 405 with `Allow`. Generated from schemas/results/*.schema.json and "
                "tools/build-openapi.py."),
            "license": {"name": "All rights reserved", "identifier": "LicenseRef-Proprietary"},
        },
        "servers": [
            {"url": "/", "description": "The server this document was fetched from."},
            {"url": "http://127.0.0.1:8080", "description": "tools/serve on this machine."},
        ],
        "tags": [
            {"name": "account", "description": "Sign-up, sessions and the bearer's own account."},
            {"name": "users", "description": "Profiles, search, followers and following."},
            {"name": "posts", "description": "Posting photos, post detail, deleting and reporting."},
            {"name": "comments", "description": "Comments on posts."},
            {"name": "likes", "description": "Likes of posts."},
            {"name": "bookmarks", "description": "Posts a user saved for later, visible only to them."},
            {"name": "blocks", "description": "Users a user blocks, visible only to them."},
            {"name": "feeds", "description": "Home timeline, hashtags and activity."},
            {"name": "images", "description": "Image bytes."},
            {"name": "stream", "description": "Live updates (Server-Sent Events)."},
            {"name": "operations", "description": "Health, readiness and this document (the Prometheus metrics are on the operator's own listener, `timeline serve --metrics-listen`)."},
        ],
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "A session token from POST /v1/users or POST /v1/sessions."}},
            "parameters": PARAMETERS,
            "headers": {
                "Link": {"description": "`<…?before=…&limit=…>; rel=\"next\"` when there is a next page.", "schema": {"type": "string"}},
                "Location": {"description": "The URL of the new resource.", "required": True, "schema": {"type": "string", "format": "uri-reference"}},
                "ETag": {"description": "The image's entity tag (it never changes).", "schema": {"type": "string"}},
                "Cache-Control": {"description": "public, max-age=31536000, immutable", "schema": {"type": "string"}},
                "Retry-After": {"description": "Seconds to wait before trying again.", "schema": {"type": "integer", "minimum": 0}},
            },
            "responses": responses,
            "schemas": components_schemas(),
        },
    }


def render():
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"


def main():
    text = render()
    if "--stdout" in sys.argv[1:]:
        sys.stdout.write(text)
    elif "--check" in sys.argv[1:]:
        current = OUTPUT.read_text() if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is not what tools/build-openapi.py generates: run tools/build-openapi.py and commit",
                  file=sys.stderr)
            sys.exit(1)
    else:
        OUTPUT.write_text(text)
        print(f"wrote {OUTPUT.relative_to(ROOT)} ({len(ROUTES)} operations)")


if __name__ == "__main__":
    main()
