#!/usr/bin/env python3
"""Link check for the documentation: every relative link and #anchor in the
README and the Markdown files of the repository must resolve.

    python3 scripts/check_book.py [--html BOOK_DIR]

* A link `[text](path)`, `[text](path#anchor)` or `[text](#anchor)` whose
  target is not a URL must name a file (or folder) that exists, relative to
  the file that holds the link.
* An anchor into a Markdown file must be the id of one of its headings, made
  as mdBook (and GitHub) make them: lower case, letters, digits, `-` and `_`
  kept, spaces turned into `-`, everything else dropped; a repeated id gets
  `-1`, `-2`, ...
* Every Markdown file under docs/ must be listed in docs/SUMMARY.md, so the
  book holds all of them.
* With --html (the folder `mdbook build` wrote), every anchor into a book
  page must also be an id in the page mdBook wrote, which checks the rule
  above against mdBook itself.

Links inside code (fenced blocks and `inline code`) are not links and are
skipped. Exit status 1 with one line per broken link.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def strip_code(text):
    """The text with fenced code blocks and inline code blanked out (line
    structure kept, so headings inside code are not headings)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return "\n".join(out)


def normalize(heading):
    heading = re.sub(r"<[^>]*>", "", heading)
    # Markdown markup is not part of the heading's text.
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    heading = heading.replace("\\", "")
    out = []
    for c in heading.strip().lower():
        if c.isalnum() or c in "_-":
            out.append(c)
        elif c.isspace():
            out.append("-")
    return "".join(out)


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        ids, seen = set(), {}
        fence = None
        for line in text.split("\n"):
            m = re.match(r"^\s*(```+|~~~+)", line)
            if fence:
                if m and m.group(1)[0] == fence[0]:
                    fence = None
                continue
            if m:
                fence = m.group(1)
                continue
            h = HEADING.match(line)
            if not h:
                continue
            base = normalize(h.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            ids.add(base if n == 0 else "%s-%d" % (base, n))
        _anchor_cache[path] = ids
    return _anchor_cache[path]


def html_ids(html_dir, md_rel):
    page = os.path.join(html_dir, os.path.splitext(md_rel)[0] + ".html")
    if not os.path.exists(page):
        return None
    with open(page, encoding="utf-8") as f:
        return set(re.findall(r'\bid="([^"]+)"', f.read()))


def main():
    html_dir = None
    if len(sys.argv) == 3 and sys.argv[1] == "--html":
        html_dir = os.path.abspath(sys.argv[2])
    elif len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    files = subprocess.check_output(["git", "ls-files", "*.md"], cwd=ROOT, text=True).split()
    docs = os.path.join(ROOT, "docs")
    errors, links = [], 0
    for rel in files:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = strip_code(f.read())
        for lineno, line in enumerate(text.split("\n"), 1):
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # a URL
                links += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = "%s:%d: %s" % (rel, lineno, target)
                if not os.path.exists(dest):
                    errors.append(where + " (no such file)")
                    continue
                if not anchor:
                    continue
                if not dest.endswith(".md"):
                    errors.append(where + " (anchor into a file that is not Markdown)")
                    continue
                if anchor not in anchors(dest):
                    errors.append(where + " (no heading with this id)")
                    continue
                if html_dir and dest.startswith(docs + os.sep):
                    ids = html_ids(html_dir, os.path.relpath(dest, docs))
                    if ids is not None and anchor not in ids:
                        errors.append(where + " (mdBook wrote no such id)")
    # Every page of docs/ is in the book.
    with open(os.path.join(docs, "SUMMARY.md"), encoding="utf-8") as f:
        summary = {os.path.normpath(t.split("#")[0]) for t in LINK.findall(strip_code(f.read()))}
    for rel in files:
        if rel.startswith("docs/") and rel != "docs/SUMMARY.md":
            if os.path.relpath(rel, "docs") not in summary:
                errors.append("docs/SUMMARY.md: %s is not in the book" % rel)
    for e in errors:
        print(e)
    print("check_book: %d files, %d relative links, %d broken" % (len(files), links, len(errors)),
          file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
