//! `ralph pin generate | check | search`: the edge of [`crate::pin`] (printing, exit codes).

use anyhow::Context;
use clap::{Args, Subcommand};
use serde_json::json;

use super::ctx::Ctx;
use super::envelope::{self, Envelope, Problem};
use super::no_pin::NoPin;
use super::stdout::emit;
use crate::exit::Code;
use crate::index::{PinEvidence, QueryTerm, as_written, written_words};
use crate::pin::search::Found;
use crate::pin::{self, INDEX_PATH, check::Severity};

#[derive(Debug, Args)]
pub struct PinArgs {
    #[command(subcommand)]
    pub command: PinCommand,
}

#[derive(Debug, Subcommand)]
pub enum PinCommand {
    /// Generate or update specs/INDEX.md from the source tree (keeps everything a person wrote).
    Generate {
        /// Write nothing; exit 1 and print a diff when the file would change.
        #[arg(long, conflicts_with = "stdout")]
        check: bool,
        /// Print the result instead of writing it.
        #[arg(long)]
        stdout: bool,
    },
    /// Validate specs/INDEX.md: paths, spec links, names, keyword counts.
    Check {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rank Pin entries (or, with --files, the project's files) for free text.
    Search {
        /// The words to search for (put them after `--` when one starts with a dash).
        #[arg(required = true)]
        words: Vec<String>,
        /// How many hits to print.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Rank files (the code index, as the prompt's "where to look" does) instead of entries.
        #[arg(long)]
        files: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn pin(ctx: &Ctx, args: PinArgs) -> anyhow::Result<Code> {
    match args.command {
        PinCommand::Generate { check, stdout } => generate(ctx, check, stdout),
        PinCommand::Check { json } => check(ctx, json),
        PinCommand::Search {
            words,
            limit,
            files,
            json,
        } => {
            let query = crate::index::query(&words.join(" "), "");
            if files {
                search_files(ctx, &query, limit, json)
            } else {
                search(ctx, &query, limit, json)
            }
        }
    }
}

fn generate(ctx: &Ctx, check: bool, stdout: bool) -> anyhow::Result<Code> {
    // The index is saved only by a run that writes the Pin.
    let out = pin::generate::generate(&ctx.root, !check && !stdout)
        .with_context(|| format!("cannot generate the Pin for {}", ctx.root.display()))?;
    if let Some(w) = &out.index_warning {
        crate::say!("warning: {w}");
    }
    for (name, path) in &out.summary.dropped {
        crate::say!(
            "{INDEX_PATH}: entry \"{name}\": removed `{path}`, which matches nothing any more"
        );
    }
    for name in &out.summary.stale {
        crate::say!(
            "warning: {INDEX_PATH}: entry \"{name}\": none of its files exist any more (flagged stale; update its paths or remove it)"
        );
    }
    if stdout {
        emit(&out.text)?;
        return Ok(Code::OK);
    }
    if check {
        return check_generated(out.old.as_deref(), &out.text);
    }
    if out.old.as_deref() == Some(out.text.as_str()) {
        crate::say!(
            "{INDEX_PATH}: unchanged ({} entries)",
            out.pin.entries().len()
        );
        return Ok(Code::OK);
    }
    let path = ctx.root.join(INDEX_PATH);
    if let Some(dir) = path.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    crate::fsutil::atomic_write(&path, out.text.as_bytes())?;
    let s = &out.summary;
    crate::say!(
        "{INDEX_PATH}: {} entries ({} added, {} updated, {} stale)",
        out.pin.entries().len(),
        s.added.len(),
        s.updated.len(),
        s.stale.len()
    );
    Ok(Code::OK)
}

/// `pin generate --check`: whether the Pin on disk (`old`) is what generate writes (`text`);
/// if not, the diff on stdout and exit 1.
fn check_generated(old: Option<&str>, text: &str) -> anyhow::Result<Code> {
    if old == Some(text) {
        crate::say!("{INDEX_PATH} is up to date");
        return Ok(Code::OK);
    }
    let diff = similar::TextDiff::from_lines(old.unwrap_or(""), text);
    emit(
        &diff
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{INDEX_PATH}"), &format!("b/{INDEX_PATH}"))
            .to_string(),
    )?;
    eprintln!("{INDEX_PATH} is out of date; run `ralph pin generate` to update it");
    Ok(Code::ERROR)
}

fn check(ctx: &Ctx, as_json: bool) -> anyhow::Result<Code> {
    let path = ctx.root.join(INDEX_PATH);
    if !path.exists() {
        return Err(NoPin { path }.into());
    }
    let p = pin::load(&ctx.root).context("cannot check the Pin")?;
    let diags = pin::check::check(&p, &ctx.root);
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if as_json {
        let (errs, warns) = envelope::from_pin_check(INDEX_PATH, &diags);
        Envelope::new(
            "pin check",
            json!({"file": INDEX_PATH, "entries": p.entries().len(), "valid": errors == 0}),
        )
        .errors(errs)
        .warnings(warns)
        .emit()?;
        return Ok(if errors > 0 { Code::ERROR } else { Code::OK });
    }
    for d in &diags {
        eprintln!("{INDEX_PATH}:{d}");
    }
    let summary = format!(
        "{INDEX_PATH}: {} entries, {errors} errors, {} warnings",
        p.entries().len(),
        diags.len() - errors
    );
    if errors > 0 {
        eprintln!("{summary}");
        Ok(Code::ERROR)
    } else {
        emit(&format!("{summary}\n"))?;
        Ok(Code::OK)
    }
}

/// The warning for a search of an empty (or missing) Pin.
fn empty_pin() -> Problem {
    Problem::new(
        "empty-pin",
        format!("{INDEX_PATH} has no entries; run `ralph pin generate` first"),
    )
    .file(INDEX_PATH)
}

fn search(ctx: &Ctx, q: &[QueryTerm], limit: usize, as_json: bool) -> anyhow::Result<Code> {
    let pin = pin::searchable(&ctx.root, true).context("cannot search the Pin")?;
    let query = written_words(q);
    let mut found = pin.search(&query, limit);
    for f in &mut found {
        f.hit.matched = f.hit.matched.iter().map(|m| as_written(q, m)).collect();
    }
    if as_json {
        let list: Vec<_> = found
            .iter()
            .map(|Found { hit: h, entry: e }| {
                json!({
                    "name": e.name, "score": (h.score * 1000.0).round() / 1000.0,
                    "matched": h.matched, "keywords": e.keywords(), "files": e.files, "spec": e.spec,
                })
            })
            .collect();
        let mut env = Envelope::new(
            "pin search",
            json!({"query": query, "kind": "entries", "hits": list}),
        );
        if pin.digest.is_empty() {
            env.warnings.push(empty_pin());
        }
        env.emit()?;
        return Ok(Code::OK);
    }
    if pin.digest.is_empty() {
        eprintln!("{INDEX_PATH} has no entries; run `ralph pin generate` first");
        return Ok(Code::OK);
    }
    if found.is_empty() {
        eprintln!("no entry matches: {query}");
    }
    let mut text = String::new();
    for (rank, Found { hit: h, entry: e }) in found.iter().enumerate() {
        text += &format!(
            "{}. {}  (score {:.3}; matched: {})\n   files: {}\n",
            rank + 1,
            e.name,
            h.score,
            h.matched.join(", "),
            e.files.join(", ")
        );
        if let Some(spec) = &e.spec {
            text += &format!("   spec: {spec}\n");
        }
    }
    emit(&text)?;
    Ok(Code::OK)
}

/// `--files`: the files the prompt's "where to look" would name for these words.
fn search_files(ctx: &Ctx, q: &[QueryTerm], limit: usize, as_json: bool) -> anyhow::Result<Code> {
    let pins = pin_evidence(ctx, q)?;
    let mut refreshed = crate::index::refresh(&ctx.root);
    let mut warnings = Vec::new();
    if let Some(w) = &refreshed.warning {
        crate::say!("warning: {w}");
        warnings.push(Problem::new("code-index", w.to_string()));
    }
    let evidence = crate::index::Evidence {
        pins,
        blockers: Vec::new(),
    };
    let (mut ranked, warning) = crate::index::scan::rank_or_rebuild(
        &ctx.root,
        &mut refreshed.index,
        true,
        q,
        &evidence,
        limit,
    );
    crate::index::scan::read_sigs(&ctx.root, &mut ranked);
    if let Some(w) = warning {
        crate::say!("warning: {w}");
        warnings.push(Problem::new("code-index", w));
    }
    if as_json {
        let list: Vec<_> = ranked
            .iter()
            .map(|r| {
                json!({
                    "path": r.path, "kind": r.kind.name(), "score": (r.score * 1000.0).round() / 1000.0,
                    "matched": r.matched.iter().map(|(w, _)| w).collect::<Vec<_>>(),
                    "evidence": r.evidence, "summary": r.summary,
                    "definitions": r.symbols.iter().map(|s| json!({"line": s.line, "kind": s.kind, "name": s.name, "signature": s.sig})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let query = written_words(q);
        Envelope::new(
            "pin search",
            json!({"query": query, "kind": "files", "hits": list}),
        )
        .warnings(warnings)
        .emit()?;
        return Ok(Code::OK);
    }
    if ranked.is_empty() {
        eprintln!("no file matches: {}", written_words(q));
    }
    emit(&files_text(&ranked))?;
    Ok(Code::OK)
}

/// The Pin's best five entries for the words, as evidence for the files they name.
fn pin_evidence(ctx: &Ctx, q: &[QueryTerm]) -> anyhow::Result<Vec<PinEvidence>> {
    let pin = pin::searchable(&ctx.root, true).context("cannot search the Pin")?;
    Ok(pin::search::as_evidence(&pin.search(&written_words(q), 5)))
}

/// Ranked files as text: rank, path, score and matched words, then evidence and definitions.
fn files_text(ranked: &[crate::index::Ranked]) -> String {
    let mut out = String::new();
    for (i, r) in ranked.iter().enumerate() {
        let words: Vec<&str> = r.matched.iter().map(|(w, _)| w.as_str()).collect();
        out += &format!(
            "{}. {}  (score {:.3}; matched: {})\n",
            i + 1,
            r.path,
            r.score,
            words.join(", ")
        );
        for e in &r.evidence {
            out += &format!("   {e}\n");
        }
        for s in &r.symbols {
            out += &format!("   {}: {}\n", s.line, s.sig);
        }
    }
    out
}
