//! The examples at the end of every command's `--help` (clap's `after_help`), kept in one table,
//! and attaching them to a clap [`Command`] (the parent module's `command()` attaches them to the
//! derived `Cli`: what the binary parses with and what `ralph completions` and `ralph man`
//! render). A leaf: does not own the flags (each command's file does), nor name `Cli`.

use clap::Command;

/// (the subcommand path, its examples); the empty path is `ralph` itself.
pub(super) const EXAMPLES: &[(&[&str], &str)] = &[
    (
        &[],
        "Examples:
  ralph init                      set ralph up in this project
  ralph validate                  check prd.json
  ralph status                    every story's state
  ralph run 20 --verify \"cargo test\"
  ralph demo                      the whole loop on an example project

Colour follows --color, NO_COLOR and whether output is a terminal; RALPH_LOG=debug (or -v)
prints debug events on stderr.",
    ),
    (
        &["validate"],
        "Examples:
  ralph validate
  ralph validate --strict --json
  ralph validate other/prd.json tasks/prd.json
  ralph -q validate               print nothing unless there are errors",
    ),
    (
        &["status"],
        "Examples:
  ralph status
  ralph status --json
  ralph status --json | jq .data.run     the live run: paused, claims, held stories, notes
  ralph --prd tasks/prd.json status",
    ),
    (
        &["next"],
        "Examples:
  ralph next
  ralph next --explain            why each other unfinished story is not next",
    ),
    (
        &["graph"],
        "Examples:
  ralph graph | dot -Tsvg > graph.svg
  ralph graph --format mermaid",
    ),
    (
        &["run"],
        "Examples:
  ralph run                       up to 10 iterations with Claude Code
  ralph run 25 --agent codex --verify \"cargo test\"
  ralph run --tool amp            --tool is --agent, as in the original Ralph
  ralph run --agent-cmd \"my-agent --fast\" --prompt-mode arg
  ralph run --dry-run             the chosen story, the exact argv and prompt; runs nothing
  ralph run --story US-003        start with this (ready) story
  ralph run --parallel 4          up to 4 stories at once, each in its own git worktree
  ralph run --dry-run --parallel 4 --explain   the waves it would run and why a story waits
  ralph run --allow-dirty         start with uncommitted changes (the agent may commit them)
  ralph run 20 --json | jq .event one JSON object per event on stdout, for tools
  ralph run 30 --max-cost 5       no new iteration once the agents reported $5 spent (exit 5)
  ralph run --review --review-agent codex   a fresh codex reviews each gated story's diff",
    ),
    (
        &["pause"],
        "Examples:
  ralph pause                     from another terminal: no new iteration or claim starts
  ralph pause --json | jq .data.message
  ralph --root ~/shop pause       the run of another project

The running agents finish; `ralph resume` goes on. Exit 1 when no run is active.",
    ),
    (
        &["resume"],
        "Examples:
  ralph resume
  ralph resume --json",
    ),
    (
        &["steer"],
        "Examples:
  ralph steer \"use the new API client, not raw fetch\"     every story's next prompts
  ralph steer --story US-003 \"leave the schema alone\"     only US-003's prompts
  ralph steer - < guidance.md     the note from stdin
  ralph steer --json \"run the linter too\" | jq .data.status

A note goes into the prompts that start after it, until the run ends (a running agent does not
see it), is kept in .ralph/history.jsonl and shown by `ralph show` and `ralph status`.",
    ),
    (
        &["skip"],
        "Examples:
  ralph skip US-003               held for the rest of the run, like a BLOCKED story
  ralph skip US-003 --json

A running attempt of it finishes first (and lands if it passes its checks).",
    ),
    (
        &["retry"],
        "Examples:
  ralph retry US-003              released: it can run again, its strikes start over
  ralph retry US-003 --json",
    ),
    (
        &["demo"],
        "Examples:
  ralph demo                      in a new temp dir
  ralph demo /tmp/ralph-demo",
    ),
    (
        &["report"],
        "Examples:
  ralph report                    the latest run: a table per story, then totals
  ralph report --format md        a markdown table for a PR description
  ralph report --format html --out report.html   one self-contained page with a timeline
  ralph report --run all          every run in .ralph/history.jsonl
  ralph report --run 20261126T100000-5151 --json",
    ),
    (
        &["show"],
        "Examples:
  ralph show US-002               attempts, commits, files changed, progress entry, agent time
  ralph show US-002 --json | jq .data.files_changed",
    ),
    (
        &["context"],
        "Examples:
  ralph context US-002
  ralph context US-002 --explain
  ralph context US-002 --budget 8000 --agent codex > prompt.md",
    ),
    (
        &["patterns"],
        "Examples:
  ralph patterns                  the error patterns learned: id, uses, command, fix
  ralph patterns --json | jq '.data.patterns[].id'
  ralph patterns forget 3fa2c1    drop one (a unique prefix of its id is enough)",
    ),
    (
        &["patterns", "forget"],
        "Examples:
  ralph patterns forget 3fa2c1b9e0
  ralph patterns forget 3fa2      a prefix that names one pattern",
    ),
    (
        &["compact"],
        "Examples:
  ralph compact                   only if progress.txt is over 400 lines
  ralph compact --force --keep-recent 120
  ralph compact --dry-run         print the diff, write nothing",
    ),
    (
        &["clean"],
        "Examples:
  ralph clean --dry-run           what would go: runs, rejected copies, archives, with sizes;
                                  and the story branches kept with unmerged work, and why
  ralph clean                     older than 14d and beyond the newest 20 of each kind
  ralph clean --drop US-003       also delete US-003's unmerged story branch and attempt refs
  ralph clean --older-than 2w --keep 5
  ralph clean --keep 0 --older-than 0   everything but archives git tracks
  ralph clean --json | jq .data.freed",
    ),
    (
        &["doctor"],
        "Examples:
  ralph doctor                    the agent ralph run would use, git, verify, prd.json, disk
  ralph doctor --agent codex      another agent's CLI: found, version, flags, credentials
  ralph doctor --json | jq '.errors'",
    ),
    (
        &["pin"],
        "Examples:
  ralph pin generate
  ralph pin check
  ralph pin search parse the config file",
    ),
    (
        &["pin", "generate"],
        "Examples:
  ralph pin generate              create or update specs/INDEX.md
  ralph pin generate --check      exit 1 with a diff when it is out of date
  ralph pin generate --stdout",
    ),
    (
        &["pin", "check"],
        "Examples:
  ralph pin check",
    ),
    (
        &["pin", "search"],
        "Examples:
  ralph pin search render table
  ralph pin search --files -- add a --draft flag

Words after `--` may start with a dash.",
    ),
    (
        &["prd"],
        "Examples:
  ralph prd convert --to snarktank --dry-run
  ralph prd import tasks/prd-tags.md",
    ),
    (
        &["prd", "convert"],
        "Examples:
  ralph prd convert --to snarktank --dry-run
  ralph prd convert --to snarktank",
    ),
    (
        &["prd", "import"],
        "Examples:
  ralph prd import tasks/prd-tags.md
  ralph prd import tasks/prd-tags.md --out prd.json --force",
    ),
    (
        &["init"],
        "Examples:
  ralph init
  ralph init --from tasks/prd-tags.md",
    ),
    (
        &["completions"],
        "Examples:
  ralph completions bash > ~/.local/share/bash-completion/completions/ralph
  ralph completions zsh > ~/.zfunc/_ralph
  ralph completions fish > ~/.config/fish/completions/ralph.fish",
    ),
    (
        &["man"],
        "Examples:
  ralph man > ~/.local/share/man/man1/ralph.1
  ralph man | man -l -",
    ),
    (
        &["instructions"],
        "Examples:
  ralph instructions > prompt.md  then set [agent] instructions = \"prompt.md\" in ralph.toml
  ralph instructions --agent codex
  ralph instructions --reviewer > review.md  then [review] instructions = \"review.md\"",
    ),
];

/// Attach `text` as the after-help of the subcommand at `path` under `cmd`.
fn attach(cmd: Command, path: &[&str], text: &'static str) -> Command {
    match path.split_first() {
        None => cmd.after_help(text),
        Some((first, rest)) => cmd.mut_subcommand(*first, |sub| attach(sub, rest, text)),
    }
}

/// `cmd` (the derived `Cli`'s command) with every command's examples.
pub(crate) fn with_examples(cmd: Command) -> Command {
    EXAMPLES
        .iter()
        .fold(cmd, |cmd, (path, text)| attach(cmd, path, text))
}
