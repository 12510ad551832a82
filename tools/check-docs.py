#!/usr/bin/env python3
"""Counts the public declarations of the libraries (Timeline with the TimelineDomain types it
re-exports, TimelineCluster and TimelineImport) that have no doc comment, from the symbol graphs
tools/build-docs dumped, and fails if there are more than the ceiling below (none today).
`--list` names them."""
import glob, json, os, sys

CEILING = int(os.environ.get("TIMELINE_UNDOCUMENTED_CEILING", "0"))
root = os.path.join(os.path.dirname(__file__), "..", ".build")
missing = []
if not glob.glob(os.path.join(root, "*", "symbolgraph", "TimelineCluster.symbols.json")):
    sys.exit("no symbol graph of TimelineCluster: run tools/build-docs first")
for module in ["Timeline", "TimelineDomain", "TimelineCluster", "TimelineImport"]:
    graphs = os.path.join(root, "*", "symbolgraph")
    for path in glob.glob(os.path.join(graphs, f"{module}.symbols.json")) + glob.glob(os.path.join(graphs, f"{module}@*.symbols.json")):
        for symbol in json.load(open(path))["symbols"]:
            if symbol["accessLevel"] in ("public", "open") and not symbol.get("docComment"):
                missing.append(f'{module}: {symbol["kind"]["identifier"]} {".".join(symbol["pathComponents"])}')
if "--list" in sys.argv:
    print("\n".join(missing))
print(f"{len(missing)} public declarations without a doc comment (ceiling {CEILING})")
sys.exit(1 if len(missing) > CEILING else 0)
