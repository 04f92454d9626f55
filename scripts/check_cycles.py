#!/usr/bin/env python3
"""Fail when the files of a crate import each other in a circle.

    python3 scripts/check_cycles.py          # every crate of the workspace
    python3 scripts/check_cycles.py -v       # also print the edges it found
    python3 scripts/check_cycles.py --strict # count a module's uses of its own
                                             # submodules too (see below)

Each crate's `src/` is read file by file. A file depends on another when its
code names an item of the other through a path the compiler resolves inside
the crate: `use crate::…`, `use super::…`, `use self::…`, a `use` of a child
module, and the same paths written inline in code (`crate::network::raw::f()`,
`super::mesh::first_head(…)`). Comments, doc comments and string literals are
not read, so an intra-doc link is not an import.

A path that ends at an item a module only re-exports (`pub use raw::Foo;` in
`network/mod.rs`) is followed to the file that defines the item, and a
re-export itself is not an edge: it is an alias, not code that depends on
the other file. Code under `#[cfg(test)]` is not read: it is not part of
the crate a user builds, and a unit test may build its input with any
module of the crate (`trees/metrics.rs` tests with `trees::construct`).

A module's use of its own submodules (`router/mod.rs` calling
`routing::first_head`, `lib.rs` naming anything) is not an edge: the parent
declares the child, so the two are one unit seen from outside, and a child
using the types its parent defines (`super::RouterError`) is the usual way
down. What must not loop are files that are not parent and child: siblings
(`router/mesh.rs` and `router/routing.rs`) or separate subtrees
(`fabric/` and `network/`). `--strict` drops this exception.

The strongly connected components of this file graph with more than one file
are the circles; each is printed with the lines that close it, and the exit
status is 1. Plain Python, no dependencies, well under a second.
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CRATES = [".", "sim", "rtl", "testbench"]
ITEM_KW = r"(?:fn|struct|enum|trait|type|const|static|mod|union|macro_rules!)"


def strip(text):
    """Blank out comments, strings and char literals, keeping offsets and newlines."""
    out = []
    i, n = 0, len(text)

    def blank(s):
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 260]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' or (c == "b" and text.startswith('b"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(blank(text[i:j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}'), else a lifetime or label.
            m = re.match(r"'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:i + 12])
            if m:
                out.append(blank(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_spans(t):
    """Offsets of the items under `#[cfg(test)]`: up to their `;` or closing brace."""
    spans = []
    for m in re.finditer(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]", t):
        i, n = m.end(), len(t)
        while i < n and t[i] not in ";{":
            i += 1
        if i < n and t[i] == "{":
            depth = 0
            while i < n:
                depth += t[i] == "{"
                depth -= t[i] == "}"
                i += 1
                if depth == 0:
                    break
        spans.append((m.start(), i + 1))
    return spans


def parse_use_tree(s):
    """`a::{b, c::{d, e as f}, self}` -> [[a,b], [a,c,d], [a,c,e], [a]]."""
    s = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", s))
    paths = []

    def walk(s, prefix):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        parts.append(cur)
        for p in parts:
            if not p:
                continue
            k = p.find("{")
            if k >= 0:
                head = [x for x in p[:k].split("::") if x]
                walk(p[k + 1:p.rfind("}")], prefix + head)
            else:
                segs = [x for x in p.split("@")[0].split("::") if x]
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                paths.append(prefix + segs)

    walk(s, [])
    return paths


class Crate:
    def __init__(self, crate_dir):
        self.dir = os.path.join(ROOT, crate_dir)
        src = os.path.join(self.dir, "src")
        self.files = {}  # relpath -> dict
        self.modfile = {}  # tuple(module path) -> relpath (inline modules too)
        for dp, _, fns in os.walk(src):
            for fn in fns:
                if not fn.endswith(".rs"):
                    continue
                full = os.path.join(dp, fn)
                rel = os.path.relpath(full, src)
                segs = rel[:-3].split(os.sep)
                if segs[-1] == "mod":
                    segs = segs[:-1]
                elif len(segs) == 1 and segs[0] in ("lib", "main"):
                    segs = []
                rel_root = os.path.relpath(full, ROOT)
                with open(full, encoding="utf-8") as f:
                    raw = f.read()
                self.files[rel_root] = {"mod": tuple(segs), "text": strip(raw)}
                # A lone binary next to the crate root (src/fuzz_cli.rs) is
                # its own module of the root crate only if it is declared;
                # either way it maps to its path.
                self.modfile.setdefault(tuple(segs), rel_root)
        for rel, info in self.files.items():
            self.scan(rel, info)

    def scan(self, rel, info):
        """Inline modules, item definitions, re-exports and path uses of one file."""
        t = info["text"]
        base = info["mod"]
        # Module path at each offset: follow `mod name {` through braces.
        stack, depth, pending = [], 0, None
        mod_at = []  # (offset, module tuple) change points
        mod_at.append((0, base))
        tok = re.compile(r"\bmod\s+(\w+)\s*\{|[{}]")
        for m in tok.finditer(t):
            if m.group(1):
                depth += 1
                stack.append((m.group(1), depth))
                cur = base + tuple(s for s, _ in stack)
                self.modfile.setdefault(cur, rel)
                mod_at.append((m.end(), cur))
            elif m.group(0) == "{":
                depth += 1
            else:
                if stack and stack[-1][1] == depth:
                    stack.pop()
                    mod_at.append((m.end(), base + tuple(s for s, _ in stack)))
                depth -= 1
        info["mod_at"] = mod_at
        info["children"] = set(re.findall(r"\bmod\s+(\w+)\s*[;{]", t))
        info["defs"] = set(re.findall(r"\b" + ITEM_KW + r"\s+(\w+)", t))
        info["reexports"] = {}  # name -> (module, path)
        info["globs"] = []  # (module, path)
        uses = []  # (offset, module, path, is_pub)
        for m in re.finditer(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+([^;]+);", t):
            cur = self.module_at(info, m.start())
            for p in parse_use_tree(m.group(2)):
                if not p:
                    continue
                if m.group(1):
                    if p[-1] == "*":
                        info["globs"].append((cur, p[:-1]))
                    else:
                        alias = re.search(r"\b" + re.escape(p[-1]) + r"\s+as\s+(\w+)", m.group(2))
                        info["reexports"][alias.group(1) if alias else p[-1]] = (cur, p)
                uses.append((m.start(), cur, p, bool(m.group(1))))
        use_spans = [(m.start(), m.end()) for m in re.finditer(r"\buse\s+[^;]+;", t)]
        for m in re.finditer(r"(?<![\w:])((?:crate|super|self)(?:\s*::\s*\w+)+)", t):
            if any(a <= m.start() < b for a, b in use_spans):
                continue
            p = [x.strip() for x in m.group(1).split("::")]
            uses.append((m.start(), self.module_at(info, m.start()), p, False))
        # Inline paths through a child module (`routing::first_head(…)`);
        # resolved in edges(), once every file's modules are known.
        for m in re.finditer(r"(?<![\w:])(\w+(?:\s*::\s*\w+)+)", t):
            if any(a <= m.start() < b for a, b in use_spans):
                continue
            p = [x.strip() for x in m.group(1).split("::")]
            if p[0] not in ("crate", "super", "self"):
                uses.append((m.start(), self.module_at(info, m.start()), p, False))
        tests = test_spans(t)
        info["uses"] = [u for u in uses if not any(a <= u[0] < b for a, b in tests)]

    @staticmethod
    def module_at(info, off):
        cur = info["mod"]
        for o, mod in info["mod_at"]:
            if o > off:
                break
            cur = mod
        return cur

    def absolute(self, cur, p, rel):
        """The absolute module path of `p` used in module `cur`, or None if external."""
        p = list(p)
        if p[0] == "crate":
            return p[1:]
        if p[0] in ("super", "self"):
            mod = list(cur)
            while p and p[0] in ("super", "self"):
                if p[0] == "super":
                    mod = mod[:-1]
                p = p[1:]
            return mod + p
        # `use child::X;` of a module declared in this scope.
        if tuple(cur) + (p[0],) in self.modfile:
            return list(cur) + p
        return None

    def resolve(self, segs, hops=0):
        """The file that defines what `segs` (absolute) names."""
        for k in range(len(segs), -1, -1):
            rel = self.modfile.get(tuple(segs[:k]))
            if rel is None:
                continue
            if k == len(segs) or hops > 8:
                return rel
            info = self.files[rel]
            name = segs[k]
            # A path through an inline module of that file stays in it.
            if name in info["defs"]:
                return rel
            if name in info["reexports"]:
                cur, p = info["reexports"][name]
                a = self.absolute(cur, p, rel)
                if a is not None:
                    return self.resolve(a + segs[k + 1:], hops + 1)
                return rel
            for cur, p in info["globs"]:
                a = self.absolute(cur, p, rel)
                if a is None:
                    continue
                target = self.resolve(a + [name], hops + 1)
                if target and name in self.files[target]["defs"]:
                    return target
            return rel
        return None

    def edges(self, strict=False):
        out = {}
        for rel, info in self.files.items():
            for off, cur, p, is_pub in info["uses"]:
                if is_pub:
                    continue
                a = self.absolute(cur, p, rel)
                if a is None:
                    continue
                target = self.resolve(a)
                if not target or target == rel:
                    continue
                down = self.files[target]["mod"][: len(info["mod"])] == info["mod"]
                if strict or not down:
                    line = info["text"].count("\n", 0, off) + 1
                    lines = out.setdefault((rel, target), [])
                    if line not in lines:
                        lines.append(line)
        return out


def sccs(nodes, adj):
    index, low, on, stack, res, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            res.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return res


def main():
    verbose = "-v" in sys.argv[1:]
    strict = "--strict" in sys.argv[1:]
    bad = 0
    total_files = total_edges = 0
    for c in CRATES:
        crate = Crate(c)
        edges = crate.edges(strict)
        adj = {}
        for a, b in edges:
            adj.setdefault(a, set()).add(b)
        total_files += len(crate.files)
        total_edges += len(edges)
        if verbose:
            for (a, b), lines in sorted(edges.items()):
                print(f"  {a} -> {b} (line {', '.join(map(str, lines))})")
        for comp in sccs(crate.files, adj):
            if len(comp) < 2:
                continue
            bad += 1
            print(f"circle in {c}: {' <-> '.join(comp)}")
            for (a, b), lines in sorted(edges.items()):
                if a in comp and b in comp:
                    print(f"    {a}:{','.join(map(str, lines))} uses {b}")
    if bad:
        print(f"check_cycles: {bad} import circle(s) between files")
        return 1
    print(f"check_cycles: no import circles ({total_files} files, {total_edges} file-to-file imports in {len(CRATES)} crates)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
