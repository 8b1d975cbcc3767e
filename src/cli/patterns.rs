//! `ralph patterns [--json]` and `ralph patterns forget <id>`: the error patterns ralph learned
//! (`.ralph/patterns.jsonl`), listed, or one dropped. The file and its records are
//! [`crate::state::errors_seen`]'s; this file prints.

use clap::{Args, Subcommand};
use serde_json::json;

use super::ctx::Ctx;
use super::envelope::{Envelope, Problem};
use crate::exit::Code;
use crate::state::errors_seen::{self, Pattern};

#[derive(Debug, Args)]
pub struct PatternsArgs {
    #[command(subcommand)]
    pub command: Option<PatternsCommand>,
    /// Print the list as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum PatternsCommand {
    /// Drop one pattern: it is no longer shown in prompts.
    Forget {
        /// The pattern's id, or a prefix of it that names only one.
        id: String,
        /// Print the forgotten pattern as the JSON envelope.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn patterns(ctx: &Ctx, args: PatternsArgs) -> anyhow::Result<Code> {
    match args.command {
        None => list(ctx, args.json),
        Some(PatternsCommand::Forget { id, json }) => forget(ctx, &id, json),
    }
}

/// One pattern as `--json` shows it: the fields this version knows (the schema's); the file
/// keeps the others.
fn to_json(p: &Pattern) -> serde_json::Value {
    serde_json::to_value(p.known()).unwrap_or_default()
}

fn list(ctx: &Ctx, json: bool) -> anyhow::Result<Code> {
    let file = errors_seen::path(&ctx.root);
    let (list, skipped) = errors_seen::read_counted(&ctx.root)?;
    let skipped_note = (skipped > 0).then(|| {
        format!(
            "{skipped} line(s) of {} are not patterns and were skipped",
            file.display()
        )
    });
    if json {
        let data = json!({
            "file": file.display().to_string(),
            "patterns": list.iter().map(to_json).collect::<Vec<_>>(),
        });
        let warning =
            skipped_note.map(|m| Problem::new("patterns-skipped", m).file(file.display()));
        Envelope::new("patterns", data).warnings(warning).emit()?;
        return Ok(Code::OK);
    }
    if let Some(note) = skipped_note {
        crate::say!("warning: {note}");
    }
    super::stdout::emit(&text(&list, &file.display().to_string()))?;
    Ok(Code::OK)
}

/// The human list (pure).
fn text(list: &[Pattern], file: &str) -> String {
    if list.is_empty() {
        return format!(
            "no error patterns learned yet ({file} has none): ralph learns one when a story passes verify after an attempt that failed it\n"
        );
    }
    let mut out = format!(
        "{} error pattern(s) in {file}; `ralph patterns forget <id>` drops one\n",
        list.len()
    );
    for p in list {
        out.push_str(&format!(
            "\n{}  uses {}  seen {}  `{}`\n",
            p.id, p.uses, p.seen, p.command
        ));
        if let Some(first) = p.signature.first() {
            out.push_str(&format!("    {first}\n"));
        }
        let fixed = if p.fix.files.is_empty() {
            "(no files recorded)".to_string()
        } else {
            p.fix.files.join(", ")
        };
        out.push_str(&format!("    fixed in {} by changing {fixed}\n", p.story));
        if let Some(l) = &p.fix.learning {
            out.push_str(&format!("    learning: {l}\n"));
        }
    }
    out
}

fn forget(ctx: &Ctx, id: &str, json: bool) -> anyhow::Result<Code> {
    // A running loop rewrites the file too (uses, new patterns): one writer at a time.
    let _lock = crate::state::lock::Lock::acquire(&ctx.root)?;
    let gone = errors_seen::forget(&ctx.root, id)?;
    if json {
        Envelope::new("patterns forget", json!({ "forgotten": to_json(&gone) })).emit()?;
        return Ok(Code::OK);
    }
    super::stdout::emit(&format!(
        "forgot error pattern {} (`{}`); it is no longer shown in prompts\n",
        gone.id, gone.command
    ))?;
    Ok(Code::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_says_when_it_is_empty_and_names_each_pattern() {
        assert!(text(&[], ".ralph/patterns.jsonl").starts_with("no error patterns learned yet"));
        let p = Pattern {
            id: "abc".into(),
            command: "make".into(),
            signature: vec!["error: x".into()],
            story: "S-1".into(),
            uses: 2,
            seen: 1,
            ..Pattern::default()
        };
        let t = text(&[p], "f");
        assert!(t.contains("abc  uses 2  seen 1  `make`"), "{t}");
        assert!(t.contains("    error: x\n"));
        assert!(t.contains("fixed in S-1 by changing (no files recorded)"));
    }
}
