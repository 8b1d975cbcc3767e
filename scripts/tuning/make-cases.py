#!/usr/bin/env python3
"""Build the tuning set: a third set of context cases, for deciding changes to "where to look" on more than
context-bench's 48 cases, never the held-out set's.

    make-cases.py [--mirrors DIR] write [--out FILE]    the cases (default: cases.jsonl next to this script)
    make-cases.py [--mirrors DIR] check                 whether cases.jsonl is what `write` makes (exit 1 if not)

The held-out set's rules (../heldout/make-cases.py: candidates, story, what leaks the answer, gold), applied to ten
other repositories with another seed and no reading by hand: the first PER_REPO candidates of each in hash order whose
story keeps 3 words, and whose tree the mirror holds whole (a mirror may lack a large committed binary). Without the
reading step some stories say little ("Fix dts files"); that is the set's noise, kept rather than chosen away.

Standard library only; reads the mirrors with git and never writes to them.
"""
import importlib.util, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("heldout_cases", os.path.join(HERE, "..", "heldout", "make-cases.py"))
rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rules)
rules.SEED = "ralph-tuning-1"
PER_REPO = 15

# Each history is read from a fixed commit (the newest fetched when the set was made).
REPOS = [
    {"repo": "fd", "upstream": "sharkdp/fd", "language": "Rust", "head": "ee20f426ddf338ac7ead5c5f00ea49258005caaf"},
    {"repo": "rg", "upstream": "BurntSushi/ripgrep", "language": "Rust",
     "head": "3fce3b5bb0236da2df6d99672afb8a719642eca7"},
    {"repo": "ucli", "upstream": "urfave/cli", "language": "Go", "head": "1305a08200f7c4d873e28bd2bbad1ff257c6cfc4"},
    {"repo": "tea", "upstream": "charmbracelet/bubbletea", "language": "Go",
     "head": "73b6d91ac1c3854dd4af046ab5f9e51d3b3b4290"},
    {"repo": "click", "upstream": "pallets/click", "language": "Python",
     "head": "2c8cd3ac958a7eb316d67f2d316c27086c4c0369"},
    {"repo": "httpx", "upstream": "encode/httpx", "language": "Python",
     "head": "ae1b9f66238f75ced3ced5e4485408435de10768"},
    {"repo": "zod", "upstream": "colinhacks/zod", "language": "TypeScript",
     "head": "e516c3baf22615e20934116abebfed6c000222c2"},
    {"repo": "express", "upstream": "expressjs/express", "language": "JavaScript",
     "head": "a3714473feb3d2908add734d340e7755fd85e0a3"},
    # Added 2026-11-28: Go projects of many small packages, the kind where ralph did worst (issue 26).
    {"repo": "lazygit", "upstream": "jesseduffield/lazygit", "language": "Go",
     "head": "ea916395469808d37d726ae183fa40fd575a9d8a"},
    {"repo": "hugo", "upstream": "gohugoio/hugo", "language": "Go",
     "head": "7b5199fdeff7d7682e9f979f468d55bc7b67b934"},
]


def whole(mirror, commit):
    """Whether the mirror holds every file of `commit`'s tree."""
    tree = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "-r", "--object-only", commit], capture_output=True,
                          text=True, check=True).stdout
    blobs = subprocess.run(["git", "--git-dir", mirror, "cat-file", "--batch-check"], input=tree,
                           capture_output=True, text=True, check=True).stdout
    return " missing" not in blobs


def cases(mirrors):
    out = []
    for cfg in REPOS:
        mirror = os.path.join(mirrors, cfg["upstream"].replace("/", "+"), "repo")
        def wanted(c, cfg=cfg, mirror=mirror):
            return rules.skipped(cfg, c, {}) is None and whole(mirror, c["parent"])
        out += rules.take(cfg, mirrors, PER_REPO, wanted)
    return out


def main():
    a = rules.parsed(rules.arguments(__doc__, HERE)[0])
    if a is None:
        return 2
    return rules.emit(a, cases(a.mirrors), os.path.join(HERE, "cases.jsonl"))


if __name__ == "__main__":
    sys.exit(main())
