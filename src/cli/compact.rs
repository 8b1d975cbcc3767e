//! `ralph compact`: compact progress.txt without losing anything.
//!
//! The edge only: builds [`Options`] from the flags, runs the policy ([`progress::compact`]),
//! writes through [`progress::store`], prints text, a diff or JSON. What is kept and how the
//! summary is built is in `src/progress/`; see specs/progress.md.

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

use super::ctx::Ctx;
use super::envelope::{Envelope, Problem};
use crate::agent::{AgentSpec, PromptMode};
use crate::config::{Layer, Settings};
use crate::exit::Code;
use crate::progress::compact::{self, Options};
use crate::progress::{self, CommandSummarizer, Stats, SummaryMethod, store};

/// Who writes the summary of old entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum SummarizerKind {
    /// Story lines plus every learning line, duplicates merged (no agent, always available).
    #[default]
    Deterministic,
    /// Ask an agent (Summary / Key Decisions / Resolution); fall back to deterministic when its
    /// answer is empty, not shorter, or drops a learning line.
    Agent,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Compact only when progress.txt has more lines than this [default: 400].
    #[arg(long, value_name = "LINES")]
    pub threshold: Option<usize>,
    /// Lines of recent entries to keep verbatim (whole entries) [default: 200].
    #[arg(long, value_name = "LINES")]
    pub keep_recent: Option<usize>,
    /// Print the unified diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Compact even under the threshold.
    #[arg(long)]
    pub force: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Who summarises the old entries.
    #[arg(long, value_enum, default_value_t)]
    pub summarizer: SummarizerKind,
    /// The agent command for `--summarizer agent` (split like a shell would, never run through
    /// one; prompt on stdin, answer on stdout). Default: the agent `ralph run` would use
    /// (`[agent]` in ralph.toml, `RALPH_AGENT`/`RALPH_AGENT_CMD`).
    #[arg(long, value_name = "CMD")]
    pub summarizer_cmd: Option<String>,
    /// Seconds the agent may take before it is killed and the deterministic summary is used.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub summarizer_timeout: u64,
}

/// The options, or a usage message. Threshold and keep-recent come from the flags, then
/// `RALPH_COMPACT_*`, then `[compact]` in ralph.toml. The summarizer agent is `--summarizer-cmd`,
/// else the agent `ralph run` would use (flags aside: env, then ralph.toml), when it reads its
/// prompt on stdin.
fn options(args: &CompactArgs, settings: &Settings) -> Result<Options, String> {
    let mut opts = Options {
        threshold: settings.compact_threshold,
        keep_recent: settings.compact_keep_recent,
        force: args.force,
        summarizer: None,
    };
    match args.summarizer {
        SummarizerKind::Deterministic if args.summarizer_cmd.is_some() => {
            return Err("--summarizer-cmd is only used with --summarizer agent".into());
        }
        SummarizerKind::Deterministic => {}
        SummarizerKind::Agent => {
            let timeout = Duration::from_secs(args.summarizer_timeout);
            let explicit = args
                .summarizer_cmd
                .as_deref()
                .filter(|c| !c.trim().is_empty());
            let s = match explicit {
                Some(cmd) => CommandSummarizer::from_command_line(cmd, timeout),
                None => {
                    let spec = AgentSpec::resolve(
                        settings.agent,
                        settings.agent_cmd.as_deref(),
                        settings.prompt_mode,
                    )
                    .map_err(|e| e.to_string())?;
                    if spec.prompt_mode != PromptMode::Stdin {
                        return Err(format!(
                            "--summarizer agent: the configured agent ({}) takes its prompt as an argument or file; pass --summarizer-cmd \"<program> <args>\" (prompt on stdin) or set RALPH_AGENT_CMD",
                            spec.kind.name()
                        ));
                    }
                    CommandSummarizer::new(spec.argv, timeout)
                }
            }
            .map_err(|e| e.to_string())?;
            opts.summarizer = Some(Arc::new(s));
        }
    }
    Ok(opts)
}

fn stats_json(s: &Stats) -> serde_json::Value {
    let (summary, reason) = match &s.method {
        SummaryMethod::Deterministic => ("deterministic", None),
        SummaryMethod::Agent => ("agent", None),
        SummaryMethod::Fallback(why) => ("fallback", Some(why.as_str())),
    };
    json!({
        "lines_before": s.lines_before,
        "lines_after": s.lines_after,
        "entries_compacted": s.entries_compacted,
        "entries_kept": s.entries_kept,
        "stories": s.stories,
        "learnings": s.learnings,
        "duplicates_merged": s.duplicates_merged,
        "summary": summary,
        "fallback_reason": reason,
    })
}

fn describe(s: &Stats) -> String {
    format!(
        "{} -> {} lines; {} entries summarised ({} stories, {} learnings, {} duplicates merged), {} kept verbatim",
        s.lines_before,
        s.lines_after,
        s.entries_compacted,
        s.stories,
        s.learnings,
        s.duplicates_merged,
        s.entries_kept
    )
}

pub(crate) fn compact(ctx: &Ctx, args: CompactArgs) -> anyhow::Result<Code> {
    let settings = ctx.settings(&Layer {
        compact_threshold: args.threshold,
        compact_keep_recent: args.keep_recent,
        ..Layer::default()
    })?;
    // A usage error goes through main like every error: exit 2, an envelope with --json.
    let opts = options(&args, &settings).map_err(crate::exit::Usage)?;
    let path = progress::path_in(&ctx.root);
    let original = store::read(&path)?;
    let shown = path.display();
    let c = match compact::compact(&original.bytes, &opts) {
        Ok(c) => c,
        Err(why) => {
            if args.json {
                Envelope::new(
                    "compact",
                    json!({"status": "nothing", "path": shown.to_string(), "reason": why.to_string()}),
                )
                .emit()?;
            } else {
                println!("{shown}: {why}");
            }
            return Ok(Code::OK);
        }
    };
    let mut warnings = Vec::new();
    if let SummaryMethod::Fallback(why) = &c.stats.method {
        let text = format!("agent summary not used ({why}); wrote the deterministic summary");
        eprintln!("warning: {text}");
        warnings.push(Problem::new("summary-fallback", text).file(&shown));
    }
    if args.dry_run {
        return print_dry_run(&args, &original, &c, &shown.to_string(), warnings);
    }
    // A running loop (or another compact) writes progress.txt: never race it. Taken only to
    // write; `commit` refuses a file changed since it was read.
    let _lock = crate::state::lock::Lock::acquire(&ctx.root)?;
    let summary =
        store::commit(&ctx.root, &original, &c).with_context(|| format!("compacting {shown}"))?;
    if args.json {
        let mut v = stats_json(&c.stats);
        v["status"] = json!("compacted");
        v["path"] = json!(shown.to_string());
        v["archive"] = json!(summary.archive.display().to_string());
        Envelope::new("compact", v).warnings(warnings).emit()?;
    } else {
        println!("compacted {shown}: {}", describe(&c.stats));
        println!(
            "original saved to {}",
            ctx.root.join(&summary.archive).display()
        );
    }
    Ok(Code::OK)
}

/// `--dry-run`: the diff compaction would make and what it would do; nothing written.
fn print_dry_run(
    args: &CompactArgs,
    original: &store::Original,
    c: &compact::Compacted,
    shown: &str,
    warnings: Vec<Problem>,
) -> anyhow::Result<Code> {
    let old = String::from_utf8_lossy(&original.bytes);
    let new = String::from_utf8_lossy(&c.bytes);
    let diff = similar::TextDiff::configure()
        .timeout(Duration::from_secs(5))
        .diff_lines(&old, &new);
    let diff = diff
        .unified_diff()
        .context_radius(3)
        .header("progress.txt", "progress.txt (compacted)")
        .to_string();
    if args.json {
        let mut v = stats_json(&c.stats);
        v["status"] = json!("dry-run");
        v["path"] = json!(shown);
        v["diff"] = json!(diff);
        Envelope::new("compact", v).warnings(warnings).emit()?;
    } else {
        print!("{diff}");
        eprintln!(
            "dry run: would compact {shown}: {}; nothing written",
            describe(&c.stats)
        );
    }
    Ok(Code::OK)
}
