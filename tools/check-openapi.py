#!/usr/bin/env python3
"""Check an OpenAPI document: valid OpenAPI 3.1 (by `openapi-spec-validator` from PyPI), every
embedded schema valid JSON Schema 2020-12 (by `jsonschema`), every operation with a summary and a
default (error) answer, no 204 with a body, no operationId twice. The document is generated from the
server's route table (`timeline openapi`); whether it says what the table says is tested in Swift
(OpenAPIConformanceTests).

usage: check-openapi.py FILE      (e.g. the output of `timeline openapi`)
Prints what is wrong and exits 1; prints a one-line summary and exits 0 otherwise.
"""
import json
import pathlib
import sys

METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def main():
    try:
        from jsonschema import Draft202012Validator
        from openapi_spec_validator import validate
    except ImportError as error:
        sys.exit(f"check-openapi: {error.name} is missing: run tools/install-deps --tests")

    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    file = pathlib.Path(sys.argv[1])
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

    # 2. Version, dialect and every schema in components.
    if document.get("openapi") != "3.1.0":
        problems.append(f"openapi is {document.get('openapi')!r}, not 3.1.0")
    if document.get("jsonSchemaDialect") != "https://json-schema.org/draft/2020-12/schema":
        problems.append("jsonSchemaDialect is not JSON Schema 2020-12")
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as error:
            problems.append(f"components/schemas/{name}: {str(error).splitlines()[0]}")

    # 3. Every operation: a summary, a default answer, no 204 with a body.
    for path, item in document.get("paths", {}).items():
        for method in set(item) & METHODS:
            op = item[method]
            if not op.get("summary"):
                problems.append(f"{method.upper()} {path}: no summary")
            responses = op.get("responses", {})
            if "default" not in responses:
                problems.append(f"{method.upper()} {path}: no default (error) response")
            for code, response in responses.items():
                if code == "204" and "content" in response:
                    problems.append(f"{method.upper()} {path}: a 204 response with content")
    paths = document.get("paths", {})
    operation_ids = [op.get("operationId") for item in paths.values() for method, op in item.items() if method in METHODS]
    duplicates = {name for name in operation_ids if operation_ids.count(name) > 1}
    if duplicates:
        problems.append(f"duplicate operationIds: {sorted(duplicates)}")

    for problem in problems:
        print(f"check-openapi: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"{file}: valid OpenAPI 3.1, {len(operation_ids)} operations")


if __name__ == "__main__":
    main()
