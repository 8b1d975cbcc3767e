//! `ralph prd convert` and `ralph prd import`: commands that write a prd.json (the edge of
//! [`crate::prd::dialect`] and [`crate::prd::import`]).

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

use super::ctx::Ctx;
use crate::exit::Code;
use crate::prd::{Prd, import, to_pretty, validate};

#[derive(Debug, Args)]
pub struct PrdArgs {
    #[command(subcommand)]
    pub command: PrdCommand,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Target {
    /// The canonical form: project, branchName, userStories, blockedBy, acceptanceCriteria.
    Snarktank,
}

#[derive(Debug, Subcommand)]
pub enum PrdCommand {
    /// Rewrite a prd.json written in a dialect (ralph-tui, stories/tasks, …) in the canonical form.
    Convert {
        /// The form to write.
        #[arg(long, value_enum)]
        to: Target,
        /// Print the change as a diff and write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Turn a markdown PRD (`### US-001: Title`, `**Acceptance Criteria:**`, …) into prd.json.
    Import {
        /// The markdown file.
        markdown: PathBuf,
        /// Where to write (default: --prd, or <root>/prd.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
}

pub(crate) fn prd(ctx: &Ctx, args: PrdArgs) -> anyhow::Result<Code> {
    match args.command {
        PrdCommand::Convert { to: _, dry_run } => convert(ctx, dry_run),
        PrdCommand::Import {
            markdown,
            out,
            force,
        } => {
            let out = out.unwrap_or_else(|| ctx.prd_path.clone());
            import_file(&ctx.root, &markdown, &out, force)
        }
    }
}

fn convert(ctx: &Ctx, dry_run: bool) -> anyhow::Result<Code> {
    let path = &ctx.prd_path;
    let read =
        crate::fsutil::read(path).with_context(|| format!("cannot convert {}", path.display()))?;
    let prd = Prd::from_bytes(path, &read)
        .with_context(|| format!("cannot convert {}", path.display()))?;
    let old = prd.to_pretty();
    let new = prd.to_canonical();
    if prd.dialect.is_canonical() || old == new {
        println!(
            "{}: already in the canonical (snarktank) form",
            path.display()
        );
        return Ok(Code::OK);
    }
    let what = prd.dialect.mappings().join(", ");
    if dry_run {
        let name = path.display().to_string();
        let diff = similar::TextDiff::from_lines(&old, &new);
        print!(
            "{}",
            diff.unified_diff()
                .context_radius(2)
                .header(&name, &format!("{name} (snarktank)"))
        );
        eprintln!(
            "{}: would convert from the {} dialect ({what}); nothing written (--dry-run)",
            path.display(),
            prd.dialect.name
        );
        return Ok(Code::OK);
    }
    // A running loop guards prd.json: never write under it, nor over an edit made since the read.
    let lock = crate::state::lock::Lock::acquire(&ctx.root)?;
    lock.sweep_beside(path);
    if crate::fsutil::read(path).ok().as_deref() != Some(read.as_slice()) {
        anyhow::bail!(
            "{} changed while it was being converted; nothing written: run `ralph prd convert` again",
            path.display()
        );
    }
    crate::fsutil::atomic_write(path, new.as_bytes())?;
    println!(
        "{}: converted from the {} dialect to snarktank ({what})",
        path.display(),
        prd.dialect.name
    );
    for (field, value) in &prd.dialect.derived {
        println!("  added \"{field}\": \"{value}\" (it was derived)");
    }
    println!("next: ralph validate --strict");
    Ok(Code::OK)
}

/// A user-named text file, read through `fsutil` (a FIFO or device there is an error, not a
/// hang), as UTF-8.
pub(super) fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes =
        crate::fsutil::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "cannot read {}: not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

fn import_file(root: &Path, markdown: &Path, out: &Path, force: bool) -> anyhow::Result<Code> {
    let text = read_text(markdown)?;
    let before = out.exists().then(|| crate::fsutil::read(out).ok());
    if before.is_some() && !force {
        anyhow::bail!(
            "{} exists: ralph prd import never replaces it unless you pass --force (or choose another file with --out)",
            out.display()
        );
    }
    let imported =
        import::import(&text).map_err(|e| anyhow::anyhow!("{}: {e}", markdown.display()))?;
    let json = to_pretty(&imported.value);
    let (report, _) = validate::validate_bytes(out, json.as_bytes());
    // Replacing a file (--force): a running loop guards it, so never write under the loop's
    // lock, nor over an edit made since the check above.
    let _lock = match &before {
        Some(_) => {
            let lock = crate::state::lock::Lock::acquire(root)?;
            lock.sweep_beside(out);
            Some(lock)
        }
        None => None,
    };
    if out.exists().then(|| crate::fsutil::read(out).ok()) != before {
        anyhow::bail!(
            "{} changed while {} was being imported; nothing written: run `ralph prd import` again",
            out.display(),
            markdown.display()
        );
    }
    crate::fsutil::atomic_write(out, json.as_bytes())?;
    let stories = imported.value["userStories"].as_array().map_or(0, Vec::len);
    let deps: usize = imported.value["userStories"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("blockedBy").and_then(|b| b.as_array()).map(Vec::len))
        .sum();
    println!(
        "{}: imported {stories} stories with {deps} dependencies from {}",
        out.display(),
        markdown.display()
    );
    for line in &imported.report {
        println!("  note: {line}");
    }
    if !report.errors.is_empty() {
        anstream::eprint!("{}", report.render_styled());
        eprintln!("the imported file needs the fixes above before `ralph run` can use it");
        return Ok(Code::ERROR);
    }
    println!(
        "next: review {}, then `ralph validate` and `ralph run`",
        out.display()
    );
    Ok(Code::OK)
}
