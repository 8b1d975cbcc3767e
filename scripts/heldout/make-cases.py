#!/usr/bin/env python3
"""Build the held-out context benchmark's cases from git mirrors of five public repositories.

    make-cases.py [--mirrors DIR] list REPO [--n N]     the candidates of one repository, in the order they are read
    make-cases.py [--mirrors DIR] write [--out FILE]    the cases (default: cases.jsonl next to this script)
    make-cases.py [--mirrors DIR] check                 whether cases.jsonl is what `write` makes (exit 1 if not)

The cases are made the way ../shared/context-bench's were (see README.md here): candidate commits by fixed rules,
read in a fixed-seed shuffled order, the first PER_REPO of each repository that review.tsv does not skip are taken;
the story is the commit subject plus the first body paragraph, with whatever names a changed file removed; the gold
is the non-test source files the commit modified. Nothing here runs ralph: a case is chosen before any retriever has
seen it.

Standard library only; reads the mirrors with git and never writes to them. MIRRORS: a folder holding
`<owner>+<name>/repo` git directories (what the `fetch` tool gives), as --mirrors or the MIRRORS variable.
"""
import argparse, hashlib, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = "ralph-heldout-1"
PER_REPO = 12
LATER_SHARE = 0.70   # candidates come from the later 70% of each history

# Each repository's history is read from a fixed commit (the newest one fetched when the set was made), so a newer
# mirror gives the same cases. `since` restricts a history to a stretch (see README.md for why).
REPOS = [
    {"repo": "gh", "upstream": "cli/cli", "language": "Go", "head": "44ee17760709bedf1cad7e452e61751489b81a33",
     "since": "2023-01-01", "generated": r"(^|/)(mock_[^/]*|[^/]*_mock)\.go$"},
    {"repo": "vue", "upstream": "vuejs/core", "language": "TypeScript",
     "head": "e2bede96134f757aad5c5b33ac9be055022dbfc8"},
    {"repo": "black", "upstream": "psf/black", "language": "Python", "head": "8947c48ef2077c3a301b03c1e814dc2e3f78436e"},
    {"repo": "just", "upstream": "casey/just", "language": "Rust", "head": "4f41f609278edb6f1024e3dd7a9912946e1e7bc3",
     "generated": r"^completions/"},
    {"repo": "prettier", "upstream": "prettier/prettier", "language": "JavaScript",
     "head": "4f84a934201322ca87750e2b9b25baf296da6560"},
]

# ------------------------------------------------------------------ files (as ../shared/context-bench/run.py)
SRC = set("rs py pyi js jsx mjs cjs ts tsx mts cts vue svelte go java kt kts scala groovy cs sh bash zsh rb php c h cc "
          "cpp cxx hpp hh m mm swift lua ex exs erl hs ml clj dart r jl zig nim pl pm sql".split())
SKIP = {".git", "target", "node_modules", "vendor", "build", "dist", "out", "__pycache__", ".venv", "venv", ".tox",
        ".mypy_cache", ".pytest_cache", "bower_components", ".next", ".gradle", ".idea", "coverage"}
TEST_DIRS = {"tests", "test", "testdata", "testing", "__tests__", "__mocks__", "__snapshots__", "snapshots", "spec",
             "e2e", "examples", "example", "docs", "doc", "benches", "bench", "benchmarks", "benchmark", "fixtures",
             "fixture", "acceptance"}
TEST_NAME = re.compile(r"(_test\.go|^test_.*\.py|_test\.py|^conftest\.py|\.(test|spec)(-d)?\.[^.]+|_spec\.rb|Test\.java)$")


def is_source(p):
    parts = p.split("/")
    if any(x in SKIP or x.startswith(".") for x in parts[:-1]) or parts[-1].startswith("."):
        return False
    return "." in parts[-1] and parts[-1].rsplit(".", 1)[1] in SRC


def is_test(p):
    parts = p.split("/")
    dirs = [d.lower() for d in parts[:-1]]
    return (any(d in TEST_DIRS or any(w in TEST_DIRS for w in re.split(r"[-_]", d)) for d in dirs)
            or bool(TEST_NAME.search(parts[-1])))


# ------------------------------------------------------------------ history
def git(mirror, *a):
    return subprocess.run(["git", "--git-dir", mirror, *a], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def commits(mirror, head, since=None):
    """Non-merge commits of the later LATER_SHARE of head's history (oldest first), each with its message and
    changed files."""
    order = git(mirror, "rev-list", "--date-order", "--reverse", head).split()
    later = set(order[int(len(order) * (1 - LATER_SHARE)):])
    log = git(mirror, "log", "--date-order", "--reverse", "--no-merges", "--no-renames", "--name-status",
              "--format=%x1e%H%x00%P%x00%cI%x00%B%x00", head, *(["--since=" + since] if since else []))
    out = []
    for rec in log.split("\x1e")[1:]:
        sha, parents, date, msg, files = rec.split("\x00", 4)
        if sha not in later or len(parents.split()) != 1:
            continue
        changes = [l.split("\t", 1) for l in files.strip().splitlines() if "\t" in l]
        out.append({"commit": sha, "parent": parents.strip(), "date": date, "message": msg.strip(),
                    "changes": [(s[0], p) for s, p in changes]})
    return out


# ------------------------------------------------------------------ candidate rules
NOISE_SUBJECT = re.compile(
    r"\b(release[ds]?|releasing|bump(s|ed)?|version bump|merge (branch|pull|remote|main|master)|revert(s|ed)?|"
    r"changelog|changes\.md|readme|docs?|documentation|deps|dependenc(y|ies)|ci|lint(s|ed|er|ing)?|typos?|clippy|"
    r"spell(ing)?|misspell(ing|ed)?|"
    r"renovate|dependabot|upgrade[ds]?|downgrade[ds]?|wip|todo|feedback|review|pr comments?|suggestions?)\b|^(run |apply )?(re)?format(ting)?( code| files)?$|"
    r"\b(cargo fmt|gofmt|go fmt|run (black|prettier|ruff|eslint))\b", re.I)
DROP_TYPES = {"chore", "docs", "doc", "refactor", "test", "tests", "style", "ci", "build", "release", "revert", "deps",
              "wip", "lint", "types", "typing", "typo", "bench", "example", "examples", "workflow", "dx"}
PREFIX = re.compile(r"^(?P<type>[A-Za-z][\w-]*)(?:\((?P<scope>[^)]*)\))?(?P<bang>!)?:\s+")
VERBS = set("""add allow make handle fix support avoid prevent ensure use show print respect implement improve correct
preserve keep remove return render set skip enable disable don't do not stop report detect accept expose warn include
exclude honor honour treat check pass resolve display infer normalize normalise escape parse apply introduce provide
raise ignore reject emit hide limit change update properly only always never let default allow disallow require
recognize recognise prefer move break collapse expand indent wrap print output error fail complete validate replace
restore reset retry read write load save open close create delete list sort filter group align unify convert
strip trim quote unquote format hoist inline split join merge fall catch propagate cache track mark guard bail""".split())


def stem(w):
    w = w.lower()
    for suf in ("ing", "ed", "es", "s"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            b = w[:-len(suf)]
            if b in VERBS or b + "e" in VERBS:
                return b if b in VERBS else b + "e"
            if suf in ("ing", "ed") and len(b) > 2 and b[-1] == b[-2] and b[:-1] in VERBS:   # stopped, setting
                return b[:-1]
    return w


def strip_prefix(subject):
    """(subject without a conventional-commit `type(scope)!:` or `Component:` prefix, prefix, type, scope)."""
    m = PREFIX.match(subject)
    if not m:
        return subject, "", None, None
    return subject[m.end():], m.group(0).strip(), m.group("type").lower(), m.group("scope")


def counted(cfg, changes):
    """The changes to non-test source files that were written by hand (a repository's `generated` files, such as
    committed shell completions or mocks, are not)."""
    gen = re.compile(cfg["generated"]) if cfg.get("generated") else None
    return [(s, p) for s, p in changes if is_source(p) and not is_test(p) and not (gen and gen.search(p))]


def candidate(cfg, c):
    """Why commit c is not a candidate, or None if it is one."""
    src = counted(cfg, c["changes"])
    if not 1 <= len(src) <= 6:
        return f"{len(src)} non-test source files changed"
    if not any(s == "M" for s, _ in src):
        return "no non-test source file modified"
    subject = c["message"].splitlines()[0]
    rest, _, typ, scope = strip_prefix(subject)
    if typ in DROP_TYPES:
        return f"{typ}: commit"
    if scope and scope.strip().lower() in DROP_TYPES:   # fix(types):, fix(build):, feat(docs):
        return f"({scope}) commit"
    if NOISE_SUBJECT.search(subject):
        return "subject looks like a release, merge, revert, docs, deps, CI, lint, format or typo change"
    words = re.findall(r"[A-Za-z']+", rest)
    if not words or stem(words[0]) not in VERBS:
        return "subject does not start with an action verb"
    return None


# ------------------------------------------------------------------ story text
REF = re.compile(r"\s*\((?:(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|see|ref|refs)\s+)?(?:[\w.-]+/[\w.-]+)?#\d+\)|"
                 r"[;,]?\s*\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s+(?:[\w.-]+/[\w.-]+)?#\d+\b|"
                 r"\s*(?<![\w&])(?:[\w.-]+/[\w.-]+)?#\d+\b|\s*\bGH-\d+\b|\s*<?https?://\S+>?", re.I)
TRAILER = re.compile(r"^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|"
                     r"helped-by|change-id|cc|pr-url|pr-close|issue|fixes|closes|resolves|refs|related)\s*:", re.I)
REFS_ONLY = re.compile(r"^\W*((fix(e[sd])?|close[sd]?|resolve[sd]?|ref(s|erence)?|see|related( to)?|part of|"
                       r"follow[- ]up( to| of)?|supersedes|replaces|issue|pr|and|for|to)\W*)*$", re.I)
NOISE_PARA = re.compile(
    r"^(\W*)((ci|test|tests|chore|style|docs|refactor|build|lint|wip)(\([^)]*\))?!?:|apply (automated )?fix|"
    r"apply suggestions?|address(ed)? (review|comments|feedback)|review|(add|update|fix|improve)(s|ed)? (the |a |unit |more )?"
    r"tests?\b|tests?\b|cover\b|lint|format|fmt\b|run (prettier|black|cargo fmt|gofmt)|wip\b|merge\b|typo|"
    r"(add|update|fix)\w* (the )?(snapshots?|changelog|docs|readme)|changeset|changelog|this (test|commit)\b|bump\b|revert\b|clean ?up\b|nit\b|"
    r"co-authored-by|signed-off-by|\[?pre-commit|auto[- ]?fix|this (pr|pull request)|description\b|checklist\b|\S*gitignore\b)", re.I)
# a short squash-log line about the chores around a change: "omit redundant test case", "fix changelog_unreleased"
SHORT_NOISE = re.compile(r"(\b|_)(tests?|snapshots?|changelog|lint|typo|review|ci)(\b|_)", re.I)
WORD = re.compile(r"[a-z0-9]+")


def words(s):
    return WORD.findall(s.lower())


CODE, BULLET = "\x01", "\x02"


def paragraphs(body):
    """The body's paragraphs as plain text: HTML comments, markdown headings, checklists, trailers and code blocks
    removed; a squash log's `* ` bullets each a paragraph of their own, starting with BULLET. A paragraph right before
    a code block ends with CODE."""
    body = re.sub(r"<!--.*?-->", "", body, flags=re.S)
    body = re.sub(r"```.*?(```|\Z)", "\n\n\x00\n\n", body, flags=re.S)
    out, cur = [], []
    for line in body.splitlines() + [""]:
        s = line.strip()
        if s == "\x00":
            if cur:
                out.append(" ".join(cur))
                cur = []
            if out and not out[-1].endswith(CODE):
                out[-1] += CODE
            continue
        bullet = re.match(r"^[*-]\s+", s) and not s.startswith("---")
        if (not s or bullet) and cur:
            out.append(" ".join(cur))
            cur = []
        if not s or s.startswith("#") or re.match(r"^[*-]\s*\[[ xX]\]\s", s) or TRAILER.match(s) or s.startswith("|"):
            continue
        cur.append(BULLET + re.sub(r"^[*-]\s+", "", s) if bullet else s)
    return out


def clean(text):
    text = REF.sub("", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:!?)])(?=\s|$)", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text).strip()
    return re.sub(r"[.;,]?\s*\b(see|see also|cf\.?|refs?|via|related)\s*[.:]?$", "", text, flags=re.I).strip()


def first_paragraph(subject, body):
    """The first body paragraph that says something besides the subject: not a repeat of it, not a bare issue
    reference, not a squash log's CI, review, test or formatting step; without the sentence that introduces a code
    block (`Tested with:`, `Previously Black would format this code`)."""
    sw = words(strip_prefix(clean(subject))[0])
    for p in paragraphs(body):
        if p.endswith(CODE):
            p = re.sub(r"(?:^|(?<=[.!?]))[^.!?]*$", "", p[:-1])
        bullet = p.startswith(BULLET)
        p = clean(p.lstrip(BULLET))
        if not p or REFS_ONLY.match(p) or NOISE_PARA.match(p) or (len(words(p)) < 8 and SHORT_NOISE.search(p)):
            continue
        if bullet and len(words(p)) < 5:   # a squash log's "fix pointed out", "make thread-safe"
            continue
        pw = words(strip_prefix(p)[0])
        if set(pw) <= set(sw) or (len(pw) <= len(sw) + 2 and " ".join(sw) in " ".join(pw)):
            continue
        return p
    return ""


# ------------------------------------------------------------------ what would leak the answer
STOP = set("a an and are as at be by for from in into is it of on or that the their this to was with".split())
GENERIC_STEMS = {"index", "mod", "lib", "main", "__init__", "init", "__main__"}


def norm(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def parts_of(name):
    """`ui_styles` -> ['ui', 'styles']; `serveStatic` -> ['serve', 'static']."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]


def leak_names(changes, generated=None):
    """The names a story must not use: each changed file's path and name, the folders on its path (for a scope or
    `Component:` prefix) and, for the non-test files on the case's tree (modified or deleted: an added file's stem
    points nowhere there, and a test's or a generated file's stem does not point at the answer), its stem (its folder's name for index.ts,
    mod.rs, __init__.py, ...)."""
    names, stems, folders = set(), set(), set()
    for status, p in changes:
        segs = p.split("/")
        file = segs[-1]
        stem = file.split(".", 1)[0]
        names.update({p, file})
        if stem.lower() in GENERIC_STEMS and len(segs) > 1:
            stem = segs[-2]
        if status != "A" and not is_test(p) and not (generated and generated.search(p)):
            stems.add(stem)
        folders.update(segs[:-1])
    return names, stems, folders


def names_stem(token, stems):
    """Whether an identifier equals or contains a changed file's stem, in any naming style (`UiStyles` for
    ui_styles.rs, `serveStatic` for serve-static.ts)."""
    t = norm(token)
    return any(norm(s) and (t == norm(s) or (len(norm(s)) >= 4 and norm(s) in t)) for s in stems)


def scope_leaks(scope, stems, folders):
    """A conventional-commit scope or `Component:` prefix that names a changed file or folder, or a part of one
    (`ui` of ui_styles.rs, `yaml` of language-yaml/)."""
    for piece in re.split(r"[/,|\s]+", scope):
        n = norm(piece)
        if not n:
            continue
        for s in stems | folders:
            if n == norm(s) or n in parts_of(s) or (len(n) >= 4 and (n in norm(s) or norm(s) in n)):
                return True
            if any(len(w) >= 3 and w in parts_of(s) for w in parts_of(piece)):   # `complier-sfc` for compiler-sfc/
                return True
    return False


IDENT = re.compile(r"`[^`]+`|[\w$@#:./\\-]*[\w$]+(?:\(\))?")


def is_identifier(tok):
    """Code, not a plain word: dotted, path-like, snake_case, camelCase/PascalCase with an inner capital, or with
    a call's ()."""
    t = tok.rstrip("()")
    return ("." in t.strip(".") or "/" in t or "::" in t or "_" in t.strip("_") or tok.endswith("()")
            or re.search(r"[a-z0-9][A-Z]", t) is not None or t.startswith(("$", "-")))


def scrub(text, names, stems, dropped):
    """text with every file name, path and code identifier that names a changed file removed."""
    def repl(m):
        tok = m.group(0)
        if tok.startswith("`"):
            inner = tok[1:-1]
            if re.search(r"\s", inner.strip()):   # a command or phrase: judged word by word
                kept = scrub(inner, names, stems, dropped)
                return f"`{kept}`" if kept.strip() else ""
            leak = any(n in inner for n in names) or names_stem(inner, stems)
        else:
            core = tok.strip(".:/")
            leak = any(n == core or n in core.split("/") for n in names) or (
                is_identifier(core) and names_stem(core, stems))
        if leak:
            dropped.append(tok)
            return ""
        return tok
    out = IDENT.sub(repl, text)
    out = re.sub(r"\s+", " ", out)
    out = re.sub(r"\s+([,.;:!?)])(?=\s|$)", r"\1", out)
    out = re.sub(r"\(\s*\)|``", "", out)
    out = re.sub(r"\b(to|for|in|of|on|from|with|the|a|an|and|or)\s*$", "", out.strip()).strip()
    return re.sub(r"\s+", " ", out).strip(" ,;:")


def story(cfg, c):
    """(title, description, dropped) of a candidate."""
    lines = c["message"].splitlines()
    subject = clean(lines[0]).rstrip(".")
    body = "\n".join(lines[1:])
    gen = re.compile(cfg["generated"]) if cfg.get("generated") else None
    names, stems, folders = leak_names(c["changes"], gen)
    dropped = []

    def unprefix(text):
        rest, prefix, _, scope = strip_prefix(text)
        if not prefix:
            return text
        label = scope if scope is not None else prefix.rstrip("!: ")
        if scope is None and not re.match(r"^[A-Za-z][\w-]*:$", prefix):
            return text
        if scope is None and prefix.rstrip(":").lower() in {"fix", "feat", "feature", "perf", "fixup", "bugfix"}:
            return text   # `fix: ...` says nothing about where
        if scope_leaks(label, stems, folders):
            dropped.append(prefix)
            return rest[:1].upper() + rest[1:]
        return text

    title = scrub(unprefix(subject), names, stems, dropped)
    desc = first_paragraph(lines[0], body)
    desc = scrub(unprefix(desc), names, stems, dropped) if desc else ""
    return title, desc.rstrip(".") if desc.endswith(".") and desc.count(".") == 1 else desc, dropped


# ------------------------------------------------------------------ choosing
def review():
    """review.tsv: `repo<TAB>commit prefix<TAB>skip<TAB>why` for candidates read and not taken."""
    skips = {}
    path = os.path.join(HERE, "review.tsv")
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 4 or cols[2] != "skip" or len(cols[1]) < 8:
                sys.exit(f"{path}:{n}: expected `repo<TAB>commit (8+ hex)<TAB>skip<TAB>reason`")
            skips[(cols[0], cols[1])] = cols[3]
    return skips


def ordered(cfg, mirrors):
    mirror = os.path.join(mirrors, cfg["upstream"].replace("/", "+"), "repo")
    cands = [c for c in commits(mirror, cfg["head"], cfg.get("since")) if candidate(cfg, c) is None]
    # a fixed-seed shuffle that gives each commit its place on its own: a change of the rules that adds or drops a
    # candidate does not reorder the others
    return sorted(cands, key=lambda c: hashlib.sha256(f"{SEED}:{c['commit']}".encode()).hexdigest())


def skipped(cfg, c, skips):
    """Why a candidate is not taken: review.tsv's reason, or a title too short to say anything once the names
    that would leak the answer are removed; None to take it."""
    if len([w for w in words(story(cfg, c)[0]) if w not in STOP]) < 3:
        return "under 3 words (besides stop words) once the names are removed"
    for (repo, prefix), why in skips.items():
        if repo == cfg["repo"] and c["commit"].startswith(prefix):
            return why
    return None


def case(cfg, c):
    title, desc, dropped = story(cfg, c)
    src = counted(cfg, c["changes"])
    return {"id": f"{cfg['repo']}-{c['commit'][:8]}", "repo": cfg["repo"], "title": title, "description": desc,
            "gold": sorted(p for s, p in src if s == "M"), "language": cfg["language"], "upstream": cfg["upstream"],
            "subject": c["message"].splitlines()[0], "commit": c["commit"], "parent": c["parent"],
            "added": sorted(p for s, p in c["changes"] if s == "A"), "dropped": dropped}


def take(cfg, mirrors, per_repo, wanted):
    """The cases of the first `per_repo` candidates of a repository, in reading order, that `wanted(commit)` takes."""
    taken = []
    for c in ordered(cfg, mirrors):
        if len(taken) == per_repo:
            break
        if wanted(c):
            taken.append(case(cfg, c))
    if len(taken) < per_repo:
        sys.exit(f"{cfg['repo']}: only {len(taken)} cases")
    return taken


def cases(mirrors):
    skips = review()
    return [k for cfg in REPOS for k in take(cfg, mirrors, PER_REPO, lambda c, cfg=cfg: skipped(cfg, c, skips) is None)]


def arguments(doc, here):
    """The command line every set's make-cases.py takes: --mirrors, `write [--out FILE]` and `check`; the parser and
    its subcommands, for a set to add its own."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("MIRRORS"), help="folder of <owner>+<name>/repo mirrors")
    sub = ap.add_subparsers(dest="cmd", required=True)
    wr = sub.add_parser("write", help="write the cases")
    wr.add_argument("--out", default=os.path.join(here, "cases.jsonl"))
    sub.add_parser("check", help="whether cases.jsonl is what `write` makes")
    return ap, sub


def parsed(ap):
    """The parsed command line, or None (said on stderr) when there is no mirror folder."""
    a = ap.parse_args()
    if not a.mirrors or not os.path.isdir(a.mirrors):
        print("make-cases.py: no mirror folder (pass --mirrors DIR or set MIRRORS)", file=sys.stderr)
        return None
    return a


def main():
    ap, sub = arguments(__doc__, HERE)
    ls = sub.add_parser("list", help="the candidates of one repository in reading order, with their stories")
    ls.add_argument("repo", choices=[r["repo"] for r in REPOS])
    ls.add_argument("--n", type=int, default=30)
    a = parsed(ap)
    if a is None:
        return 2
    if a.cmd == "list":
        cfg = next(r for r in REPOS if r["repo"] == a.repo)
        skips, taken = review(), 0
        for i, c in enumerate(ordered(cfg, a.mirrors)[:a.n]):
            why = skipped(cfg, c, skips)
            k = case(cfg, c)
            if why is None:
                taken += 1
            mark = f"SKIP ({why})" if why else (f"TAKE {taken}" if taken <= PER_REPO else "spare")
            print(f"{i + 1:>3} {c['commit'][:10]} {c['date'][:10]} {mark}\n    subject: {k['subject']}\n"
                  f"    title:   {k['title']}\n    desc:    {k['description'][:400]}\n    gold:    {k['gold']}"
                  f"  added: {k['added']}  dropped: {k['dropped']}\n    changes: "
                  + " ".join(f"{s}:{p}" for s, p in c["changes"][:12]))
        return 0
    return emit(a, cases(a.mirrors), os.path.join(HERE, "cases.jsonl"))


def emit(a, rows, committed):
    """`check`: whether `committed` holds `rows` (exit code 1 if not); `write`: write them to `a.out` whole (a
    temporary file renamed over it)."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if a.cmd == "check":
        with open(committed) as f:
            same = f.read() == text
        print("cases.jsonl is up to date" if same else "cases.jsonl differs from what `write` makes")
        return 0 if same else 1
    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(os.path.abspath(a.out)), delete=False) as f:
        f.write(text)
    os.replace(f.name, a.out)
    print(f"{a.out}: {len(rows)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
