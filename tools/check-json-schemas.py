#!/usr/bin/env python3
"""Validate Timeline JSON against schemas/ with the real `jsonschema` validator.

usage: check-json-schemas.py events FILE.jsonl   (audit/export lines: envelope + payload)
       check-json-schemas.py commands FILE.jsonl (timeline exec command lines)
       check-json-schemas.py result NAME FILE.jsonl
                                 (results against schemas/results/NAME.schema.json: each line is a
                                 result, or a `timeline exec` output line whose `result` is checked;
                                 a failed line is checked against results/error.schema.json)
Prints the first problems and exits 1 if any line is invalid; prints a count and exits 0 otherwise.
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parent.parent / "schemas"


def load_registry():
    schemas = {}
    for path in ROOT.rglob("*.schema.json"):
        schema = json.loads(path.read_text())
        Draft202012Validator.check_schema(schema)
        schemas[path.relative_to(ROOT).as_posix()] = schema
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values()
    )
    return schemas, registry


def main():
    kind, file = sys.argv[1], sys.argv[-1]
    result_name = sys.argv[2] if kind == "result" and len(sys.argv) == 4 else None
    if kind == "result" and result_name is None:
        sys.exit("usage: check-json-schemas.py result NAME FILE.jsonl")
    schemas, registry = load_registry()

    def validator(name):
        return Draft202012Validator(schemas[name], registry=registry)

    errors, count = [], 0
    for number, line in enumerate(pathlib.Path(file).read_text().splitlines(), 1):
        if not line.strip():
            continue
        count += 1
        document = json.loads(line)
        checks = []
        if kind == "events":
            checks.append(("envelope.schema.json", document))
            name = f"events/{document.get('type')}.v{document.get('schemaVersion')}.schema.json"
            checks.append((name, document.get("payload")))
        elif kind == "result":
            if isinstance(document, dict) and document.get("ok") is False and "error" in document:
                checks.append(("results/error.schema.json", {"error": document["error"]}))
            elif isinstance(document, dict) and document.get("ok") is True and "result" in document:
                checks.append((f"results/{result_name}.schema.json", document["result"]))
            else:
                checks.append((f"results/{result_name}.schema.json", document))
        else:
            checks.append((f"commands/{document.get('command')}.schema.json", document))
        for name, instance in checks:
            if name not in schemas:
                errors.append(f"line {number}: no schema {name}")
                continue
            for error in validator(name).iter_errors(instance):
                errors.append(f"line {number} ({name}): {error.message}")
    for error in errors[:20]:
        print(error)
    if errors:
        print(f"{len(errors)} schema errors in {count} documents")
        sys.exit(1)
    print(f"{count} {kind} valid against schemas/")


if __name__ == "__main__":
    main()
