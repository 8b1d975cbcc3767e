//! Error-pattern memory, the loop's side: when a story passes after an attempt that failed
//! verify, learn the pattern (the failure's signature and what fixed it) into the main tree's
//! `.ralph/patterns.jsonl`; when a real run's prompt shows patterns, count their uses.
//!
//! Owns what a learned record holds and that every stored string is redacted first (state does
//! not import context, so the redaction happens here). The signature and the id are
//! [`crate::errors_seen`]'s, the file [`crate::state::errors_seen`]'s; when to call is the sequential
//! loop's ([`super::sequential`]) and the parallel scheduler's ([`super::parallel`]) decision.

use std::path::Path;

use super::events::{Event, Reporter};
use crate::context::redact::redact;
use crate::errors_seen::Failure;
use crate::state::errors_seen::{self as store, Fix, Pattern, PatternsError};
use crate::state::history::Record;

/// The most characters of a learning line kept.
const MAX_LEARNING: usize = 300;

/// The pattern a fail→pass pair teaches (pure, apart from the inputs): `failure` is what the
/// previous attempt at `record.story` ended with, `record` the attempt that passed, `diff` its
/// per-file line counts, `learning` the agent's learning line. `None` when the failure's output
/// has no line to recognise it by.
pub(crate) fn pattern(
    failure: &Failure,
    record: &Record,
    diff: &str,
    learning: Option<&str>,
    now: &str,
) -> Option<Pattern> {
    let r = |s: &str| redact(s).0;
    let command = r(failure.command.trim());
    let signature = crate::errors_seen::signature(&r(&failure.tail));
    if signature.is_empty() {
        return None;
    }
    // Redacted whole, then cut: a cut first could split a secret into a head no rule knows.
    let learning = learning
        .map(|l| {
            let l = r(l.trim());
            match l.char_indices().nth(MAX_LEARNING) {
                Some((b, _)) => format!("{} …", &l[..b]),
                None => l,
            }
        })
        .filter(|l| !l.is_empty());
    Some(Pattern {
        id: crate::errors_seen::id(&command, &signature),
        command,
        signature,
        fix: Fix {
            files: record.files_changed.iter().map(|f| r(f)).collect(),
            diff: r(diff),
            learning,
            ..Fix::default()
        },
        story: r(&record.story),
        first_seen: now.to_string(),
        last_seen: now.to_string(),
        seen: 1,
        uses: 0,
        last_used: None,
        ..Pattern::default()
    })
}

/// Learn from `record` (a Done attempt at its story) after an attempt that ended with
/// `failure`, into `.ralph/patterns.jsonl` under `root` (the main tree). Returns the pattern's
/// id, or `None` when the failure left nothing to recognise it by.
pub(crate) fn learn(
    root: &Path,
    failure: &Failure,
    record: &Record,
) -> Result<Option<String>, PatternsError> {
    let diff = diff_summary(root, record);
    let learning = learning_line(root, &record.story);
    let now = jiff::Timestamp::now().to_string();
    let Some(p) = pattern(failure, record, &diff, learning.as_deref(), &now) else {
        return Ok(None);
    };
    let id = p.id.clone();
    store::record(root, p)?;
    Ok(Some(id))
}

/// Count one use of each pattern in `ids` (a real run's prompt showed them).
pub(crate) fn used(root: &Path, ids: &[String]) -> Result<(), PatternsError> {
    store::mark_used(root, ids, &jiff::Timestamp::now().to_string())
}

/// [`learn`], reported: a note naming the pattern learned, a warning when it could not be
/// stored (never fatal: the story is done either way).
pub(crate) fn learn_reported(root: &Path, failure: &Failure, record: &Record, rep: &dyn Reporter) {
    match learn(root, failure, record) {
        Ok(Some(id)) => rep.report(Event::Note {
            text: format!(
                "learned error pattern {id} from how {} got past `{}` (ralph patterns lists it)",
                record.story,
                redact(failure.command.trim()).0
            ),
        }),
        Ok(None) => {}
        Err(e) => rep.report(Event::Warning {
            text: format!("error pattern not recorded: {e}"),
        }),
    }
}

/// [`used`], a failure reported as a warning.
pub(crate) fn used_reported(root: &Path, ids: &[String], rep: &dyn Reporter) {
    if let Err(e) = used(root, ids) {
        rep.report(Event::Warning {
            text: format!("error pattern uses not counted: {e}"),
        });
    }
}

/// `src/a.rs +12 -3, src/b.rs +1 -0` for the files the attempt changed, from `git diff
/// --numstat head_before..head_after`; the bare file list when git cannot say.
fn diff_summary(root: &Path, record: &Record) -> String {
    let files = &record.files_changed;
    let counted = match (&record.head_before, &record.head_after) {
        (Some(a), Some(b)) if a != b => {
            let range = format!("{a}..{b}");
            let mut args = vec!["diff", "--numstat", range.as_str(), "--"];
            args.extend(files.iter().map(String::as_str));
            super::git::output(root, &args)
                .ok()
                .filter(|o| o.status.success())
                .map(|o| numstat(&String::from_utf8_lossy(&o.stdout)))
                .filter(|s| !s.is_empty())
        }
        _ => None,
    };
    counted.unwrap_or_else(|| files.join(", "))
}

/// `git diff --numstat` output as `path +added -removed, …` (pure; binary files: `+? -?`).
pub(crate) fn numstat(out: &str) -> String {
    out.lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, '\t');
            let (a, d, p) = (f.next()?, f.next()?, f.next()?);
            let n = |x: &str| {
                if x == "-" {
                    "?".to_string()
                } else {
                    x.to_string()
                }
            };
            Some(format!("{p} +{} -{}", n(a), n(d)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first learning of the story's latest progress.txt entry, if it wrote one.
fn learning_line(root: &Path, story: &str) -> Option<String> {
    let bytes = crate::fsutil::read_if_exists(&crate::progress::path_in(root)).ok()??;
    let entry =
        crate::state::outputs::latest_entry(&crate::progress::LogView::parse(&bytes), story)?;
    let body = entry.split_once('\n').map_or("", |(_, b)| b);
    let (_, learnings) = crate::progress::lessons::extract(body.as_bytes());
    learnings
        .first()
        .map(|l| String::from_utf8_lossy(l).trim().to_string())
        .filter(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::history::Outcome;

    fn done() -> Record {
        Record {
            files_changed: vec!["cfg.toml".into()],
            ..Record::new("r", 2, "S-1", "t".into(), Outcome::Done)
        }
    }

    #[test]
    fn a_secret_in_the_failing_output_or_command_is_not_stored() {
        let f = Failure {
            command: "TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 sh check.sh".into(),
            tail: "error: /tmp/x/cfg.toml:3: rejected key AKIAIOSFODNN7EXAMPLE\n".into(),
        };
        let p = pattern(
            &f,
            &done(),
            "cfg.toml +1 -1",
            Some("- keys live in env"),
            "now",
        )
        .unwrap();
        let json = serde_json::to_string(&p).unwrap();
        assert!(!json.contains("AKIAIOSFODNN7EXAMPLE"), "{json}");
        assert!(!json.contains("ghp_abcdef"), "{json}");
        assert!(json.contains("REDACTED"), "{json}");
        assert_eq!(p.signature.len(), 1);
        assert!(
            p.signature[0].starts_with("error: cfg.toml:N: rejected key"),
            "{:?}",
            p.signature
        );
        assert_eq!(p.fix.files, ["cfg.toml"]);
        assert_eq!(p.story, "S-1");
        assert_eq!(p.seen, 1);
    }

    #[test]
    fn a_secret_straddling_the_learning_cut_is_redacted_before_the_cut() {
        let f = Failure {
            command: "make".into(),
            tail: "error: boom\n".into(),
        };
        // The key starts 10 characters before the cut: cutting first would keep `AKIAIOSFOD`.
        let learning = format!(
            "{} AKIAIOSFODNN7EXAMPLE and more",
            "x".repeat(MAX_LEARNING - 11)
        );
        let p = pattern(&f, &done(), "", Some(&learning), "now").unwrap();
        let l = p.fix.learning.unwrap();
        assert!(!l.contains("AKIAIOSFOD"), "{l}");
        assert!(l.contains("REDACTED"), "{l}");
        assert!(l.chars().count() <= MAX_LEARNING + 2, "still cut: {l}");
    }

    #[test]
    fn an_empty_failure_teaches_nothing() {
        let f = Failure {
            command: "make".into(),
            tail: "\n\n".into(),
        };
        assert_eq!(pattern(&f, &done(), "", None, "now"), None);
    }

    #[test]
    fn numstat_reads_as_file_plus_minus() {
        assert_eq!(
            numstat("12\t3\tsrc/a.rs\n-\t-\tlogo.png\n"),
            "src/a.rs +12 -3, logo.png +? -?"
        );
        assert_eq!(numstat(""), "");
    }
}
