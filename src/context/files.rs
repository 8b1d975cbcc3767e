//! The files of the "where to look" section as the prompt shows them: each ranked file redacted
//! ([`PrepFile`]) and how much of it each reduction level keeps ([`file_plan`]: the outlines of
//! the top files go first, then matching signatures shrink, then files drop from the bottom).
//! Pure; the ranking is [`crate::index`]'s, the wording [`super::render`]'s.

use super::redact::{Redactions, redact_into};
use crate::index::{OUTLINED_FILES, Ranked};

/// A ranked file, redacted, as the prompt shows it.
pub(super) struct PrepFile {
    pub path: String,
    pub summary: String,
    pub matched: Vec<String>,
    /// `line`, signature: the definitions that match the story.
    pub sigs: Vec<(u32, String)>,
    /// `line`, signature: the file's other definitions (its outline).
    pub outline: Vec<(u32, String)>,
}

pub(super) fn prep_file(f: &Ranked, red: &mut Redactions) -> PrepFile {
    let mut r = |s: &str| redact_into(s, red);
    PrepFile {
        path: r(&f.path),
        summary: r(&f.summary),
        matched: f.matched.iter().take(6).map(|(w, _)| r(w)).collect(),
        sigs: f.symbols.iter().map(|s| (s.line, r(&s.sig))).collect(),
        outline: f.outline.iter().map(|s| (s.line, r(&s.sig))).collect(),
    }
}

/// How much of one ranked file the prompt shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Shown {
    /// Matching definitions.
    pub sigs: usize,
    /// Other definitions (the outline).
    pub outline: usize,
}

/// What is shown per file at a reduction level (`None`: the file is not shown): the outlines
/// of the top files go first, then matching signatures shrink, then files drop from the
/// bottom; at level 4 the section is gone.
pub(super) fn file_plan(level: usize, n: usize) -> Vec<Option<Shown>> {
    let shown = |sigs, outline| Some(Shown { sigs, outline });
    (0..n)
        .map(|i| match level {
            0 => shown(6, if i < OUTLINED_FILES { usize::MAX } else { 0 }),
            1 => shown(3, 0),
            2 => shown(if i < 5 { 2 } else { 0 }, 0),
            3 if i < 10 => shown(0, 0),
            _ => None,
        })
        .collect()
}

/// Whether `plan` leaves out anything of `files`.
pub(super) fn files_cut(plan: &[Option<Shown>], files: &[PrepFile]) -> bool {
    plan.iter()
        .zip(files)
        .any(|(k, f)| k.is_none_or(|k| k.sigs < f.sigs.len() || k.outline < f.outline.len()))
}
