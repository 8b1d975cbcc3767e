//! The integrity guard's I/O: re-read prd.json and progress.txt after the agent, repair what
//! broke a rule, and keep every rejected version.
//!
//! prd.json: only what breaks a rule is reverted ([`policy::repair`]); the agent's whole
//! version goes to `.ralph/rejected/` first. progress.txt: what was there before is still there
//! ([`policy::progress_kept`]), else the copy from before is restored with the agent's new
//! text appended. Either file replaced by something that is not a regular file (a directory, a
//! FIFO, a device, a symlink) is moved aside under `.ralph/rejected/` whole, never read through,
//! and the regular file restored. A write that fails (a full disk) never leaves the agent's
//! version in place: the pre-iteration copy kept in `.ralph/prd.good.json` is renamed in (no new
//! disk space needed), or the bad file is moved aside, and the error says where the good copy is.
//! The rules themselves are pure, in [`super::policy`].

use std::path::{Path, PathBuf};

use super::policy::{self, Violation};
use crate::fsutil::{self, Entry, FsError};
use crate::prd::{Prd, PrdError};
use crate::run::error::RunError;
use crate::state::rejected;

/// Where the guard works: the state dir and the iteration number (for rejected copies' names).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub state_dir: &'a Path,
    pub n: u32,
}

/// prd.json after the guard.
#[derive(Debug, Clone)]
pub(crate) struct Guarded {
    pub prd: Prd,
    pub bytes: Vec<u8>,
    /// What was wrong, when the file was repaired (empty otherwise).
    pub restored: Vec<Violation>,
    /// `passes` changes the agent made to existing stories (kept, or re-applied).
    pub flips: Vec<(String, bool)>,
    /// Where the agent's rejected version (or the foreign object) was kept.
    pub rejected: Option<PathBuf>,
}

/// The pre-iteration prd.json, kept where a failed write can be undone from: rename needs no
/// new disk space.
pub(crate) fn good_copy(state_dir: &Path) -> PathBuf {
    state_dir.join("prd.good.json")
}

fn first_error(e: &PrdError) -> String {
    match e {
        PrdError::Invalid(report) => report
            .errors
            .first()
            .map(|d| {
                let at = match (d.line, d.column) {
                    (Some(l), Some(c)) => format!("line {l}:{c}: "),
                    _ if !d.pointer.is_empty() => format!("{}: ", d.pointer),
                    _ => String::new(),
                };
                format!("{at}{}", d.message)
            })
            .unwrap_or_else(|| "invalid".into()),
        other => other.to_string(),
    }
}

/// A prd.json write failed: make sure the agent's version is not what stays, and say where the
/// good copy is.
fn write_failed(ctx: Ctx<'_>, path: &Path, source: FsError) -> RunError {
    let good = good_copy(ctx.state_dir);
    let tmp = path.with_file_name(format!("{}restore", crate::fsutil::TEMP_PREFIX));
    let _ = std::fs::remove_file(&tmp);
    let state = if std::fs::hard_link(&good, &tmp).is_ok() && std::fs::rename(&tmp, path).is_ok() {
        format!(
            "{} is back to the copy from before the iteration",
            path.display()
        )
    } else {
        let _ = std::fs::remove_file(&tmp);
        let moved = match rejected::move_aside(ctx.state_dir, ctx.n, path) {
            Ok(p) => format!(
                "the agent's version was moved to {} so it cannot count",
                p.display()
            ),
            Err(e) => format!("the agent's version could not be moved aside either ({e})"),
        };
        if good.exists() {
            moved
        } else {
            // The agent deleted `.ralph/`: git is the last good copy.
            format!(
                "{moved}; the good copy is gone too (.ralph/ was deleted): restore the file from git (git checkout HEAD -- {})",
                path.display()
            )
        }
    };
    RunError::WriteFailed {
        path: path.to_path_buf(),
        source,
        state,
        good,
    }
}

/// Write a repaired prd.json, falling back as [`write_failed`] says.
fn put(ctx: Ctx<'_>, prd: &Prd, exact: Option<&[u8]>) -> Result<Vec<u8>, RunError> {
    let res = match exact {
        Some(b) => fsutil::atomic_write(&prd.path, b).map(|()| b.to_vec()),
        None => match prd.save() {
            Ok(()) => Ok(prd.to_pretty().into_bytes()),
            Err(PrdError::Io(e)) => Err(e),
            Err(other) => return Err(other.into()),
        },
    };
    res.map_err(|e| write_failed(ctx, &prd.path, e))
}

/// Write ralph's own `passes` settlement, falling back as [`write_failed`] says.
pub(crate) fn save_settled(ctx: Ctx<'_>, prd: &Prd) -> Result<Vec<u8>, RunError> {
    put(ctx, prd, None)
}

/// Keep the agent's version before it is replaced (best effort: a full disk must not stop the
/// repair itself).
fn keep(ctx: Ctx<'_>, path: &Path, bytes: &[u8]) -> Option<PathBuf> {
    rejected::keep(ctx.state_dir, ctx.n, path, bytes).ok()
}

/// Check prd.json against the copy taken before the iteration that worked on story `current`,
/// and repair it if needed. `None` when the file is byte-for-byte unchanged (the common case,
/// and the cheap one).
pub(crate) fn after_agent(
    ctx: Ctx<'_>,
    path: &Path,
    before: &Prd,
    before_bytes: &[u8],
    current: &str,
) -> Result<Option<Guarded>, RunError> {
    let (violations, after, rejected) = match fsutil::inspect(path)? {
        Entry::Missing => (vec![Violation::Deleted], None, None),
        Entry::Foreign(kind) => {
            let moved = rejected::move_aside(ctx.state_dir, ctx.n, path)?;
            (vec![Violation::NotRegular(kind)], None, Some(moved))
        }
        Entry::Regular(b) if b.as_slice() == before_bytes => return Ok(None),
        Entry::Regular(b) => match Prd::from_bytes(path, &b) {
            Err(e) => (
                vec![Violation::Invalid(first_error(&e))],
                None,
                keep(ctx, path, &b),
            ),
            Ok(after) => match parsed(ctx, path, before, b, after, current)? {
                Parsed::Kept(g) => return Ok(Some(g)),
                Parsed::Restore(v, after, kept) => (v, Some(after), kept),
            },
        },
    };
    let flips = after.as_ref().map_or_else(Vec::new, |a| {
        policy::passes_flips(&before.value, &a.value, current)
    });
    let (prd, bytes) = restore(ctx, before, before_bytes, after.as_ref(), current, &flips)?;
    Ok(Some(Guarded {
        prd,
        bytes,
        restored: violations,
        flips,
        rejected,
    }))
}

/// What a prd.json the agent left that parses came to: kept (whole, or with `passes` set back
/// where it may not be set), or to be restored from the copy before (what broke, the agent's
/// version, where it was kept).
enum Parsed {
    Kept(Guarded),
    Restore(Vec<Violation>, Prd, Option<PathBuf>),
}

/// Judge the agent's parsed prd.json (`b` its bytes) against `before` (see [`Parsed`]).
fn parsed(
    ctx: Ctx<'_>,
    path: &Path,
    before: &Prd,
    b: Vec<u8>,
    after: Prd,
    current: &str,
) -> Result<Parsed, RunError> {
    let v = policy::check(&before.value, &after.value, current);
    let flips = policy::passes_flips(&before.value, &after.value, current);
    if v.is_empty() {
        return Ok(Parsed::Kept(Guarded {
            prd: after,
            bytes: b,
            restored: vec![],
            flips,
            rejected: None,
        }));
    }
    let kept = keep(ctx, path, &b);
    if v.iter().all(|x| x.passes_only().is_some()) {
        // Only `passes` set where it may not be: set those back, keep the rest.
        let mut fixed = after;
        for id in v.iter().filter_map(Violation::passes_only) {
            fixed.set_passes(id, false)?;
        }
        let bytes = put(ctx, &fixed, None)?;
        return Ok(Parsed::Kept(Guarded {
            prd: fixed,
            bytes,
            restored: v,
            flips,
            rejected: kept,
        }));
    }
    Ok(Parsed::Restore(v, after, kept))
}

/// The copy from before, with what the agent was allowed to do re-applied.
fn restore(
    ctx: Ctx<'_>,
    before: &Prd,
    before_bytes: &[u8],
    after: Option<&Prd>,
    current: &str,
    flips: &[(String, bool)],
) -> Result<(Prd, Vec<u8>), RunError> {
    let repaired = after.map(|a| policy::repair(&before.value, &a.value, current));
    let mut flipped = before.clone();
    for (id, passes) in flips {
        flipped.set_passes(id, *passes)?;
    }
    // Notes or discovered stories to keep: write the repaired value (validated first; if it
    // does not validate, only the flips are kept).
    if let Some(r) = repaired.filter(|r| *r != flipped.value)
        && let Ok(p) = Prd::from_bytes(&before.path, crate::prd::to_pretty(&r).as_bytes())
    {
        let bytes = put(ctx, &p, None)?;
        return Ok((p, bytes));
    }
    if flips.is_empty() {
        let bytes = put(ctx, before, Some(before_bytes))?;
        return Ok((before.clone(), bytes));
    }
    let bytes = put(ctx, &flipped, None)?;
    Ok((flipped, bytes))
}

/// What the progress.txt guard did, for the status output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProgressRestored {
    pub why: String,
    /// Where the agent's version (or the foreign object) was kept.
    pub rejected: Option<PathBuf>,
    /// The agent's new text was appended to the restored copy.
    pub appended: bool,
}

/// Take progress.txt's "before": its bytes, or `None` when it is missing or not a regular file
/// (nothing to guard then).
pub(crate) fn progress_before(path: &Path) -> Option<Vec<u8>> {
    match fsutil::inspect(path) {
        Ok(Entry::Regular(b)) => Some(b),
        _ => None,
    }
}

/// Check progress.txt after the agent: what was there before must still be there. `None` when
/// it is.
pub(crate) fn progress_after(
    ctx: Ctx<'_>,
    path: &Path,
    before: Option<&[u8]>,
) -> Result<Option<ProgressRestored>, RunError> {
    let (why, rejected, added) = match fsutil::inspect(path)? {
        Entry::Foreign(kind) => {
            let moved = rejected::move_aside(ctx.state_dir, ctx.n, path)?;
            (
                format!("progress.txt was replaced by {kind}"),
                Some(moved),
                vec![],
            )
        }
        Entry::Missing => match before {
            Some(_) => ("progress.txt was deleted".to_string(), None, vec![]),
            None => return Ok(None),
        },
        Entry::Regular(a) => match before {
            Some(b) if !policy::progress_kept(b, &a) => (
                "lines that were in progress.txt before the iteration were removed or changed"
                    .to_string(),
                keep(ctx, path, &a),
                policy::progress_added(b, &a),
            ),
            _ => return Ok(None),
        },
    };
    let mut text = before.unwrap_or_default().to_vec();
    if !added.is_empty() {
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        text.extend_from_slice(&added);
    }
    if before.is_some() || !text.is_empty() {
        fsutil::atomic_write(path, &text)?;
    }
    Ok(Some(ProgressRestored {
        why,
        rejected,
        appended: !added.is_empty(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"{
  "project": "p",
  "branchName": "ralph/x",
  "userStories": [
    {"id": "A", "title": "a", "description": "", "acceptanceCriteria": [], "priority": 1, "passes": false},
    {"id": "B", "title": "b", "description": "", "acceptanceCriteria": [], "priority": 2, "passes": false}
  ]
}
"#;

    fn ctx(d: &tempfile::TempDir) -> Ctx<'static> {
        let state: &'static Path = Box::leak(d.path().join(".ralph").into_boxed_path());
        Ctx {
            state_dir: state,
            n: 1,
        }
    }

    fn setup() -> (tempfile::TempDir, std::path::PathBuf, Prd) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prd.json");
        std::fs::write(&path, SRC).unwrap();
        let prd = Prd::load(&path).unwrap();
        (dir, path, prd)
    }

    #[test]
    fn deleted_or_corrupt_prd_is_restored_byte_for_byte() {
        let (_d, path, prd) = setup();
        std::fs::remove_file(&path).unwrap();
        let g = after_agent(ctx(&_d), &path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert_eq!(g.restored, [Violation::Deleted]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SRC);
        std::fs::write(&path, "{ not json").unwrap();
        let g = after_agent(ctx(&_d), &path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert!(matches!(&g.restored[0], Violation::Invalid(m) if m.contains("line 1")));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SRC);
    }

    #[test]
    fn illegal_edit_is_reverted_but_the_passes_flip_kept() {
        let (_d, path, prd) = setup();
        let edited = SRC
            .replace("\"title\": \"b\"", "\"title\": \"easier b\"")
            .replacen("\"passes\": false", "\"passes\": true", 1);
        std::fs::write(&path, edited).unwrap();
        let g = after_agent(ctx(&_d), &path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert_eq!(g.restored.len(), 1);
        assert_eq!(g.flips, [("A".to_string(), true)]);
        let now = Prd::load(&path).unwrap();
        assert!(now.story("A").unwrap().passes);
        assert_eq!(now.story("B").unwrap().title, "b");
    }

    #[test]
    fn a_failed_write_never_leaves_the_agents_version_in_place() {
        let (d, path, _prd) = setup();
        let c = ctx(&d);
        std::fs::create_dir_all(c.state_dir).unwrap();
        std::fs::write(good_copy(c.state_dir), SRC).unwrap();
        let enospc = || FsError {
            path: path.clone(),
            action: "write temp file",
            source: std::io::Error::from_raw_os_error(libc::ENOSPC),
        };
        std::fs::write(&path, "{ cheated").unwrap();
        let err = write_failed(c, &path, enospc()).to_string();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SRC);
        assert!(
            err.contains("cp ") && err.contains("prd.good.json"),
            "{err}"
        );
        // No good copy left (the agent deleted .ralph/): the bad file goes aside, git is named.
        std::fs::remove_file(good_copy(c.state_dir)).unwrap();
        std::fs::write(&path, "{ cheated").unwrap();
        let err = write_failed(c, &path, enospc()).to_string();
        assert!(!path.exists());
        assert!(err.contains("git checkout HEAD --"), "{err}");
        assert_eq!(rejected_count(c.state_dir), 1);
    }

    fn rejected_count(state: &Path) -> usize {
        std::fs::read_dir(crate::state::rejected::dir(state))
            .unwrap()
            .count()
    }

    #[test]
    fn legitimate_edit_is_kept() {
        let (_d, path, prd) = setup();
        let edited = SRC.replacen("\"passes\": false", "\"passes\": true", 1);
        std::fs::write(&path, &edited).unwrap();
        let g = after_agent(ctx(&_d), &path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert!(g.restored.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
        std::fs::write(&path, SRC).unwrap();
        assert!(
            after_agent(ctx(&_d), &path, &prd, SRC.as_bytes(), "A")
                .unwrap()
                .is_none()
        );
    }
}
