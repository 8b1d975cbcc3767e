//! `ralph report`: the run story by story (text, markdown or one HTML page), from
//! `.ralph/history.jsonl`. The model and rendering are `crate::report`'s; this file reads the
//! arguments, prints or writes the result, and the `--json` envelope.

use anyhow::Context;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

use super::ctx::Ctx;
use super::envelope::{Envelope, Problem};
use crate::exit::Code;
use crate::report::{self, RunChoice};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// A table for a terminal.
    Text,
    /// A markdown table, for a PR description.
    Md,
    /// One self-contained HTML page with a timeline.
    Html,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// The run to report on (default: the latest; `all`: every run in the history).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The history to read (default: <root>/.ralph/history.jsonl).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Print the report's data as the JSON envelope instead.
    #[arg(long, conflicts_with_all = ["format", "out"])]
    pub json: bool,
}

pub(crate) fn report(ctx: &Ctx, args: ReportArgs) -> anyhow::Result<Code> {
    let path = args
        .history
        .clone()
        .unwrap_or_else(|| crate::state::history::path(&ctx.root));
    let (records, skipped) = report::read(&path)?;
    let choice = RunChoice::parse(args.run.as_deref());
    let rep = report::build(&path, &records, skipped, &choice)?;
    let skipped_warning = (skipped > 0).then(|| {
        Problem::new(
            "history-skipped",
            format!("{skipped} line(s) are not history records and were skipped"),
        )
        .file(path.display())
    });
    if args.json {
        let mut data = serde_json::to_value(&rep)?;
        if let Some(o) = data.as_object_mut() {
            o.insert("file".into(), path.display().to_string().into());
        }
        Envelope::new("report", data)
            .warnings(skipped_warning)
            .emit()?;
        return Ok(Code::OK);
    }
    let text = match args.format {
        ReportFormat::Text => report::text::text(&rep),
        ReportFormat::Md => report::text::markdown(&rep),
        ReportFormat::Html => report::html::html(&rep),
    };
    match &args.out {
        Some(out) => {
            crate::fsutil::atomic_write(out, text.as_bytes())
                .with_context(|| format!("cannot write the report to {}", out.display()))?;
            crate::say!("wrote {}", out.display());
        }
        None => super::stdout::emit(&text)?,
    }
    Ok(Code::OK)
}
