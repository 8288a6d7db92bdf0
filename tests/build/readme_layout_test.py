#!/usr/bin/env python3
"""Fails when the README's Layout section leaves out a folder of the repository.

Every top-level folder must appear as "NAME/" in the Layout block, and every folder one
level below it as "TOP/SUB/" or, on a line about TOP/, as "SUB/". Folders are those holding
files git tracks (untracked build output and node_modules do not count); without git, every
folder but hidden ones, build*/ and node_modules/.

Before checking the README, the checker runs on a made-up layout with one folder missing
and must report it.

usage: readme_layout_test.py SOURCE_DIR
"""

import pathlib
import re
import subprocess
import sys

# Folders named for what they hold in a line of their own: not a layer of code.
IGNORED = {".git", ".github", "node_modules"}


def tracked_folders(source_dir):
    """(top, sub) folder pairs holding tracked files; sub may be None."""
    try:
        files = subprocess.run(["git", "-C", str(source_dir), "ls-files"], check=True,
                               capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        root = pathlib.Path(source_dir)
        files = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                 and not any(part.startswith("build") or part == "node_modules" or
                             (part.startswith(".") and part != ".ci")
                             for part in p.relative_to(root).parts[:-1])]
    folders = set()
    for name in files:
        parts = name.split("/")[:-1]
        if not parts or parts[0] in IGNORED:
            continue
        folders.add((parts[0], None))
        if len(parts) > 1 and parts[1] not in IGNORED:
            folders.add((parts[0], parts[1]))
    return folders


def layout_block(readme_text):
    """The fenced block under '## Layout', as lines."""
    match = re.search(r"^## Layout\n(?:(?!^#).)*?^```\n(.*?)^```", readme_text, re.M | re.S)
    if not match:
        sys.exit("FAIL: README.md has no '## Layout' section with a ``` block")
    return match.group(1).splitlines()


def missing_folders(folders, lines):
    """The folders of `folders` that `lines` do not mention, as "TOP/" or "TOP/SUB/"."""
    text = "\n".join(lines)
    # Which top folder each line is about: its first word's, or the line above's for an
    # indented continuation.
    about = []
    for line in lines:
        first = line.split()[0] if line.strip() else ""
        if line[:1].isspace() and about:
            about.append(about[-1])
        else:
            about.append(first.split("/")[0])
    missing = []
    for top, sub in sorted(folders, key=lambda f: (f[0], f[1] or "")):
        if sub is None:
            if not re.search(rf"(^|[\s(]){re.escape(top)}/", text, re.M):
                missing.append(f"{top}/")
            continue
        if f"{top}/{sub}/" in text:
            continue
        if any(owner == top and re.search(rf"(^|[\s(,]){re.escape(sub)}/", line)
               for owner, line in zip(about, lines)):
            continue
        missing.append(f"{top}/{sub}/")
    return missing


def self_test():
    lines = ["lib/a/          the a part", "lib/            helpers; b/ and c/",
             "app/            the app", "                x/ (on a continuation line)"]
    folders = {("lib", None), ("lib", "a"), ("lib", "b"), ("lib", "c"), ("lib", "d"),
               ("app", None), ("app", "x"), ("app", "b"), ("docs", None)}
    got = missing_folders(folders, lines)
    if got != ["app/b/", "docs/", "lib/d/"]:
        sys.exit(f"FAIL: the checker itself: expected ['app/b/', 'docs/', 'lib/d/'], got {got}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    self_test()
    source_dir = pathlib.Path(sys.argv[1])
    lines = layout_block((source_dir / "README.md").read_text())
    missing = missing_folders(tracked_folders(source_dir), lines)
    if missing:
        print("FAIL: README.md's Layout leaves out " + ", ".join(missing) +
              ": add a line (or a mention on its parent's line) saying what each holds",
              file=sys.stderr)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
