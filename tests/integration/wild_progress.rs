//! Every progress.txt in tests/fixtures/wild/progress/ (real logs, see SOURCES.tsv) is a
//! compaction case: every `## Codebase Patterns` line and every lesson line survives
//! `compact --force` and `compact --force --keep-recent 0` (as written, or merged into a near
//! duplicate as specs/progress.md allows), the archive is the original byte for byte, and
//! `--dry-run` changes nothing.

use crate::support::ralph_in;
use std::path::{Path, PathBuf};

fn logs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wild/progress");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn bullet(t: &str) -> Option<&str> {
    for m in ["- ", "* ", "+ "] {
        if let Some(r) = t.strip_prefix(m) {
            return Some(r.trim());
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let r = &t[digits..];
        if let Some(r) = r.strip_prefix(". ").or_else(|| r.strip_prefix(") ")) {
            return Some(r.trim());
        }
    }
    None
}

/// The label of a line (`**Learnings:**`, `### Gotchas`, `Key insight: …`): its name, lowercase.
fn label_name(t: &str) -> Option<String> {
    let t = bullet(t).unwrap_or(t);
    let heading = t.starts_with('#');
    let t = t.trim_start_matches('#').trim();
    let bold = t.starts_with("**");
    let t = t.trim_start_matches('*');
    let name = match t.find(':') {
        Some(i) => &t[..i],
        None if heading || (bold && t.ends_with("**")) => t,
        None => return None,
    };
    let name = name.trim_end_matches('*').trim();
    // A note in parentheses does not make a label prose: "Learnings (carry into X-003):".
    let bare: String = name
        .split('(')
        .map(|p| p.rsplit(')').next().unwrap_or(p))
        .collect();
    (heading || bold || bare.split_whitespace().count() <= 4).then(|| name.to_lowercase())
}

fn is_lesson_label(name: &str) -> bool {
    [
        "learning", "lesson", "gotcha", "pattern", "insight", "takeaway",
    ]
    .iter()
    .any(|w| name.contains(w))
}

/// (patterns lines, lesson lines) of a log, each as text that must be found in the output.
fn must_keep(log: &str) -> (Vec<String>, Vec<String>) {
    let (mut patterns, mut lessons) = (Vec::new(), Vec::new());
    let mut in_patterns = false;
    let mut in_lessons = false;
    // Indentation of the last bullet while the lines after it can be its wrapped text.
    let mut wrap_of: Option<usize> = None;
    for line in log.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("## ") {
            in_patterns = h.to_lowercase().starts_with("codebase patterns");
            in_lessons = false;
            continue;
        }
        if in_patterns {
            if !t.is_empty() && !t.chars().all(|c| c == '-') {
                patterns.push(line.to_string());
            }
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if bullet(t).is_some() {
            wrap_of = Some(indent);
        } else if !t.is_empty() && wrap_of.is_some_and(|b| indent > b) {
            // A wrapped line ("  14 interactive patterns: a, b") is neither a label nor a
            // lesson of its own: its bullet's first line is what must be found.
            continue;
        } else {
            wrap_of = None;
        }
        if t.chars().all(|c| c == '-') && t.len() >= 3 {
            in_lessons = false;
            continue;
        }
        if let Some(name) = label_name(t) {
            if is_lesson_label(&name) {
                in_lessons = true;
                let rest = t.split_once(':').map_or("", |(_, r)| r);
                let rest = rest.trim().trim_start_matches('*').trim();
                if !rest.is_empty() {
                    lessons.push(rest.to_string());
                }
                continue;
            }
            if t.starts_with('#')
                || (t.trim_start_matches("- ").starts_with("**") && t.ends_with(":**"))
            {
                in_lessons = false;
                continue;
            }
        }
        if in_lessons
            && let Some(b) = bullet(t)
            && b.len() > 3
        {
            lessons.push(b.to_string());
        }
    }
    (patterns, lessons)
}

/// A lesson is found when its first 60 characters are (wrapped lines are joined into one).
fn prefix(s: &str) -> &str {
    match s.char_indices().nth(60) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The near-duplicate rule of specs/progress.md, written again from the spec as the oracle:
/// both normalised (lower case, punctuation to spaces) texts 24+ chars, lengths within 10%, the
/// same digits, the same code names (inner capital or underscore), similarity ratio >= 0.9.
fn near_duplicate(a: &str, b: &str) -> bool {
    fn norm(s: &str) -> String {
        let words: Vec<String> = s
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        words.join(" ")
    }
    fn names(s: &str) -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.contains('_') || w.chars().skip(1).any(|c| c.is_ascii_uppercase()))
            .map(str::to_ascii_lowercase)
            .collect()
    }
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    let (na, nb) = (norm(a), norm(b));
    let (la, lb) = (na.len(), nb.len());
    la.min(lb) >= 24
        && la.abs_diff(lb) * 10 <= la.max(lb)
        && digits(&na) == digits(&nb)
        && names(a) == names(b)
        && strsim::normalized_levenshtein(&na, &nb) >= 0.9
}

/// The `N duplicates merged` count compact reports.
fn merged(said: &str) -> usize {
    said.split(" duplicates merged")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.trim_start_matches('(').parse().ok())
        .unwrap_or(0)
}

fn compact(log: &Path, extra: &[&str]) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(log, dir.path().join("progress.txt")).unwrap();
    let o = ralph_in(dir.path())
        .args(["compact", "--force"])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!err.contains("panicked"), "{}: {err}", log.display());
    assert_eq!(o.status.code(), Some(0), "{}: {out}{err}", log.display());
    let text = String::from_utf8_lossy(&std::fs::read(dir.path().join("progress.txt")).unwrap())
        .into_owned();
    (dir, text, format!("{out}{err}"))
}

#[test]
fn every_pattern_and_lesson_survives_compaction() {
    let mut report = Vec::new();
    for log in logs() {
        let original = std::fs::read(&log).unwrap();
        let text = String::from_utf8_lossy(&original).into_owned();
        let (patterns, lessons) = must_keep(&text);
        for extra in [&[][..], &["--keep-recent", "0"][..]] {
            let (dir, out, said) = compact(&log, extra);
            let compacted = !said.contains("nothing to compact");
            for p in &patterns {
                assert!(
                    out.contains(p.as_str()),
                    "{} {extra:?}: pattern line lost: {p}",
                    log.display()
                );
            }
            // A lesson is kept as written, or merged into a near duplicate (an earlier wording
            // of the same fact), and then compact must have counted the merge.
            let bullets: Vec<&str> = out.lines().filter_map(|l| bullet(l.trim())).collect();
            let (kept, missing): (Vec<&String>, Vec<&String>) =
                lessons.iter().partition(|l| out.contains(prefix(l)));
            let (near, lost): (Vec<&String>, Vec<&String>) = missing
                .into_iter()
                .partition(|l| bullets.iter().any(|b| near_duplicate(l, b)));
            assert!(
                lost.is_empty(),
                "{} {extra:?}: {} of {} lessons lost, e.g. {:?}",
                log.display(),
                lost.len(),
                lessons.len(),
                &lost[..lost.len().min(3)]
            );
            assert!(
                near.len() <= merged(&said),
                "{} {extra:?}: {} lessons found only as near duplicates, {said}",
                log.display(),
                near.len()
            );
            assert!(kept.len() + near.len() == lessons.len());
            if compacted {
                let archive = std::fs::read_dir(dir.path().join(".ralph/archive"))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.to_string_lossy().contains("progress-"))
                    .unwrap();
                assert_eq!(
                    std::fs::read(archive).unwrap(),
                    original,
                    "{}",
                    log.display()
                );
            } else {
                assert_eq!(out.as_bytes(), &original[..], "{}", log.display());
            }
        }
        report.push(format!(
            "{}: {} patterns, {} lessons",
            log.display(),
            patterns.len(),
            lessons.len()
        ));
    }
    assert_eq!(report.len(), 26, "{report:#?}");
}

#[test]
fn dry_run_changes_nothing() {
    for log in logs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.txt");
        std::fs::copy(&log, &path).unwrap();
        let o = ralph_in(dir.path())
            .args(["compact", "--force", "--keep-recent", "0", "--dry-run"])
            .output()
            .unwrap();
        assert!(o.status.code().is_some(), "{}", log.display());
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&log).unwrap(),
            "{}",
            log.display()
        );
        assert!(
            !dir.path().join(".ralph/archive").exists(),
            "{}",
            log.display()
        );
    }
}
