#!/usr/bin/env python3
"""Fails when a folder includes a folder above it, so that no import cycle comes back.

Each tree in LAYERS lists its floors from the bottom up: a floor is one sub-folder, or a
tuple of sub-folders that stand side by side and so may not include each other. A file
may include headers of its own sub-folder and of the floors below it; files directly in
the tree's root (worker/main.cc, scheduler/engine/engine.h) sit above every floor. A
sub-folder missing from the list fails too: a new folder takes its place in the order
when it is made. A listed folder that does not exist (yet) is no error.

TEST_TREES checks a test folder against the layers of the tree it tests: a test in
tests/unit/engine/state/ may include scheduler/engine/state/ and what lies below it, no
more. A test named *_engine_test.cc drives the whole Engine, so it sits at the top, as do
the shared helpers in the test tree's root.

Before checking the sources, the checker runs on a small made-up tree with one
upward include, one include across a floor and one unlisted folder, and must report them.

usage: include_layers_test.py SOURCE_DIR
"""

import pathlib
import re
import sys
import tempfile

# Tree -> its floors, bottom first (docs/design.md#the-engine for scheduler/engine).
LAYERS = {
    # reaper/ is a program of its own (and the process tree the worker shares
    # with it); base/ holds what tools and agents both run on: processes, the
    # cancel token, secrets and child environments; process/ turns the
    # flags into a running worker for main.cc.
    "worker": ["reaper", "base", "tools", "agents", "session", "process"],
    # core/ (the loop's batch, timers, commit pipeline, ids, metrics) and state/ (a run's
    # records and the rules of its tasks) need no other engine folder; drivers/ advance a
    # run's state; runs/ own the active runs and start their drivers; workers/ lease
    # tasks of runs to workers, approvals/ decide waiting tasks (plan_approval.h is a
    # driver's); tool_calls/, llm/ and run_storage/ answer what a leased task asks for;
    # traces/ makes the spans of runs from their committed events.
    # schedules/ starts runs through runs/ on a timetable, triggers/ when an event
    # arrives (docs/schedules.md).
    "scheduler/engine": [("core", "state"), "drivers", "runs",
                         ("workers", "approvals", "schedules", "triggers"),
                         ("tool_calls", "llm", "traces", "run_storage")],
}

# Test tree -> the tree whose layers its sub-folders follow.
TEST_TREES = {"tests/unit/engine": "scheduler/engine"}
# A test that drives the whole tree (its root's files) sits at the top of the test tree.
TOP_TESTS_SUFFIX = "_engine_test.cc"

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_SUFFIXES = {".h", ".cc"}


def floor_names(floor):
    """The folders of one floor."""
    return floor if isinstance(floor, tuple) else (floor,)


def layer_of(relative_parts, layers):
    """The floor index of a path inside the tree: its first folder's, or the top for a
    file in the tree's root; None for a folder missing from `layers`."""
    if len(relative_parts) == 1:
        return len(layers)
    folder = relative_parts[0]
    for index, floor in enumerate(layers):
        if folder in floor_names(floor):
            return index
    return None


def order_text(layers):
    """The floors bottom first, as "low/ <- high/+side/"."""
    return " <- ".join("+".join(f"{folder}/" for folder in floor_names(floor))
                       for floor in layers)


def check_tree(source_dir, tree, layers, includes_of=None):
    """Every upward include and unlisted folder under SOURCE_DIR/TREE, one message each.
    `includes_of` is the tree whose headers and layers count (a test tree's code tree);
    by default `tree` itself."""
    code_tree = includes_of or tree
    root = pathlib.Path(source_dir) / tree
    problems = []
    unlisted = set()
    if not root.is_dir():
        return problems
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        parts = path.relative_to(root).parts
        own = layer_of(parts, layers)
        if own is None:
            unlisted.add(parts[0])
            continue
        if includes_of and path.name.endswith(TOP_TESTS_SUFFIX):
            own = len(layers)
        name = f"{tree}/{'/'.join(parts)}"
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or not match.group(1).startswith(f"{code_tree}/"):
                continue
            included = match.group(1)[len(code_tree) + 1:].split("/")
            target = layer_of(included, layers)
            if target is None:
                unlisted.add(included[0])
            elif target > own or (target == own and own < len(layers) and
                                  included[0] != parts[0]):
                below = ", ".join(f"{code_tree}/{folder}/" for floor in layers[:own]
                                  for folder in floor_names(floor)) or "nothing"
                problems.append(
                    f"{name}:{number} includes {match.group(1)}, a folder on its floor or "
                    f"above: {tree}/{parts[0]}/ may include only its own folder and {below} "
                    f"(order: {order_text(layers)} <- {code_tree}/*)")
    for folder in sorted(unlisted):
        problems.append(
            f"{tree}/{folder}/ has no place in the layer order of {code_tree}/: add it to "
            f"LAYERS in {pathlib.Path(__file__).name}, above the folders it includes")
    return problems


def self_test():
    """The checker must see an upward include, an include across a floor and an unlisted
    folder, in code and in tests."""
    with tempfile.TemporaryDirectory() as scratch:
        files = {
            "demo/low/a.h": '#include "demo/high/b.h"\n',
            "demo/high/b.h": '#include "demo/low/c.h"\n',
            "demo/low/c.h": "",
            "demo/side/e.h": "",
            "demo/high/f.h": '#include "demo/side/e.h"\n',
            "demo/stray/d.h": "",
            "demo/main.cc": '#include "demo/high/b.h"\n',
            "tests/demo/low/a_test.cc": '#include "demo/main.h"\n',
            "tests/demo/low/b_engine_test.cc": '#include "demo/main.h"\n',
            "tests/demo/high/c_test.cc": '#include "demo/low/c.h"\n',
        }
        for relative, text in files.items():
            path = pathlib.Path(scratch) / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        layers = ["low", ("high", "side")]
        problems = (check_tree(scratch, "demo", layers) +
                    check_tree(scratch, "tests/demo", layers, includes_of="demo") +
                    check_tree(scratch, "missing", layers))
    expected = ["demo/low/a.h:1 includes demo/high/b.h", "demo/high/f.h:1 includes demo/side/e.h",
                "demo/stray/ has no place", "tests/demo/low/a_test.cc:1 includes demo/main.h"]
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
    for tests, tree in TEST_TREES.items():
        problems += check_tree(sys.argv[1], tests, LAYERS[tree], includes_of=tree)
    if problems:
        print("\n".join(f"FAIL: {problem}" for problem in problems), file=sys.stderr)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
