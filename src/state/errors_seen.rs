//! `.ralph/patterns.jsonl`, the store of errors seen before: the error patterns ralph learned (a
//! verify failure's signature and what fixed it), one JSON record per pattern; and its reader and
//! writers.
//!
//! Owns the record's shape ([`Pattern`], [`Fix`]) and the file: reading tolerates torn or junk
//! lines (skipped and counted, like [`super::history`]); every change (a pattern recorded or seen
//! again, uses counted, one forgotten) rewrites the whole file with
//! [`crate::fsutil::atomic_write`], losing nothing it did not understand: the skipped lines are
//! written back unchanged after the records, and fields it does not know (a newer ralph's) stay
//! in their record (`extra`). Does not build a signature, redact or select (see
//! [`crate::errors_seen`]; the loop redacts before it stores), nor decide when to record (the loop
//! does). The file is never archived on a `branchName` change: what was learned stays.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What fixed a failure: the attempt that passed after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Fix {
    /// Files the passing attempt changed.
    #[serde(default)]
    pub files: Vec<String>,
    /// Lines added and removed per file: `src/a.rs +12 -3, src/b.rs +1 -0`.
    #[serde(default)]
    pub diff: String,
    /// The agent's learning line from its progress.txt entry, if it wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning: Option<String>,
    /// Fields this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One learned error pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pattern {
    /// Short stable id: a hash of the command and the signature.
    pub id: String,
    /// The verify command that failed.
    pub command: String,
    /// The failure's first error lines, normalised (numbers, paths, hashes, times).
    pub signature: Vec<String>,
    pub fix: Fix,
    /// The story whose fail→pass taught it.
    pub story: String,
    /// RFC 3339 times the failure was first and last seen fixed.
    pub first_seen: String,
    pub last_seen: String,
    /// How many fail→pass pairs showed this signature.
    #[serde(default = "one")]
    pub seen: u32,
    /// How many real prompts included it.
    #[serde(default)]
    pub uses: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<String>,
    /// Fields this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl Pattern {
    /// The pattern with only the fields this version knows (what `--json` shows).
    pub(crate) fn known(&self) -> Pattern {
        let mut p = self.clone();
        p.extra.clear();
        p.fix.extra.clear();
        p
    }
}

/// The file read: its patterns, and the non-empty lines that are not one (kept to write back).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub patterns: Vec<Pattern>,
    /// Lines skipped as not patterns, byte for byte as they were (a torn line, junk, a record
    /// without id; UTF-8 or not).
    pub skipped: Vec<Vec<u8>>,
}

fn one() -> u32 {
    1
}

/// The patterns file cannot be read or written, or a pattern is not there.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PatternsError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error("{path}: cannot write a pattern: {source}")]
    Encode {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: no pattern with id \"{id}\"; `ralph patterns` lists the ids")]
    Unknown { path: PathBuf, id: String },
    #[error(
        "{path}: \"{id}\" starts {} pattern ids ({}); give more of the id (`ralph patterns` lists them)",
        matches.len(),
        matches.join(", ")
    )]
    Ambiguous {
        path: PathBuf,
        id: String,
        matches: Vec<String>,
    },
}

impl crate::problem::Coded for PatternsError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            PatternsError::Io(f) => return f.problem(),
            PatternsError::Encode { path, .. } => Problem::at("io", path),
            PatternsError::Unknown { path, .. } => Problem::at("unknown-pattern", path),
            PatternsError::Ambiguous { path, .. } => Problem::at("ambiguous-pattern", path),
        })
    }
}

pub(crate) fn path(root: &Path) -> PathBuf {
    super::state_dir(root).join("patterns.jsonl")
}

/// Every pattern in file order, and how many non-empty lines were skipped as not patterns. A
/// missing file has none.
pub(crate) fn read_counted(root: &Path) -> Result<(Vec<Pattern>, usize), PatternsError> {
    read_parsed(root).map(|p| {
        let n = p.skipped.len();
        (p.patterns, n)
    })
}

/// Every pattern (skipped lines not counted).
#[cfg(test)]
pub(crate) fn read(root: &Path) -> Result<Vec<Pattern>, PatternsError> {
    read_counted(root).map(|(p, _)| p)
}

/// The file under `root`, patterns and skipped lines; a missing file has neither.
fn read_parsed(root: &Path) -> Result<Parsed, PatternsError> {
    let Some(bytes) = crate::fsutil::read_if_exists(&path(root))? else {
        return Ok(Parsed::default());
    };
    Ok(parse(&bytes))
}

/// The patterns in `bytes` (pure): a line that is not one is skipped and kept as it was.
pub(crate) fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    for raw in bytes.split(|b| *b == b'\n') {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Pattern>(raw) {
            Ok(p) if !p.id.is_empty() => out.patterns.push(p),
            _ => out.skipped.push(raw.to_vec()),
        }
    }
    out
}

/// Rewrite the file with `file.patterns` (one line each), then the skipped lines unchanged,
/// atomically.
pub(crate) fn write_all(root: &Path, file: &Parsed) -> Result<(), PatternsError> {
    let p = path(root);
    let mut text: Vec<u8> = Vec::new();
    for pat in &file.patterns {
        let line = serde_json::to_vec(pat).map_err(|source| PatternsError::Encode {
            path: p.clone(),
            source,
        })?;
        text.extend_from_slice(&line);
        text.push(b'\n');
    }
    for line in &file.skipped {
        text.extend_from_slice(line);
        text.push(b'\n');
    }
    if let Some(dir) = p.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    crate::fsutil::atomic_write(&p, &text)?;
    Ok(())
}

/// Add `new` to `list` (pure), or, when its id is there already, count it seen again: the
/// newest fix and the story it was fixed in replace the old ones (a prompt says "Fixed in
/// <story> by changing: <fix>", so the two go together), `seen` grows, `last_seen` moves; uses
/// and fields this version does not know are kept.
pub(crate) fn upsert(list: &mut Vec<Pattern>, new: Pattern) {
    match list.iter_mut().find(|p| p.id == new.id) {
        Some(p) => {
            p.seen = p.seen.saturating_add(1);
            p.last_seen = new.last_seen;
            p.story = new.story;
            let extra = std::mem::take(&mut p.fix.extra);
            p.fix = new.fix;
            for (k, v) in extra {
                p.fix.extra.entry(k).or_insert(v);
            }
        }
        None => list.push(new),
    }
}

/// Count one use of each of `ids` at `now` (pure). Returns whether anything changed.
pub(crate) fn count_uses(list: &mut [Pattern], ids: &[String], now: &str) -> bool {
    let mut changed = false;
    for p in list.iter_mut().filter(|p| ids.contains(&p.id)) {
        p.uses = p.uses.saturating_add(1);
        p.last_used = Some(now.to_string());
        changed = true;
    }
    changed
}

/// The one pattern whose id is `id` or starts with it (pure).
pub(crate) fn find<'a>(
    list: &'a [Pattern],
    id: &str,
    file: &Path,
) -> Result<&'a Pattern, PatternsError> {
    let id = id.trim();
    if let Some(p) = list.iter().find(|p| p.id == id) {
        return Ok(p);
    }
    let matches: Vec<&Pattern> = if id.is_empty() {
        vec![]
    } else {
        list.iter().filter(|p| p.id.starts_with(id)).collect()
    };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(PatternsError::Unknown {
            path: file.to_path_buf(),
            id: id.to_string(),
        }),
        many => Err(PatternsError::Ambiguous {
            path: file.to_path_buf(),
            id: id.to_string(),
            matches: many.iter().map(|p| p.id.clone()).collect(),
        }),
    }
}

/// Record `new` in the file under `root` (a new pattern, or one seen again).
pub(crate) fn record(root: &Path, new: Pattern) -> Result<(), PatternsError> {
    let mut file = read_parsed(root)?;
    upsert(&mut file.patterns, new);
    write_all(root, &file)
}

/// Count one use of each of `ids` in the file under `root`; nothing is written when none is
/// there.
pub(crate) fn mark_used(root: &Path, ids: &[String], now: &str) -> Result<(), PatternsError> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut file = read_parsed(root)?;
    if count_uses(&mut file.patterns, ids, now) {
        write_all(root, &file)?;
    }
    Ok(())
}

/// Drop the pattern `id` (or the one whose id starts with it) from the file under `root`, and
/// return it.
pub(crate) fn forget(root: &Path, id: &str) -> Result<Pattern, PatternsError> {
    let file = path(root);
    let mut parsed = read_parsed(root)?;
    let gone = find(&parsed.patterns, id, &file)?.clone();
    parsed.patterns.retain(|p| p.id != gone.id);
    write_all(root, &parsed)?;
    Ok(gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(id: &str) -> Pattern {
        Pattern {
            id: id.into(),
            command: "cargo test".into(),
            signature: vec!["error: boom at lib.rs:N".into()],
            fix: Fix {
                files: vec!["src/lib.rs".into()],
                diff: "src/lib.rs +1 -1".into(),
                learning: None,
                ..Fix::default()
            },
            story: "S-1".into(),
            first_seen: "2026-11-26T10:00:00Z".into(),
            last_seen: "2026-11-26T10:00:00Z".into(),
            seen: 1,
            uses: 0,
            last_used: None,
            ..Pattern::default()
        }
    }

    #[test]
    fn torn_and_junk_lines_are_skipped_and_counted() {
        let good = serde_json::to_string(&pat("abc123")).unwrap();
        let text = format!("{good}\nnot json\n\n{{\"id\":\"x\",\"comm");
        let parsed = parse(text.as_bytes());
        assert_eq!(parsed.patterns, vec![pat("abc123")]);
        assert_eq!(
            parsed.skipped,
            [b"not json".to_vec(), b"{\"id\":\"x\",\"comm".to_vec()]
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_comes_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".ralph")).unwrap();
        let torn: &[u8] = b"{\"id\":\"t\",\"command\":\"caf\xc3";
        let mut bytes = torn.to_vec();
        bytes.push(b'\n');
        std::fs::write(path(root), &bytes).unwrap();
        record(root, pat("abc123")).unwrap();
        let after = std::fs::read(path(root)).unwrap();
        assert!(after.windows(torn.len()).any(|w| w == torn), "{after:?}");
        assert_eq!(read_counted(root).unwrap().1, 1);
    }

    #[test]
    fn a_rewrite_keeps_lines_it_cannot_read_and_fields_it_does_not_know() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut future = serde_json::to_value(pat("abc111")).unwrap();
        future["severity"] = serde_json::json!({"level": 3});
        future["fix"]["reviewed"] = serde_json::json!(true);
        std::fs::create_dir_all(root.join(".ralph")).unwrap();
        std::fs::write(
            path(root),
            format!("{future}\n{{\"id\":\"torn\",\"comm\nnot json at all\n"),
        )
        .unwrap();
        record(root, pat("abd222")).unwrap();
        mark_used(root, &["abc111".into()], "t1").unwrap();
        let mut again = pat("abc111");
        again.story = "S-9".into();
        record(root, again).unwrap();
        forget(root, "abd").unwrap();
        let text = std::fs::read_to_string(path(root)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(
            lines[1], "{\"id\":\"torn\",\"comm",
            "skipped lines come back unchanged"
        );
        assert_eq!(lines[2], "not json at all");
        let kept: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(kept["severity"], serde_json::json!({"level": 3}), "{text}");
        assert_eq!(kept["fix"]["reviewed"], true, "{text}");
        assert_eq!(kept["uses"], 1);
        assert_eq!(kept["seen"], 2);
        assert_eq!(kept["story"], "S-9");
        let (list, skipped) = read_counted(root).unwrap();
        assert_eq!(skipped, 2);
        assert!(list[0].known().extra.is_empty() && list[0].known().fix.extra.is_empty());
        let shown = serde_json::to_value(list[0].known()).unwrap();
        assert!(shown.get("severity").is_none(), "{shown}");
    }

    #[test]
    fn the_same_id_again_updates_instead_of_duplicating() {
        let mut list = vec![pat("a1")];
        count_uses(&mut list, &["a1".into()], "t1");
        let mut again = pat("a1");
        again.last_seen = "2026-11-27T10:00:00Z".into();
        again.fix.files = vec!["src/b.rs".into()];
        upsert(&mut list, again);
        upsert(&mut list, pat("b2"));
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].seen, 2);
        assert_eq!(list[0].uses, 1);
        assert_eq!(list[0].last_used.as_deref(), Some("t1"));
        assert_eq!(list[0].fix.files, ["src/b.rs"]);
        assert_eq!(list[0].story, "S-1");
        let mut later = pat("a1");
        later.story = "S-2".into();
        later.last_seen = "2026-11-27T10:00:00Z".into();
        later.fix.files = vec!["S-2.cfg".into()];
        upsert(&mut list, later);
        assert_eq!(
            (list[0].story.as_str(), list[0].fix.files.as_slice()),
            ("S-2", ["S-2.cfg".to_string()].as_slice()),
            "the story goes with the fix it made"
        );
        assert_eq!(list[0].seen, 3);
        assert_eq!(list[0].first_seen, "2026-11-26T10:00:00Z");
        assert_eq!(list[0].last_seen, "2026-11-27T10:00:00Z");
    }

    #[test]
    fn the_file_round_trips_and_forget_drops_one_by_unique_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(read(root).unwrap().is_empty());
        record(root, pat("abc111")).unwrap();
        record(root, pat("abd222")).unwrap();
        record(root, pat("abc111")).unwrap();
        mark_used(root, &["abd222".into()], "now").unwrap();
        let list = read(root).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].seen, 2);
        assert_eq!(list[1].uses, 1);
        let err = forget(root, "ab").unwrap_err().to_string();
        assert!(err.contains("abc111") && err.contains("abd222"), "{err}");
        let err = forget(root, "zz").unwrap_err().to_string();
        assert!(
            err.contains("patterns.jsonl") && err.contains("`ralph patterns` lists the ids"),
            "{err}"
        );
        assert_eq!(forget(root, "abd").unwrap().id, "abd222");
        let left = read(root).unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].id, "abc111");
        let text = std::fs::read_to_string(path(root)).unwrap();
        assert!(!text.contains("abd222"));
    }
}
