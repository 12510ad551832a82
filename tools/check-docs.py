#!/usr/bin/env python3
"""Fails if any `public`, `open` or `package` declaration under Sources/ has no doc comment, and
prints each one as `file:line: kind name`.

It reads the Swift sources rather than the symbol graphs tools/build-docs dumps: a symbol graph
lends a protocol requirement's doc comment to the declarations that implement it (a
`description`, a `read(_:)`), leaves `package` declarations out, and covers only the modules it
was dumped for, so it missed declarations that have no comment of their own.

Counted: every declaration (func, init, var, let, subscript, typealias, associatedtype, struct,
class, enum, protocol, actor) written `public`, `open` or `package`, whatever attributes and
modifiers stand around the keyword and however many lines it spans; the members of a `public` or
`package` extension and the requirements of a `public` or `package` protocol that say no access
level of their own; the cases of a `public` or `package` enum. Declarations inside function
bodies are not. A declaration is documented when a `///` or `/** */` comment stands right
before it (before its attributes); a second declaration on the same line (after `;` or `{`) has
none of its own. Extensions themselves are not counted: DocC documents their members.

`--skipped` also lists the undocumented declarations in SKIPPED files (they do not fail)."""
import fnmatch, os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Files whose undocumented declarations are reported with --skipped but do not fail the check
# (for a rewrite under way elsewhere; none now).
SKIPPED: list[str] = []

DECLARATIONS = {"func", "init", "var", "let", "subscript", "typealias", "associatedtype", "case",
                "struct", "class", "enum", "protocol", "actor", "extension"}
TYPES = {"struct", "class", "enum", "protocol", "actor", "extension"}
MODIFIERS = {"public", "open", "package", "internal", "fileprivate", "private", "static", "class",
             "final", "override", "convenience", "required", "mutating", "nonmutating", "indirect",
             "lazy", "weak", "unowned", "dynamic", "nonisolated", "optional", "distributed",
             "isolated", "consuming", "borrowing", "prefix", "postfix", "infix"}
PUBLIC = {"public", "open", "package"}
NOT_PUBLIC = {"internal", "fileprivate", "private"}


def tokens(text):
    """Swift tokens as (kind, value, line): kind is "doc" for a doc comment, "nl" for a line
    break, "directive" for an #if/#else/#endif line, "attr" for an attribute with its
    arguments, "word" or "punct". String literals and ordinary comments are dropped."""
    out, i, line, n = [], 0, 1, len(text)
    # Each open string interpolation: the parenthesis depth at which it closes, and the string
    # (delimiter, raw hashes) to go back to.
    resume = []
    paren = 0

    def string(i, line, quote, hashes):
        """Skips a string body from i; returns (i, line, interpolation) where interpolation is
        true when it stopped at `\\(`."""
        close = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        while i < n:
            if text.startswith(escape, i):
                j = i + len(escape)
                if j < n and text[j] == "(":
                    return j + 1, line, True
                i = j + 1
                continue
            if text.startswith(close, i):
                return i + len(close), line, False
            if text[i] == "\n":
                line += 1
            i += 1
        return i, line, False

    while i < n:
        c = text[i]
        if c == "\n":
            out.append(("nl", "\n", line))
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if text.startswith("///", i) and not text.startswith("////", i):
                out.append(("doc", text[i:end], line))
            i = end
        elif text.startswith("/*", i):
            doc = text.startswith("/**", i) and not text.startswith("/**/", i)
            start, depth, i = line, 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
            if doc:
                out.append(("doc", "/**", start))
        elif c == "#" and re.compile(r"#(if|elseif|else|endif)\b").match(text, i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(("directive", text[i:end], line))
            i = end
        elif c == '"' or (c == "#" and re.compile(r'#+"').match(text, i)):
            hashes = len(re.compile(r"#*").match(text, i).group())
            i += hashes
            quote = '"""' if text.startswith('"""', i) else '"'
            i, line, interpolation = string(i + len(quote), line, quote, hashes)
            if interpolation:
                resume.append((paren, quote, hashes))
                paren += 1
            out.append(("word", "<string>", line))
        elif c == "@":
            m = re.compile(r"@[A-Za-z_][A-Za-z0-9_.]*").match(text, i)
            if not m:
                i += 1
                continue
            value, i = m.group(), m.end()
            if i < n and text[i] == "(":  # arguments: skip to the matching parenthesis
                depth = 0
                while i < n:
                    if text[i] == '"':
                        i, line, _ = string(i + 1, line, '"', 0)
                        continue
                    depth += {"(": 1, ")": -1}.get(text[i], 0)
                    line += text[i] == "\n"
                    i += 1
                    if depth == 0:
                        break
            out.append(("attr", value, line))
        elif c.isalpha() or c == "_" or c == "`" or c == "$":
            m = re.compile(r"`[^`\n]*`|[\w$]+").match(text, i) or re.compile(".").match(text, i)
            value, i = m.group(), m.end()
            if value in NOT_PUBLIC | PUBLIC and re.compile(r"\(\s*set\s*\)").match(text, i):
                value += "(set)"  # private(set): a setter's access, not the declaration's
                i = re.compile(r"\(\s*set\s*\)").match(text, i).end()
            out.append(("word", value, line))
        elif c.isdigit():
            m = re.compile(r"[0-9][0-9A-Za-z_.]*").match(text, i)
            out.append(("word", m.group(), line))
            i = m.end()
        else:
            if c == "(":
                paren += 1
            elif c == ")":
                paren -= 1
                if resume and resume[-1][0] == paren:  # the end of an interpolation
                    _, quote, hashes = resume.pop()
                    i, line, interpolation = string(i + 1, line, quote, hashes)
                    if interpolation:
                        resume.append((paren, quote, hashes))
                        paren += 1
                    continue
            out.append(("punct", c, line))
            i += 1
    return out


def declarations(text):
    """Yields (line, kind, name, counted, documented) for each declaration outside function
    bodies."""
    toks = tokens(text)
    # A scope: (kind, public) for a type, protocol or extension body, None for any other brace.
    scopes = [("file", False)]
    depth = 0  # parentheses and brackets within the current scope
    pending = None  # the type declaration whose body the next `{` opens: (kind, public)
    for k, (kind, value, line) in enumerate(toks):
        if kind == "punct":
            if value in "([":
                depth += 1
            elif value in ")]":
                depth -= 1
            elif value == "{":
                scopes.append(pending if depth == 0 else None)
                pending, depth = None, 0
            elif value == "}" and len(scopes) > 1:
                scopes.pop()
                depth = 0
            continue
        scope = scopes[-1]
        if scope is None or depth or kind != "word" or value not in DECLARATIONS:
            continue
        # Walk back over the modifiers and attributes to where the declaration starts.
        j, modifiers, broke = k - 1, [], False
        while j >= 0:
            t = toks[j]
            if t[0] == "nl":
                broke = True
            elif t[0] == "attr" or (t[0] == "word" and t[1].split("(")[0] in MODIFIERS):
                modifiers.append(t[1])
            else:
                break
            j -= 1
        before = toks[j] if j >= 0 else ("punct", "{", 0)
        if not (broke or before[0] in ("doc", "directive") or before[1] in "{};"):
            continue  # `class` as a constraint, `actor` or `case` as a name, `.init`
        if value == "class" and k + 1 < len(toks) and toks[k + 1][1] in DECLARATIONS | MODIFIERS:
            continue  # `class func`: the `func` that follows is the declaration
        explicit = {m for m in modifiers if m in PUBLIC | NOT_PUBLIC}
        scope_kind, scope_public = scope
        if explicit:
            public = bool(explicit & PUBLIC)
        elif value == "case":
            public = scope_kind == "enum" and scope_public
        else:
            public = scope_kind in ("extension", "protocol") and scope_public
        if value in TYPES:
            pending = (value, public)
        if value == "case" and scope_kind != "enum":
            continue
        name = next((t[1] for t in toks[k + 1:k + 3] if t[0] == "word"), "")
        counted = public and value != "extension"
        yield line, value, name, counted, before[0] == "doc"


def main():
    failing, skipped, total = [], [], 0
    sources = os.path.join(ROOT, "Sources")
    for directory, _, files in sorted(os.walk(sources)):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.relpath(os.path.join(directory, file), ROOT)
            skip = any(fnmatch.fnmatch(path, pattern) for pattern in SKIPPED)
            for line, kind, name, counted, documented in declarations(open(os.path.join(ROOT, path)).read()):
                if not counted:
                    continue
                total += 1
                if not documented:
                    (skipped if skip else failing).append(f"{path}:{line}: {kind} {name}")
    listed = failing + (["skipped:"] + skipped if "--skipped" in sys.argv and skipped else [])
    if listed:
        print("\n".join(listed))
    print(f"{len(failing)} of {total} public and package declarations have no doc comment"
          f" ({len(skipped)} more in skipped files)")
    sys.exit(1 if failing else 0)


if __name__ == "__main__":
    main()
