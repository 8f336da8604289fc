#!/usr/bin/python3
"""The layering check for includes (docs/dev/architecture.md): a file of a layer may
include only its own layer's headers and those of the layers it names in DEPENDS
(configs/cmake/layers.cmake), transitively. The link check catches calls that run up the
tree; this catches header-only includes, which the linker never sees. Exits 1 naming each
include that crosses a layer upward."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))


def layers():
    """{layer: (folder, {direct dependencies that are layers})} from each ssim_layer()."""
    found = {}
    for base in ("lib", "launchers"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, base)):
            if "CMakeLists.txt" not in files:
                continue
            text = open(os.path.join(dirpath, "CMakeLists.txt")).read()
            for m in re.finditer(r"ssim_layer\((\w+)(.*?)\)\s*$", text, re.S | re.M):
                deps = re.search(r"DEPENDS(.*)", m.group(2), re.S)
                found[m.group(1)] = (os.path.relpath(dirpath, ROOT),
                                     set(re.findall(r"\b(ssim_\w+)", deps.group(1))) if deps else set())
    # The data client stands apart: a library of its own, used by the orchestrator.
    found.setdefault("ssim_client", ("lib/client", set()))
    return found


def closure(name, table, seen=None):
    seen = set() if seen is None else seen
    for d in table.get(name, ("", set()))[1]:
        if d not in seen:
            seen.add(d)
            closure(d, table, seen)
    return seen


def main():
    table = layers()
    folders = sorted(((f, n) for n, (f, _) in table.items()), key=lambda x: -len(x[0]))

    def layer_of(path):
        for folder, name in folders:
            if path == folder or path.startswith(folder + "/"):
                return name
        return None

    bad = []
    for base in ("lib", "launchers"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, base)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".h")) or f.endswith("_test.cpp"):
                    continue  # tests beside the code may use anything below the top
                path = os.path.relpath(os.path.join(dirpath, f), ROOT)
                mine = layer_of(path)
                if not mine:
                    continue
                allowed = closure(mine, table) | {mine}
                for n, line in enumerate(open(os.path.join(ROOT, path), errors="replace"), 1):
                    m = re.match(r'\s*#\s*include\s+"((?:lib|launchers|apps)/[^"]+)"', line)
                    if not m:
                        continue
                    target = m.group(1)
                    theirs = layer_of(target) if not target.startswith("apps/") else "apps"
                    if theirs and theirs not in allowed:
                        bad.append(f"{path}:{n}: includes {target} ({theirs}), which {mine} does not depend on")
    for b in bad:
        print(b)
    print(f"layering: {len(bad)} include(s) crossing a layer upward" if bad else "layering: every include follows the layers")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
