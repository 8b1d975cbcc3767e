//! Errors and diagnostics as envelope [`Problem`]s: a code, the message, and the place (file,
//! line:column or JSON pointer, story, Pin entry) the human message names.
//!
//! An error that reached `main` is read down its chain: an invalid prd.json gives its
//! diagnostics; an error of a type that names its own code ([`Coded`], implemented beside each
//! error type) gives its code and place; anything else is one problem with code `error`. Does
//! not own any code or message: they are the errors' own.

use crate::clean::work::UnknownDrop;
use crate::config::ConfigError;
use crate::context::ContextError;
use crate::exit::{Interrupted, Usage};
use crate::fsutil::FsError;
use crate::pin::PinError;
use crate::pin::check::{self, Severity};
use crate::prd::PrdError;
use crate::prd::diagnostics::{Diagnostic, Diagnostics};
use crate::problem::Coded;
use crate::problem::Problem;
use crate::progress::store::ProgressError;
use crate::report::ReportError;
use crate::run::RunError;
use crate::run::control::client::SendError;
use crate::run::start::branch::BranchError;
use crate::state::errors_seen::PatternsError;
use crate::state::history::HistoryError;
use crate::state::lock::LockError;
use crate::state::outputs::ReadError;

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

fn from_diagnostics(r: &Diagnostics) -> Vec<Problem> {
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

type Error = dyn std::error::Error + 'static;

/// `e` as a `T`, asked for its code.
fn as_coded<T: Coded + std::error::Error + 'static>(e: &Error) -> Option<&dyn Coded> {
    e.downcast_ref::<T>().map(|t| t as &dyn Coded)
}

/// Whether an error is of one type that names its code, as that type.
type AsCoded = fn(&Error) -> Option<&dyn Coded>;

/// The error types that name their own code (a `dyn Error` cannot be asked for a trait, only
/// for a type: each is tried in turn).
const CODED: [AsCoded; 18] = [
    as_coded::<Interrupted>,
    as_coded::<Usage>,
    as_coded::<UnknownDrop>,
    as_coded::<FsError>,
    as_coded::<PrdError>,
    as_coded::<ConfigError>,
    as_coded::<PinError>,
    as_coded::<ContextError>,
    as_coded::<HistoryError>,
    as_coded::<ReadError>,
    as_coded::<ReportError>,
    as_coded::<ProgressError>,
    as_coded::<crate::cli::no_pin::NoPin>,
    as_coded::<BranchError>,
    as_coded::<RunError>,
    as_coded::<PatternsError>,
    as_coded::<SendError>,
    as_coded::<LockError>,
];

/// The code and place `e` names, when it is of a type that names one.
fn known(e: &Error) -> Option<Problem> {
    CODED.iter().find_map(|is| is(e))?.problem()
}

// `src/pin` and `src/context` are being rewritten by another issue, and `src/run` moved by a
// third: their errors name their codes here until then, and move beside their types with that
// work.

impl Coded for SendError {
    fn problem(&self) -> Option<Problem> {
        Some(match self {
            SendError::NoRun(n) => return n.problem(),
            SendError::Refused { story, .. } => Problem {
                story: story.clone(),
                ..Problem::new("refused", "")
            },
            SendError::Ended { .. } => Problem::new("run-ended", ""),
            SendError::Io { source, .. } => return source.problem(),
        })
    }
}

impl Coded for PinError {
    fn problem(&self) -> Option<Problem> {
        Some(match self {
            PinError::Fs(f) => return f.problem(),
            PinError::NotUtf8 { path, line } => Problem::at("not-utf8", path).line(*line),
            PinError::Walk { root, .. } => Problem::at("walk", root),
        })
    }
}

impl Coded for ContextError {
    fn problem(&self) -> Option<Problem> {
        Some(match self {
            ContextError::OverBudget { story, .. } => Problem::new("over-budget", "").story(story),
            ContextError::BadInstructions { path, .. } => Problem::at("bad-instructions", path),
            ContextError::ConfiguredInstructions { path, .. }
            | ContextError::ConfiguredReviewerInstructions { path, .. } => {
                Problem::at("configured-instructions", path)
            }
            ContextError::UnknownStory { path, id, .. } => {
                Problem::at("unknown-story", path).story(id)
            }
            ContextError::Io(f) => return f.problem(),
            ContextError::Pin(p) => return p.problem(),
            ContextError::History(h) => return h.problem(),
        })
    }
}

/// The problems an error that reached `main` stands for. An invalid prd.json anywhere in the
/// chain gives every diagnostic of its report; otherwise one problem whose message is the whole
/// chain (what `error: …` prints) and whose code and place come from the outermost known error.
pub fn from_error(err: &anyhow::Error) -> Vec<Problem> {
    for e in err.chain() {
        if let Some(PrdError::Invalid(report)) = e.downcast_ref::<PrdError>() {
            return from_diagnostics(report);
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
        let report = Diagnostics {
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
