//! Errors and diagnostics as envelope [`Problem`]s: a code, the message, and the place (file,
//! line:column or JSON pointer, story, Pin entry) the human message names.
//!
//! Owns the mapping from the library's error types to codes. An error that reached `main` is read
//! down its chain: an invalid prd.json gives its diagnostics; a known error type gives its code and
//! place; anything else is one problem with code `error`. Does not own any message text: messages
//! are the errors' own.

use super::Problem;
use crate::config::ConfigError;
use crate::context::ContextError;
use crate::exit::{Interrupted, Usage};
use crate::fsutil::FsError;
use crate::pin::PinError;
use crate::pin::check::{self, Severity};
use crate::prd::PrdError;
use crate::prd::validate::{Diagnostic, Report};
use crate::progress::store::ProgressError;
use crate::report::ReportError;
use crate::run::control::client::SendError;
use crate::run::start::branch::BranchError;
use crate::state::control::NoRun;
use crate::state::history::HistoryError;
use crate::state::lock::LockError;
use crate::state::patterns::PatternsError;

/// One prd.json diagnostic of `file`.
pub fn from_prd_diagnostic(file: &str, d: &Diagnostic) -> Problem {
    Problem {
        code: d.code.to_string(),
        message: d.message.clone(),
        hint: Some(d.hint.clone()),
        file: Some(file.to_string()),
        line: d.line,
        column: d.column,
        pointer: Some(d.pointer.clone()),
        story: d.story.clone(),
        entry: None,
    }
}

fn from_report(r: &Report) -> Vec<Problem> {
    r.errors
        .iter()
        .map(|d| from_prd_diagnostic(&r.file, d))
        .collect()
}

/// `pin check`'s findings: (errors, warnings), each at a line of `file`.
pub fn from_pin_check(file: &str, diags: &[check::Diagnostic]) -> (Vec<Problem>, Vec<Problem>) {
    let one = |d: &check::Diagnostic| Problem {
        code: d.code.to_string(),
        message: format!("entry \"{}\": {}", d.entry, d.message),
        file: Some(file.to_string()),
        line: Some(d.line),
        entry: Some(d.entry.clone()),
        ..Problem::default()
    };
    let pick = |sev: Severity| {
        diags
            .iter()
            .filter(|d| d.severity == sev)
            .map(one)
            .collect()
    };
    (pick(Severity::Error), pick(Severity::Warning))
}

/// The place and code of a known error type, when `e` is one.
fn known(e: &(dyn std::error::Error + 'static)) -> Option<Problem> {
    let at = |code: &str, path: &std::path::Path| Problem::new(code, "").file(path.display());
    if e.is::<Interrupted>() {
        return Some(Problem::new("interrupted", ""));
    }
    if e.is::<Usage>() {
        return Some(Problem::new("usage", ""));
    }
    if e.is::<crate::clean::work::UnknownDrop>() {
        return Some(Problem::new("unknown-kept", ""));
    }
    if let Some(f) = e.downcast_ref::<FsError>() {
        return Some(at("io", &f.path));
    }
    if let Some(p) = e.downcast_ref::<PrdError>() {
        return Some(match p {
            PrdError::Io(f) => at("io", &f.path),
            // Expanded into its diagnostics by `from_error`; here only for completeness.
            PrdError::Invalid(r) => Problem::new("invalid", "").file(&r.file),
            PrdError::UnknownStory { path, id } => at("unknown-story", path).story(id),
            PrdError::Edit { path, id } => at("edit", path).story(id),
        });
    }
    if let Some(c) = e.downcast_ref::<ConfigError>() {
        return Some(match c {
            ConfigError::Io(f) => at("io", &f.path),
            ConfigError::Syntax {
                path, line, column, ..
            } => Problem {
                line: Some(*line),
                column: Some(*column),
                ..at("config-syntax", path)
            },
            ConfigError::UnknownKey { .. } => Problem::new("config-unknown-key", ""),
            ConfigError::BadValue { .. } => Problem::new("config-bad-value", ""),
        });
    }
    if let Some(p) = e.downcast_ref::<PinError>() {
        return Some(pin_error(p));
    }
    if let Some(c) = e.downcast_ref::<ContextError>() {
        return Some(match c {
            ContextError::OverBudget { story, .. } => Problem::new("over-budget", "").story(story),
            ContextError::BadInstructions { path, .. } => at("bad-instructions", path),
            ContextError::ConfiguredInstructions { path, .. }
            | ContextError::ConfiguredReviewerInstructions { path, .. } => {
                at("configured-instructions", path)
            }
            ContextError::UnknownStory { path, id, .. } => at("unknown-story", path).story(id),
            ContextError::Io(f) => at("io", &f.path),
            ContextError::Pin(p) => pin_error(p),
            ContextError::History(h) => history_error(h),
        });
    }
    if let Some(h) = e.downcast_ref::<HistoryError>() {
        return Some(history_error(h));
    }
    if let Some(r) = e.downcast_ref::<crate::state::outputs::ReadError>() {
        return Some(match r {
            crate::state::outputs::ReadError::Io(f) => at("io", &f.path),
            crate::state::outputs::ReadError::History(h) => history_error(h),
        });
    }
    if let Some(r) = e.downcast_ref::<ReportError>() {
        return Some(match r {
            ReportError::Io(f) => at("io", &f.path),
            ReportError::Empty { path } => at("no-history", path),
            ReportError::UnknownRun { path, .. } => at("unknown-run", path),
        });
    }
    if let Some(p) = e.downcast_ref::<ProgressError>() {
        return Some(match p {
            ProgressError::Io(f) => at("io", &f.path),
            ProgressError::Missing { path } => at("missing", path),
            ProgressError::Changed { path } => at("changed", path),
            ProgressError::ArchiveMismatch { archive, .. } => at("archive-mismatch", archive),
        });
    }
    if let Some(n) = e.downcast_ref::<crate::cli::pin::NoPin>() {
        return Some(at("no-pin", &n.path));
    }
    // `RunError` wraps it transparently: its chain skips the inner error, so look inside.
    if let Some(b) = e.downcast_ref::<BranchError>().or(match e.downcast_ref() {
        Some(crate::run::RunError::Branch(b)) => Some(b),
        _ => None,
    }) {
        return Some(branch_error(b));
    }
    if let Some(p) = e.downcast_ref::<PatternsError>() {
        return Some(match p {
            PatternsError::Io(f) => at("io", &f.path),
            PatternsError::Encode { path, .. } => at("io", path),
            PatternsError::Unknown { path, .. } => at("unknown-pattern", path),
            PatternsError::Ambiguous { path, .. } => at("ambiguous-pattern", path),
        });
    }
    if let Some(c) = e.downcast_ref::<SendError>() {
        return Some(match c {
            SendError::NoRun(n) => no_run(n),
            SendError::Refused { story, .. } => Problem {
                story: story.clone(),
                ..Problem::new("refused", "")
            },
            SendError::Ended { .. } => Problem::new("run-ended", ""),
            SendError::Io { source, .. } => at("io", &source.path),
        });
    }
    if let Some(l) = e.downcast_ref::<LockError>() {
        return Some(match l {
            LockError::Held { path, .. } => at("locked", path),
            LockError::Io { path, .. } => at("io", path),
        });
    }
    None
}

fn no_run(n: &NoRun) -> Problem {
    let (NoRun::None { path, .. } | NoRun::Gone { path, .. } | NoRun::Unreadable { path, .. }) = n;
    Problem::new("no-run", "").file(path.display())
}

fn branch_error(b: &BranchError) -> Problem {
    let at = |code: &str, path: &std::path::Path| Problem::new(code, "").file(path.display());
    let in_prd = |code: &str, prd: &std::path::Path, pointer: &str| Problem {
        pointer: Some(pointer.to_string()),
        ..at(code, prd)
    };
    match b {
        BranchError::InvalidName { prd, pointer, .. } => {
            in_prd("branch-name-invalid", prd, pointer)
        }
        BranchError::BaseMissing { prd, pointer, .. } => {
            in_prd("base-branch-missing", prd, pointer)
        }
        BranchError::Dirty { root, .. } | BranchError::DirtyParallel { root, .. } => {
            at("dirty-tree", root)
        }
        BranchError::Checkout { root, .. } => at("checkout-refused", root),
        BranchError::Git { root, .. } => at("git", root),
    }
}

fn pin_error(p: &PinError) -> Problem {
    match p {
        PinError::Fs(f) => Problem::new("io", "").file(f.path.display()),
        PinError::NotUtf8 { path, line } => Problem {
            line: Some(*line),
            ..Problem::new("not-utf8", "").file(path.display())
        },
        PinError::Walk { root, .. } => Problem::new("walk", "").file(root.display()),
    }
}

fn history_error(h: &HistoryError) -> Problem {
    match h {
        HistoryError::Io(f) => Problem::new("io", "").file(f.path.display()),
        HistoryError::Corrupt { path, line, .. } => Problem {
            line: Some(*line),
            ..Problem::new("history-corrupt", "").file(path.display())
        },
    }
}

/// The problems an error that reached `main` stands for. An invalid prd.json anywhere in the
/// chain gives every diagnostic of its report; otherwise one problem whose message is the whole
/// chain (what `error: …` prints) and whose code and place come from the outermost known error.
pub fn from_error(err: &anyhow::Error) -> Vec<Problem> {
    for e in err.chain() {
        if let Some(PrdError::Invalid(report)) = e.downcast_ref::<PrdError>() {
            return from_report(report);
        }
    }
    let mut p = err
        .chain()
        .find_map(known)
        .unwrap_or_else(|| Problem::new("error", ""));
    p.message = format!("{err:#}");
    vec![p]
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;
    use std::path::PathBuf;

    #[test]
    fn known_errors_keep_their_place_under_context() {
        let err = anyhow::Error::new(ConfigError::Syntax {
            path: PathBuf::from("ralph.toml"),
            line: 3,
            column: 7,
            message: "expected `=`".into(),
        })
        .context("cannot read the settings");
        let p = &from_error(&err)[0];
        assert_eq!(p.code, "config-syntax");
        assert_eq!(p.file.as_deref(), Some("ralph.toml"));
        assert_eq!((p.line, p.column), (Some(3), Some(7)));
        assert!(
            p.message
                .starts_with("cannot read the settings: ralph.toml:3:7")
        );
    }

    #[test]
    fn transparent_wrappers_are_seen_through() {
        let fs = FsError {
            path: PathBuf::from("specs/INDEX.md"),
            action: "read",
            source: std::io::Error::other("boom"),
        };
        let err = anyhow::Error::new(ContextError::Pin(PinError::Fs(fs)));
        let p = &from_error(&err)[0];
        assert_eq!(p.code, "io");
        assert_eq!(p.file.as_deref(), Some("specs/INDEX.md"));
    }

    #[test]
    fn an_invalid_prd_gives_every_diagnostic() {
        let report = Report {
            file: "prd.json".into(),
            errors: vec![
                Diagnostic::error("cycle", "/userStories/0", Some("A".into()), "m1", "h1"),
                Diagnostic::error("empty", "", None, "m2", "h2"),
            ],
            warnings: vec![],
        };
        let err = Err::<(), _>(PrdError::Invalid(Box::new(report)))
            .context("cannot use prd.json")
            .unwrap_err();
        let ps = from_error(&err);
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].story.as_deref(), Some("A"));
        assert_eq!(ps[0].pointer.as_deref(), Some("/userStories/0"));
        assert_eq!(ps[1].code, "empty");
    }

    #[test]
    fn a_run_that_cannot_start_names_the_file_and_pointer() {
        let err = anyhow::Error::new(crate::run::RunError::Branch(BranchError::BaseMissing {
            prd: PathBuf::from("prd.json"),
            pointer: "/baseBranch".into(),
            base: "dev".into(),
            branch: "ralph/x".into(),
        }))
        .context("ralph run stopped");
        let p = &from_error(&err)[0];
        assert_eq!(p.code, "base-branch-missing");
        assert_eq!(p.file.as_deref(), Some("prd.json"));
        assert_eq!(p.pointer.as_deref(), Some("/baseBranch"));
        let dirty = anyhow::Error::new(BranchError::Dirty {
            root: PathBuf::from("/p"),
            entries: vec![],
        });
        assert_eq!(from_error(&dirty)[0].code, "dirty-tree");
    }

    #[test]
    fn anything_else_is_one_error_with_the_whole_message() {
        let err = anyhow::anyhow!("boom").context("outer");
        assert_eq!(from_error(&err), vec![Problem::new("error", "outer: boom")]);
    }
}
