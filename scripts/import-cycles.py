#!/usr/bin/env python3
"""Import circles between the crate's modules (files).

A module is a file (`foo.rs` or `foo/mod.rs`; an inline `mod x { … }` counts as its file). An edge
A -> B means A names something in B: a `use` (braces expanded), or a path anywhere in the code
(`crate::…`, `super::…`, `self::…`, or a path whose first segment is a child module). `mod`
lines only say which modules exist: declaring a child is not importing it. Comments and string
literals are skipped. A circle is a strongly connected component of more than one module; the
elementary cycles in it are listed too (at most --max per component).

Usage:
  python3 scripts/import-cycles.py [--src src] [--scope run] [--no-tests] [--max 20] [--check]

--scope run   only modules under src/run (edges leaving the scope are dropped)
--no-tests    drop `#[cfg(test)]` modules (inline or in their own file)
--check       exit 1 when there is any circle (CI runs this: the crate has none)
Exit status 0 otherwise; the last line is the summary of circles and imports up.
"""
import argparse
import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(src):
    """Source with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * src.count("\n", i, j))
            i = j
            continue
        m = re.match(r'b?r(#*)"', src[i:i + 40])
        if m and (i == 0 or not re.match(r"[A-Za-z0-9_]", src[i - 1])):
            end = '"' + m.group(1)
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j
            continue
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j + 1
            continue
        m = re.match(r"'(\\.[^']*|[^\\'])'", src[i:i + 12])
        if c == "'" and m:
            out.append("' '")
            i += m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def drop_test_blocks(code):
    """Blank `#[cfg(test)] mod x { … }` blocks."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{", code)
        if not m:
            return code
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[:m.start()] + "\n" * code.count("\n", m.start(), j) + code[j:]


def expand_use(tree):
    """`a::{b, c::{d, self}}` -> ['a::b', 'a::c::d', 'a::c']."""
    tree = re.sub(r"\s+as\s+" + IDENT, "", tree)
    tree = re.sub(r"\s+", "", tree)
    out = []

    def go(prefix, t):
        parts, depth, cur = [], 0, ""
        for ch in t:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        parts.append(cur)
        for p in parts:
            if not p:
                continue
            if "{" in p:
                head, rest = p.split("{", 1)
                go(prefix + head, rest[:-1])
            elif p == "self":
                out.append(prefix[:-2] if prefix.endswith("::") else prefix)
            else:
                out.append(prefix + p)

    go("", tree)
    return out


class Crate:
    def __init__(self, src, no_tests):
        self.src = src
        self.no_tests = no_tests
        self.files = {}  # module path tuple -> file
        self.children = {}  # module path tuple -> set of child names (file or inline)
        self.inline = {}  # inline module path -> owning file module
        self.test_only = set()
        self.walk((), os.path.join(src, "lib.rs"))

    def walk(self, mpath, path):
        self.files[mpath] = path
        code = strip(open(path, encoding="utf-8").read())
        self.children.setdefault(mpath, set())
        self.scan_mods(mpath, path, code, mpath)

    def scan_mods(self, mpath, path, code, owner):
        pat = re.compile(r"(#\[cfg\(test\)\]\s*)?(#\[path\s*=[^\]]*\]\s*)?(pub(\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*([;{])")
        pos = 0
        while True:
            m = pat.search(code, pos)
            if not m:
                return
            name, test = m.group(5), bool(m.group(1))
            child = mpath + (name,)
            self.children[mpath].add(name)
            if m.group(6) == ";":
                pos = m.end()
                f = self.child_file(mpath, path, name)
                if f is None:
                    continue
                if test:
                    self.test_only.add(child)
                    if self.no_tests:
                        continue
                self.walk(child, f)
            else:
                depth, j = 1, m.end()
                while j < len(code) and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                self.inline[child] = owner
                self.children.setdefault(child, set())
                self.scan_mods(child, path, code[m.end():j - 1], owner)
                pos = j

    def child_file(self, mpath, path, name):
        base = os.path.dirname(path)
        stem = os.path.basename(path)[:-3]
        if stem not in ("lib", "mod", "main") and mpath in self.files and self.files[mpath] == path:
            base = os.path.join(base, stem)
        for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
            if os.path.exists(cand):
                return cand
        return None

    def owner(self, mpath):
        """The file-module a module path belongs to (an inline module -> its file)."""
        while mpath not in self.files:
            if mpath in self.inline:
                return self.inline[mpath]
            if not mpath:
                return ()
            mpath = mpath[:-1]
        return mpath

    def resolve(self, here, segs):
        """The module a path names, or None (outside the crate)."""
        if not segs:
            return None
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        elif segs[0] in ("super", "self"):
            base = here
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
        elif segs[0] in self.children.get(here, ()):
            base = here
        else:
            return None
        m = base
        for s in segs:
            if s in self.children.get(m, ()):
                m = m + (s,)
            else:
                break
        return self.owner(m)


def edges_of(crate, mpath, path):
    code = strip(open(path, encoding="utf-8").read())
    if crate.no_tests:
        code = drop_test_blocks(code)
    out = set()
    # Inline modules: attribute their paths to the file, resolving from the inline module.
    scopes = [(mpath, code)]
    for child, owner in crate.inline.items():
        if owner == mpath:
            scopes.append((child, None))
    inline_here = [c for c, o in crate.inline.items() if o == mpath]
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        here = scope_at(crate, mpath, code, m.start(), inline_here)
        for p in expand_use(m.group(1)):
            t = crate.resolve(here, [s for s in p.split("::") if s and s != "*"])
            if t is not None:
                out.add(t)
    for m in re.finditer(r"\b(" + IDENT + r"(?:\s*::\s*" + IDENT + r")+)", code):
        if re.search(r"\buse\s+[^;]*$", code[max(0, m.start() - 200):m.start()]):
            continue  # inside a use: done above
        if code[m.end():m.end() + 1] == "!":
            continue  # `crate::say!`: a #[macro_export] macro sits at the crate root wherever it is written
        here = scope_at(crate, mpath, code, m.start(), inline_here)
        segs = [s.strip() for s in m.group(1).split("::")]
        t = crate.resolve(here, segs)
        if t is not None:
            out.add(t)
    out.discard(mpath)
    return out


def scope_at(crate, mpath, code, pos, inline_here):
    """The innermost inline module containing pos (by brace depth), else the file's module."""
    best = mpath
    for child in inline_here:
        name = child[-1]
        for m in re.finditer(r"\bmod\s+" + name + r"\s*\{", code):
            depth, j = 1, m.end()
            while j < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                j += 1
            if m.end() <= pos < j and len(child) > len(best):
                best = child
    return best


def sccs(nodes, graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            out.append(comp)

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def cycles_in(comp, graph, cap):
    """Every elementary cycle inside one component (stopping at cap), shortest first."""
    comp = sorted(comp)
    res = []
    for i, start in enumerate(comp):
        allowed = set(comp[i:])
        stack = [(start, [start], iter(sorted(graph.get(start, ()))))]
        on_path = {start}
        while stack and len(res) < cap:
            v, path, it = stack[-1]
            w = next(it, None)
            if w is None:
                stack.pop()
                on_path.discard(v)
                continue
            if w == start:
                res.append(path[:])
            elif w in allowed and w not in on_path:
                on_path.add(w)
                stack.append((w, path + [w], iter(sorted(graph.get(w, ())))))
    res.sort(key=len)
    return res


def name(m, crate):
    return crate.files[m][len(crate.src) + 1:] if m in crate.files else "::".join(m)


def report(title, nodes, graph, crate, show, cap):
    comps = sccs(nodes, graph)
    total = 0
    print(f"== {title}")
    for comp in sorted(comps, key=lambda c: (-len(c), sorted(c))):
        cyc = cycles_in(comp, graph, cap)
        total += len(cyc)
        more = "+" if len(cyc) >= cap else ""
        print(f"circle of {len(comp)} modules, {len(cyc)}{more} cycles: "
              + ", ".join(sorted(name(m, crate) for m in comp)))
        for c in cyc[:show]:
            print("   " + " -> ".join(name(m, crate) for m in c + [c[0]]))
    print(f"{title}: {len(comps)} circles, {total} elementary cycles")
    return len(comps), total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default="src")
    ap.add_argument("--scope", default="")
    ap.add_argument("--no-tests", action="store_true")
    ap.add_argument("--show", type=int, default=5, help="cycles listed per circle (shortest)")
    ap.add_argument("--cap", type=int, default=100000, help="stop counting a circle's cycles here")
    ap.add_argument("--check", action="store_true", help="exit 1 when there is any circle")
    a = ap.parse_args()
    crate = Crate(a.src, a.no_tests)
    scope = tuple(a.scope.split("::")) if a.scope else ()
    nodes = [m for m in crate.files if m[:len(scope)] == scope]
    graph = {}
    for m in nodes:
        graph[m] = {t for t in edges_of(crate, m, crate.files[m])
                    if t[:len(scope)] == scope and t in crate.files}
    up = sorted((name(m, crate), name(t, crate)) for m in nodes for t in graph[m]
                if len(t) < len(m) and m[:len(t)] == t)
    print(f"{len(nodes)} modules, {sum(len(v) for v in graph.values())} edges")
    print(f"imports up to an enclosing module ({len(up)}):")
    for m, t in up:
        print(f"   {m} -> {t}")
    folder = {m: os.path.dirname(crate.files[m]) for m in nodes}
    inside = {m: {t for t in graph[m] if folder[t] == folder[m]} for m in nodes}
    fc, fe = report("inside folders", nodes, inside, crate, a.show, a.cap)
    ac, ae = report("across the scope", nodes, graph, crate, a.show, a.cap)
    print(f"summary: {fc} circles inside folders ({fe} cycles); {ac} across the scope ({ae} cycles); "
          f"{len(up)} imports up")
    if a.check and (fc or ac):
        sys.exit(1)


if __name__ == "__main__":
    main()
