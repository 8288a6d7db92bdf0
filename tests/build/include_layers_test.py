#!/usr/bin/env python3
"""Fails when a folder includes a folder above it, so that no import cycle comes back.

Each tree in LAYERS lists its sub-folders from the bottom up. A file may include
headers of its own sub-folder and of those below it; files directly in the tree's
root (worker/main.cc) sit above every sub-folder. A sub-folder missing from the
list fails too: a new folder takes its place in the order when it is made.

Before checking the sources, the checker runs on a small made-up tree with one
upward include and one unlisted folder, and must report both.

usage: include_layers_test.py SOURCE_DIR
"""

import pathlib
import re
import sys
import tempfile

# Tree -> its sub-folders, bottom first.
LAYERS = {
    # reaper/ is a program of its own (and the process tree the worker shares
    # with it); base/ holds what tools and agents both run on: processes, the
    # cancel token, secrets and child environments; process/ turns the
    # flags into a running worker for main.cc.
    "worker": ["reaper", "base", "tools", "agents", "session", "process"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_SUFFIXES = {".h", ".cc"}


def layer_of(relative_parts, layers):
    """The layer index of a path inside the tree: its first folder's, or the top for a
    file in the tree's root; None for a folder missing from `layers`."""
    if len(relative_parts) == 1:
        return len(layers)
    folder = relative_parts[0]
    return layers.index(folder) if folder in layers else None


def check_tree(source_dir, tree, layers):
    """Every upward include and unlisted folder under SOURCE_DIR/TREE, one message each."""
    root = pathlib.Path(source_dir) / tree
    problems = []
    unlisted = set()
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        parts = path.relative_to(root).parts
        own = layer_of(parts, layers)
        if own is None:
            unlisted.add(parts[0])
            continue
        name = f"{tree}/{'/'.join(parts)}"
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or not match.group(1).startswith(f"{tree}/"):
                continue
            included = match.group(1).split("/")[1:]
            target = layer_of(included, layers)
            if target is None:
                unlisted.add(included[0])
            elif target > own:
                below = ", ".join(f"{layer}/" for layer in layers[:own]) or "nothing"
                problems.append(
                    f"{name}:{number} includes {match.group(1)}, a layer above it: "
                    f"{tree}/{parts[0]}/ may include only its own folder and {below} "
                    f"(order: {' <- '.join(layers)} <- {tree}/*.cc)")
    for folder in sorted(unlisted):
        problems.append(
            f"{tree}/{folder}/ has no place in the layer order of {tree}/: add it to LAYERS "
            f"in {pathlib.Path(__file__).name}, above the folders it includes")
    return problems


def self_test():
    """The checker must see an upward include and an unlisted folder."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = pathlib.Path(scratch) / "demo"
        files = {
            "low/a.h": '#include "demo/high/b.h"\n',
            "high/b.h": '#include "demo/low/c.h"\n',
            "low/c.h": "",
            "stray/d.h": "",
            "main.cc": '#include "demo/high/b.h"\n',
        }
        for relative, text in files.items():
            (tree / relative).parent.mkdir(parents=True, exist_ok=True)
            (tree / relative).write_text(text)
        problems = check_tree(scratch, "demo", ["low", "high"])
    expected = ["demo/low/a.h:1 includes demo/high/b.h", "demo/stray/ has no place"]
    missing = [e for e in expected if not any(p.startswith(e) for p in problems)]
    if missing or len(problems) != len(expected):
        sys.exit("FAIL: the checker itself: expected " + repr(expected) + ", got " +
                 repr(problems))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    self_test()
    problems = []
    for tree, layers in LAYERS.items():
        problems += check_tree(sys.argv[1], tree, layers)
    if problems:
        print("\n".join(f"FAIL: {problem}" for problem in problems), file=sys.stderr)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
