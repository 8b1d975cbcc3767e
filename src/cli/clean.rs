//! `ralph clean [--older-than 14d] [--keep 20] [--drop NAME]… [--dry-run] [--json]`: remove old
//! run folders, rejected copies and archives; retire the worktrees a killed run left (their
//! work saved first), delete the refs of ralph's that `branchName` already contains, list the
//! ones with unmerged work it keeps and why (deleted only when `--drop` names them). The policy
//! and the sweeps are `crate::clean`'s; this file reads the limits (flags > `RALPH_CLEAN_*` >
//! `[clean]` in ralph.toml > defaults), takes the project lock (never removing under a running
//! `ralph run`), and prints what went per kind with sizes, or the `--json` envelope.

use clap::Args;
use serde_json::{Value, json};
use std::time::Duration;

use super::ctx::Ctx;
use super::envelope::{Envelope, Problem};
use crate::clean::sweep::{self, Sweep};
use crate::clean::work::{self, Work};
use crate::clean::{Category, Item, Keep, Limits, format_age, human_bytes, summary};
use crate::config::{self, Layer};
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Remove only what is older than this: 14d, 2w, 36h, 90m, 0 (default 14d, or [clean]
    /// older_than in ralph.toml).
    #[arg(long, value_name = "AGE", value_parser = config::parse_age)]
    pub older_than: Option<Duration>,
    /// Always keep the newest N of each kind (default 20, or [clean] keep); 0 keeps none.
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Delete this kept work although the branch lacks it: a story id (its story branch and
    /// attempt refs), a story branch or an attempt ref (repeatable; `--dry-run` lists them).
    #[arg(long, value_name = "NAME")]
    pub drop: Vec<String>,
    /// List what would be removed; remove nothing, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print what was removed as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn clean(ctx: &Ctx, args: CleanArgs) -> anyhow::Result<Code> {
    let settings = ctx
        .settings(&Layer {
            clean_older_than: args.older_than,
            clean_keep: args.keep,
            ..Layer::default()
        })?
        .clean;
    let limits = Limits::from(&settings);
    // A running `ralph run` writes its run folder and rejected copies: never remove under it. A
    // dry run writes nothing, not even the lock file.
    let _lock = if args.dry_run {
        None
    } else {
        Some(crate::state::lock::Lock::acquire(&ctx.root)?)
    };
    // The kept work first: a `--drop` naming nothing stops the clean before anything goes.
    let prd = crate::prd::Prd::load(&ctx.prd_path).ok();
    let work = work::clean(&ctx.root, prd.as_ref(), &args.drop, args.dry_run)?;
    let report = sweep::clean(&ctx.root, limits, args.dry_run);
    let failed = !report.failed.is_empty() || !work.failed.is_empty();
    if args.json {
        envelope(&report, limits, &work).emit()?;
        return Ok(if failed { Code::ERROR } else { Code::OK });
    }
    super::stdout::emit(&(work::text(&work, args.dry_run) + &text(&report, limits)))?;
    for (k, why) in &work.failed {
        crate::say!("warning: could not delete {}: {why}", k.short());
    }
    for w in &report.warnings {
        crate::say!("warning: {w}");
    }
    if !report.failed.is_empty() {
        let lines: Vec<String> = report
            .failed
            .iter()
            .map(|(i, why)| format!("{}: {why}", ctx.root.join(&i.path).display()))
            .collect();
        anyhow::bail!(
            "could not remove {} of them (the others were removed):\n  {}",
            lines.len(),
            lines.join("\n  ")
        );
    }
    Ok(Code::OK)
}

/// The text a person reads: per kind what went (or would), the tracked archives kept, the total.
fn text(r: &Sweep, limits: Limits) -> String {
    let verb = if r.dry_run { "would remove" } else { "removed" };
    let mut out = String::new();
    for c in Category::ALL {
        let items: Vec<&Item> = r.removed().filter(|i| i.category == c).collect();
        if let Some(what) = summary(items.iter().copied(), "") {
            out.push_str(&format!("{verb} {what}:\n"));
            for i in items {
                out.push_str(&format!("  {}  {}\n", i.path.display(), describe(i)));
            }
        }
    }
    let tracked: Vec<&Item> = r.plan.kept(Keep::Tracked).collect();
    if !tracked.is_empty() {
        out.push_str("kept, tracked by git (removing it would leave the work tree dirty):\n");
        for i in tracked {
            out.push_str(&format!(
                "  {}  {}; to remove it: {}\n",
                i.path.display(),
                describe(i),
                sweep::git_rm_hint(i)
            ));
        }
    }
    let kept = r
        .plan
        .decisions
        .iter()
        .filter(|d| d.keep.is_some_and(|k| k != Keep::Tracked))
        .count();
    let rule = format!(
        "newer than {} or among the newest {} of each kind",
        format_age(limits.older_than),
        limits.keep
    );
    match (summary(r.removed(), ""), r.dry_run) {
        (None, _) => out.push_str(&format!("nothing to remove ({kept} kept: {rule})\n")),
        (Some(_), true) => out.push_str(&format!(
            "dry run: nothing removed; `ralph clean` would free {} ({kept} kept: {rule})\n",
            human_bytes(r.freed())
        )),
        (Some(_), false) => out.push_str(&format!(
            "freed {} ({kept} kept: {rule})\n",
            human_bytes(r.freed())
        )),
    }
    out
}

/// "4.1 KB, from 2026-11-02".
fn describe(i: &Item) -> String {
    let day = i
        .time
        .to_zoned(jiff::tz::TimeZone::system())
        .strftime("%Y-%m-%d %H:%M")
        .to_string();
    format!("{}, from {day}", human_bytes(i.bytes))
}

fn item_json(i: &Item) -> Value {
    json!({
        "category": i.category,
        "path": i.path.display().to_string(),
        "bytes": i.bytes,
        "time": i.time.to_string(),
    })
}

/// A kept ref in the envelope, with why when it is kept.
fn kept_json(k: &crate::kept::Kept, why: Option<&str>) -> Value {
    let mut v = json!(k);
    if let Some(w) = why {
        v["why"] = json!(w);
    }
    v
}

/// `ralph clean --json`: what went (or would), the tracked archives kept, the kept work, the
/// failures.
fn envelope(r: &Sweep, limits: Limits, w: &Work) -> Envelope {
    let kept = |c: Category| {
        r.plan
            .decisions
            .iter()
            .filter(|d| d.item.category == c && d.keep.is_some())
            .count()
    };
    let tracked: Vec<Value> = r
        .plan
        .kept(Keep::Tracked)
        .map(|i| {
            let mut v = item_json(i);
            v["hint"] = json!(sweep::git_rm_hint(i));
            v
        })
        .collect();
    let data = json!({
        "dry_run": r.dry_run,
        "older_than": format_age(limits.older_than),
        "keep": limits.keep,
        "removed": r.removed().map(item_json).collect::<Vec<_>>(),
        "tracked": tracked,
        "kept": {
            "runs": kept(Category::Runs),
            "rejected": kept(Category::Rejected),
            "archives": kept(Category::Archives),
        },
        "freed": r.freed(),
        "work": {
            "branch": w.branch,
            "worktrees": w.worktrees.iter().map(|(p, said)| json!({
                "path": p.display().to_string(),
                "what": said,
            })).collect::<Vec<_>>(),
            "deleted": w.deleted.iter().map(|k| kept_json(k, None)).collect::<Vec<_>>(),
            "kept": w.kept.iter().map(|(k, why)| kept_json(k, Some(why))).collect::<Vec<_>>(),
            "dropped": w.dropped.iter().map(|k| kept_json(k, None)).collect::<Vec<_>>(),
        },
    });
    let errors = r
        .failed
        .iter()
        .map(|(i, why)| {
            Problem::new("io", format!("cannot remove {}: {why}", i.path.display()))
                .file(i.path.display())
        })
        .chain(
            w.failed
                .iter()
                .map(|(k, why)| Problem::new("git", format!("cannot delete {}: {why}", k.name))),
        );
    let warnings = r
        .warnings
        .iter()
        .map(|w| Problem::new("not-cleaned", w.clone()));
    Envelope::new("clean", data)
        .errors(errors)
        .warnings(warnings)
}
