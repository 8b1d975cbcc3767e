//! Gathering a story's context from the project's files into plain [`Inputs`].
//!
//! Owns which files are read and what is taken from each: the instructions
//! ([`super::instructions::load`]), the Pin (`specs/INDEX.md`, ranked by [`crate::pin::search`]
//! for keywords of the story's title, description and criteria; the first lines of each hit's
//! spec, read only inside the project), progress.txt ([`crate::progress::LogView`]: Codebase
//! Patterns, each blocker's latest entry, recent entries) and `.ralph/history.jsonl` (each
//! blocker's files changed and commit) and `.ralph/patterns.jsonl` (the learned error patterns,
//! chosen by [`crate::errors_seen::select`] once the files are ranked). Does not decide what fits:
//! [`super::assemble`] does.

use std::io::{BufRead, BufReader, Read};
use std::path::{Component, Path};

use super::account::Assembled;
use super::assemble::assemble;
use super::error::ContextError;
use super::inputs::{DepOutput, Inputs, PinHit, RemainingStory};
use super::instructions::{self, Flavour};
use super::options::Options;
use crate::errors_seen::Failure;
use crate::index::{PinEvidence, QueryTerm, as_written, written_words};
use crate::prd::{Prd, Story};

/// The most bytes read from one spec file, whatever its line count (a minified file is one line).
const SPEC_READ_LIMIT: u64 = 256 * 1024;

/// The search terms of a story (title weighing more than the rest), redacted first: a secret
/// is never a search term.
pub(crate) fn story_query(s: &Story) -> Vec<crate::index::QueryTerm> {
    let title = super::redact::redact(&s.title).0;
    let mut rest = format!("{}\n{}\n", s.description, s.notes);
    for c in &s.acceptance_criteria {
        rest.push_str(c);
        rest.push('\n');
    }
    crate::index::query(&title, &super::redact::redact(&rest).0)
}

/// The story `id` of `prd`, or the error that names the file and the nearest id.
pub(crate) fn find_story<'a>(prd: &'a Prd, id: &str) -> Result<&'a Story, ContextError> {
    prd.story(id).ok_or_else(|| ContextError::UnknownStory {
        path: prd.path.clone(),
        id: id.to_string(),
        hint: crate::suggest::nearest(id, prd.stories.iter().map(|s| s.id.as_str()))
            .map(|s| format!(" (did you mean {s}?)"))
            .unwrap_or_default(),
    })
}

/// Everything the prompt for `story` (one of `prd`'s) is made of, read from the project at
/// `root`.
/// `retry` is why the last attempt failed, when this is a retry; `failure` the verify failure
/// it ended with, when it did (it chooses the error patterns shown).
pub(crate) fn gather(
    root: &Path,
    prd: &Prd,
    story: &Story,
    retry: Option<&str>,
    failure: Option<&Failure>,
    flavour: Flavour,
    opts: &Options,
) -> Result<Inputs, ContextError> {
    let instructions = instructions::load(root, flavour, opts.instructions.as_deref())?.text;
    let query = story_query(story);
    let (progress, found) = read_both(root, story, &query, opts);
    let Progress {
        dep_entries,
        patterns,
        recent,
    } = progress?;
    let deps = dep_outputs(root, prd, story, dep_entries)?;
    let Found {
        pins,
        index,
        has_pin,
        mut notes,
    } = found?;
    let evidence = evidence(&pins, &deps);
    let files = ranked_files(root, index, &query, &evidence, opts, &mut notes);
    let errors = error_patterns(root, failure, &files, &mut notes);
    Ok(Inputs {
        instructions,
        story: story.clone(),
        retry: retry.map(str::to_string),
        steering: opts.steering.clone(),
        deps,
        patterns,
        errors,
        pins: as_written_pins(pins, &query),
        recent,
        keywords: query.iter().map(|q| q.written.clone()).collect(),
        remaining: remaining(prd, story),
        files,
        has_pin,
        branch: branch(prd),
        notes,
    })
}

/// The progress log and the code are independent reads; a big log is scanned on a second core
/// while the index is loaded and the Pin searched.
fn read_both(
    root: &Path,
    story: &Story,
    query: &[QueryTerm],
    opts: &Options,
) -> (Result<Progress, ContextError>, Result<Found, ContextError>) {
    crate::par::beside(
        || from_progress(root, story, opts),
        || find(root, query, opts),
    )
}

/// What each blocker produced: its title, the files and commit of its last `done`, its
/// progress entry. Only a story with blockers reads the history.
fn dep_outputs(
    root: &Path,
    prd: &Prd,
    story: &Story,
    dep_entries: Vec<Option<String>>,
) -> Result<Vec<DepOutput>, ContextError> {
    if story.blocked_by.is_empty() {
        return Ok(Vec::new());
    }
    let history = crate::state::history::read(root)?;
    Ok(story
        .blocked_by
        .iter()
        .zip(dep_entries)
        .map(|(id, progress_entry)| {
            let title = prd
                .story(id)
                .map_or_else(|| "(not in prd.json)".to_string(), |s| s.title.clone());
            // The one reader `ralph show` uses too.
            let done = crate::state::outputs::last_done(&history, id);
            DepOutput {
                id: id.clone(),
                title,
                files_changed: done.map(|r| r.files_changed.clone()).unwrap_or_default(),
                commit: done.and_then(|r| r.head_after.clone()),
                progress_entry,
            }
        })
        .collect())
}

/// The ranking's evidence beyond the story's words: the Pin entries it matched and the files
/// its blockers changed.
fn evidence(pins: &[PinHit], deps: &[DepOutput]) -> crate::index::Evidence {
    crate::index::Evidence {
        pins: PinEvidence::from_scores(
            pins.iter()
                .map(|p| (p.name.clone(), p.score, p.files.clone()))
                .collect(),
        ),
        blockers: deps
            .iter()
            .flat_map(|d| d.files_changed.iter().map(|f| (d.id.clone(), f.clone())))
            .collect(),
    }
}

/// Where to look: the index (`loaded` as it was cached) brought up to date and ranked; a
/// warning or an empty project becomes a note. The cached index is ranked, and the signatures
/// of what it shows read, while the project's files are stat'd; kept when none changed.
fn ranked_files(
    root: &Path,
    loaded: Option<crate::index::store::Index>,
    query: &[QueryTerm],
    evidence: &crate::index::Evidence,
    opts: &Options,
    notes: &mut Vec<String>,
) -> Vec<crate::index::Ranked> {
    use crate::index::scan;
    let (refreshed, early) = scan::refresh_reading(root, loaded, opts.save_index, |ix| {
        let mut files = crate::index::rank::rank(ix, query, evidence, opts.files)?;
        scan::read_sigs(root, &mut files);
        Ok::<_, crate::index::store::Damaged>(files)
    });
    notes.extend(refreshed.warning);
    let mut index = refreshed.index;
    let files = match early {
        Some(Ok(files)) => files,
        _ => {
            let (mut files, warning) = scan::rank_or_rebuild(
                root,
                &mut index,
                opts.save_index,
                query,
                evidence,
                opts.files,
            );
            scan::read_sigs(root, &mut files);
            notes.extend(warning);
            files
        }
    };
    if index.is_empty() {
        notes.push(format!(
            "{}: no source files found to name in the prompt",
            root.display()
        ));
    }
    files
}

/// The Pin hits with their matched words as the story wrote them.
fn as_written_pins(pins: Vec<PinHit>, query: &[QueryTerm]) -> Vec<PinHit> {
    pins.into_iter()
        .map(|mut p| {
            p.matched = p.matched.iter().map(|m| as_written(query, m)).collect();
            p
        })
        .collect()
}

/// The other unfinished stories, in the order the loop would run them.
fn remaining(prd: &Prd, story: &Story) -> Vec<RemainingStory> {
    let mut rest: Vec<&Story> = prd
        .stories
        .iter()
        .filter(|s| !s.passes && !s.removed && s.id != story.id)
        .collect();
    rest.sort_by_key(|s| (s.priority, s.index));
    rest.into_iter()
        .map(|s| RemainingStory {
            id: s.id.clone(),
            title: s.title.clone(),
        })
        .collect()
}

/// prd.json's `branchName`, when it names one.
fn branch(prd: &Prd) -> Option<String> {
    prd.value
        .get("branchName")
        .and_then(serde_json::Value::as_str)
        .filter(|b| !b.trim().is_empty())
        .map(str::to_string)
}

/// The learned error patterns for the story (`.ralph/patterns.jsonl`): like its current
/// `failure` (redacted before it is compared, as the stored ones were), else sharing files with
/// the ranked `files`. An unreadable file costs the section, never the prompt.
fn error_patterns(
    root: &Path,
    failure: Option<&Failure>,
    files: &[crate::index::Ranked],
    notes: &mut Vec<String>,
) -> Vec<crate::errors_seen::Chosen> {
    let (stored, skipped) = match crate::state::errors_seen::read_counted(root) {
        Ok(r) => r,
        Err(e) => {
            notes.push(format!("error patterns left out: {e}"));
            return vec![];
        }
    };
    if skipped > 0 {
        notes.push(format!(
            "{}: skipped {skipped} line(s) that are not patterns",
            crate::state::errors_seen::path(root).display()
        ));
    }
    if stored.is_empty() {
        return vec![];
    }
    let current = failure.map(|f| crate::errors_seen::signature(&super::redact::redact(&f.tail).0));
    let ranked: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    crate::errors_seen::select(&stored, current.as_deref(), &ranked)
}

/// What the search side of gathering found.
struct Found {
    pins: Vec<PinHit>,
    /// The cached index as loaded, not yet brought up to date.
    index: Option<crate::index::store::Index>,
    has_pin: bool,
    notes: Vec<String>,
}

/// Refresh the code index and search the Pin for the story's terms.
fn find(
    root: &Path,
    query: &[crate::index::QueryTerm],
    opts: &Options,
) -> Result<Found, ContextError> {
    let mut notes = Vec::new();
    let has_pin = root.join(crate::pin::INDEX_PATH).is_file();
    if !has_pin {
        notes.push(format!(
            "no {} (the Pin) in {}: the prompt names files from the code alone; run `ralph pin generate` to create it",
            crate::pin::INDEX_PATH,
            root.display()
        ));
    }
    // The Pin is searched on a second core while the cached index is loaded: neither reads
    // what the other writes.
    let words = written_words(query);
    let (pins, index) = crate::par::beside(
        || pin_hits(root, &words, opts),
        || crate::index::store::load(root),
    );
    Ok(Found {
        pins: pins?,
        index,
        has_pin,
        notes,
    })
}

/// What the prompt takes from progress.txt.
struct Progress {
    /// Per blocker of the story (in `blocked_by` order), its latest progress.txt entry.
    dep_entries: Vec<Option<String>>,
    patterns: Option<String>,
    recent: Vec<String>,
}

/// Read progress.txt (if any) and take what the prompt for `story` shows.
fn from_progress(root: &Path, story: &Story, opts: &Options) -> Result<Progress, ContextError> {
    let path = crate::progress::path_in(root);
    let bytes = crate::fsutil::read_if_exists(&path)?;
    // A borrowed view: one scan, and only the entries shown are copied.
    let Some(log) = bytes.as_deref().map(crate::progress::LogView::parse) else {
        return Ok(Progress {
            dep_entries: vec![None; story.blocked_by.len()],
            patterns: None,
            recent: Vec::new(),
        });
    };
    let dep_entries = story
        .blocked_by
        .iter()
        .map(|id| crate::state::outputs::latest_entry(&log, id))
        .collect();
    let patterns = log
        .codebase_patterns()
        .map(|p| patterns_body(&p))
        .filter(|p| !p.trim().is_empty());
    // Enough recent entries that the last `recent_entries` remain after the assembler skips the
    // blockers' entries (already shown).
    let n = opts.recent_entries + story.blocked_by.len();
    let recent = log
        .recent_entries(n)
        .iter()
        .map(|e| e.text().into_owned())
        .collect();
    Ok(Progress {
        dep_entries,
        patterns,
        recent,
    })
}

/// The Pin entries that best match `query` (already redacted: a secret is no search term), with
/// the head of each one's spec.
fn pin_hits(root: &Path, query: &str, opts: &Options) -> Result<Vec<PinHit>, ContextError> {
    let pin = crate::pin::searchable(root, opts.save_index)?;
    Ok(pin
        .search(query, opts.top_k)
        .into_iter()
        .map(|found| {
            let (hit, e) = (found.hit, found.entry);
            let spec = e.spec_path();
            let spec_excerpt = spec
                .as_deref()
                .and_then(|s| read_spec_head(root, s, opts.spec_lines));
            PinHit {
                name: e.name.to_string(),
                score: hit.score,
                matched: hit.matched,
                files: e.files.iter().map(|f| (*f).to_string()).collect(),
                spec,
                spec_excerpt,
            }
        })
        .collect())
}

/// The Codebase Patterns section without its heading line(s) and closing separators.
fn patterns_body(section: &str) -> String {
    let mut out = String::with_capacity(section.len());
    for line in section.split_inclusive('\n') {
        let t = line.trim();
        if t.eq_ignore_ascii_case("## Codebase Patterns") || t == "---" {
            continue;
        }
        out.push_str(line);
    }
    out.trim_matches('\n').to_string() + "\n"
}

/// The first `lines` lines of the spec at `rel` (relative to `root`), or `None` when the link
/// leaves the project (absolute, `..`, a symlink out), is missing or unreadable. A broken link
/// never fails the prompt; `ralph pin check` reports it.
fn read_spec_head(root: &Path, rel: &str, lines: usize) -> Option<String> {
    let rel_path = Path::new(rel);
    if rel_path.is_absolute()
        || rel_path
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    let full = root.join(rel_path);
    let canon_root = root.canonicalize().ok()?;
    let canon = full.canonicalize().ok()?;
    if !canon.starts_with(&canon_root) || !canon.is_file() {
        return None;
    }
    let file = std::fs::File::open(&canon).ok()?;
    let mut reader = BufReader::new(file.take(SPEC_READ_LIMIT));
    let mut buf = Vec::new();
    for _ in 0..lines {
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// Build the prompt the loop sends for `story`: [`gather`] then [`super::assemble`].
/// This is the one function the loop calls each iteration (and `ralph context`).
pub(crate) fn build_prompt(
    root: &Path,
    prd: &Prd,
    story: &Story,
    retry: Option<&str>,
    failure: Option<&Failure>,
    flavour: Flavour,
    opts: &Options,
) -> Result<Assembled, ContextError> {
    let inputs = gather(root, prd, story, retry, failure, flavour, opts)?;
    assemble(&inputs, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_body_drops_headings_and_separators() {
        let section = "## Codebase Patterns\n- use X\n- never Y\n---\n";
        assert_eq!(patterns_body(section), "- use X\n- never Y\n");
        let two = "## Codebase Patterns\n- a\n---\n## Codebase Patterns\n- b\n";
        assert_eq!(patterns_body(two), "- a\n- b\n");
    }

    #[test]
    fn spec_heads_are_read_only_inside_the_project() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("proj");
        std::fs::create_dir_all(root.join("specs")).unwrap();
        std::fs::write(outer.path().join("secret.md"), "outside\n").unwrap();
        std::fs::write(root.join("specs/a.md"), "1\n2\n3\n4\n").unwrap();
        assert_eq!(
            read_spec_head(&root, "specs/a.md", 2).as_deref(),
            Some("1\n2\n")
        );
        assert_eq!(
            read_spec_head(&root, "./specs/a.md", 9).as_deref(),
            Some("1\n2\n3\n4\n")
        );
        assert_eq!(read_spec_head(&root, "specs/missing.md", 2), None);
        assert_eq!(read_spec_head(&root, "specs", 2), None);
        assert_eq!(read_spec_head(&root, "../secret.md", 2), None);
        assert_eq!(read_spec_head(&root, "specs/../../secret.md", 2), None);
        let abs = outer.path().join("secret.md");
        assert_eq!(read_spec_head(&root, abs.to_str().unwrap(), 2), None);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&abs, root.join("specs/link.md")).unwrap();
            assert_eq!(read_spec_head(&root, "specs/link.md", 2), None);
        }
    }

    #[test]
    fn a_huge_one_line_spec_is_read_only_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("min.js"), vec![b'x'; 1 << 20]).unwrap();
        let head = read_spec_head(dir.path(), "min.js", 100).unwrap();
        assert_eq!(head.len() as u64, SPEC_READ_LIMIT);
    }
}
