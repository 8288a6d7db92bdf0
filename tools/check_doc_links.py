#!/usr/bin/env python3
"""Checks the links of Taskboard's Markdown documents.

For every inline link `[text](target)` and reference definition `[id]: target`
outside code (fenced blocks and `code spans`), in README.md and docs/*.md:

  - a relative path must name a file or folder of the repository;
  - `#anchor`, alone or after a Markdown file, must name a heading of that
    file (GitHub's anchors: lower case, spaces to hyphens, punctuation dropped,
    `-1`, `-2` ... for repeated headings) or an explicit `<a id="...">`.

With --code it also reads the repository's source files (C++, Python, shell,
TypeScript, JavaScript, CMake, proto, YAML) for citations of the form
`docs/NAME.md#anchor` and checks them the same way, so a comment that points
at a section which was renamed fails too.

Exit status: 0 when every link holds, 1 when one does not (each is printed
as `file:line: message`), 2 on a usage error. Standard library only.

  tools/check_doc_links.py                      # README.md and docs/*.md
  tools/check_doc_links.py --code               # and the citations in code
  tools/check_doc_links.py docs/design.md       # some files only
"""

import argparse
import os
import re
import sys
import unicodedata

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:[^>]*?\s)?(?:id|name)=[\"']([^\"']+)[\"']", re.I)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
# [text](target "title"): the text may hold one level of brackets
# ([`a[0]`](x)); the target may hold one level of parentheses.
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?"
    r"(?:\s+\"[^\"]*\")?\s*\)"
)
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
CODE_CITATION = re.compile(r"\bdocs/([a-z0-9_.-]+\.md)#([A-Za-z0-9_-]+)")
CODE_SUFFIXES = (".cc", ".h", ".py", ".sh", ".mjs", ".js", ".ts", ".tsx", ".cmake",
                 ".proto", ".yaml", ".yml")
SKIP_DIRS = {".git", "node_modules", "build", "dist", ".taskboard"}


def slug(text):
    """The anchor GitHub gives a heading whose rendered text is `text`."""
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("*", "").replace("\\", "")
    kept = []
    for ch in text.lower():
        if ch in " -_" or unicodedata.category(ch)[0] in "LN" or \
                unicodedata.category(ch) in ("Mn", "Mc"):
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def strip_code_spans(line):
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    with open(path, encoding="utf-8") as f:
        fence = None
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            match = FENCE.match(line)
            if fence is None and match:
                fence = match.group(1)
                continue
            if fence is not None:
                if match and match.group(1)[0] == fence[0] and \
                        len(match.group(1)) >= len(fence) and \
                        line.strip() == match.group(1):
                    fence = None
                continue
            yield number, line


class Anchors:
    """The anchors of each Markdown file, read once."""

    def __init__(self):
        self._by_path = {}

    def of(self, path):
        path = os.path.realpath(path)
        if path not in self._by_path:
            found = set()
            seen = {}
            for _, line in prose_lines(path):
                for anchor in HTML_ANCHOR.findall(line):
                    found.add(anchor)
                match = HEADING.match(line)
                if not match:
                    continue
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else "%s-%d" % (base, count))
            self._by_path[path] = found
        return self._by_path[path]


def check_target(source, number, target, root, anchors, problems):
    """Checks one link target written in `source` (a path) at line `number`."""
    if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
        return  # http:, https:, mailto:, ...: not ours to check
    path_part, _, anchor = target.partition("#")
    path_part = path_part.split("?", 1)[0]
    where = "%s:%d" % (os.path.relpath(source, root), number)
    if path_part:
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part))
        if path_part.startswith("/"):
            resolved = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
        if not os.path.exists(resolved):
            problems.append("%s: %s: no such file or folder" % (where, target))
            return
    else:
        resolved = source
    if not anchor:
        return
    if not resolved.endswith(".md") or os.path.isdir(resolved):
        return  # GitHub's line anchors (#L10) and the like: not checked
    if anchor not in anchors.of(resolved):
        problems.append("%s: %s: no section with anchor #%s in %s" %
                        (where, target, anchor, os.path.relpath(resolved, root)))


def check_markdown(path, root, anchors, problems):
    for number, line in prose_lines(path):
        prose = strip_code_spans(line)
        definition = REFERENCE_DEF.match(prose)
        if definition:
            check_target(path, number, definition.group(1), root, anchors, problems)
            continue
        for match in INLINE_LINK.finditer(prose):
            check_target(path, number, match.group(1), root, anchors, problems)


def source_files(root):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
        if os.path.relpath(directory, root).split(os.sep)[0] == "docs":
            continue
        for name in sorted(files):
            if name.endswith(CODE_SUFFIXES) or name == "CMakeLists.txt":
                yield os.path.join(directory, name)


# The documents the product was first built from; the repository holds its own
# versions in docs/ (design.md, semantics.md), which code must cite instead.
OUTSIDE_DOCUMENTS = re.compile(r"\b(SEMANTICS|DESIGN)\.md\b")


def check_code_citations(root, anchors, problems):
    for path in source_files(root):
        if os.path.samefile(path, __file__):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(lines, 1):
            outside = OUTSIDE_DOCUMENTS.search(line)
            if outside:
                problems.append("%s:%d: cites %s, which the repository does not hold; cite "
                                "docs/%s.md#<section> instead" %
                                (os.path.relpath(path, root), number, outside.group(0),
                                 outside.group(1).lower()))
            for name, anchor in CODE_CITATION.findall(line):
                doc = os.path.join(root, "docs", name)
                where = "%s:%d" % (os.path.relpath(path, root), number)
                if not os.path.isfile(doc):
                    problems.append("%s: docs/%s: no such document" % (where, name))
                elif anchor not in anchors.of(doc):
                    problems.append("%s: docs/%s#%s: no section with that anchor" %
                                    (where, name, anchor))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*",
                        help="Markdown files to check (default: README.md and docs/*.md)")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the repository (default: this script's parent folder)")
    parser.add_argument("--code", action="store_true",
                        help="also check docs/NAME.md#anchor citations in source files")
    args = parser.parse_args(argv)
    root = os.path.realpath(args.root)
    files = [os.path.realpath(f) for f in args.files]
    if not files:
        files = [os.path.join(root, "README.md")]
        docs = os.path.join(root, "docs")
        files += sorted(os.path.join(docs, name) for name in os.listdir(docs)
                        if name.endswith(".md"))
    anchors = Anchors()
    problems = []
    for path in files:
        if not os.path.isfile(path):
            print("%s: no such file" % path, file=sys.stderr)
            return 2
        check_markdown(path, root, anchors, problems)
    if args.code:
        check_code_citations(root, anchors, problems)
    for problem in problems:
        print(problem)
    checked = "%d Markdown files%s" % (len(files), " and the code's citations" if args.code else "")
    if problems:
        print("%d broken links in %s" % (len(problems), checked))
        return 1
    print("every link holds in %s" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
