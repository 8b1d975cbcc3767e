//! Compaction policy: progress.txt bytes in, shorter progress.txt bytes out, plus what was done.
//!
//! Owns which blocks stay verbatim (header, every Codebase Patterns section, anything that is not
//! an entry, the most recent entries up to `keep_recent` lines, whole entries only) and which are
//! folded into the single `## Compacted History` section (older entries and earlier compacted
//! sections). [`compact`] is pure apart from the optional [`Summarizer`]; [`auto`] is the I/O
//! wrapper the loop calls before each iteration. Archive, atomic write and compaction.log are in
//! `store.rs`; the section format is in `compacted.rs`.

use std::path::Path;

use super::compacted::History;
use super::parse::{self, Block, BlockKind};
use super::store::{self, ProgressError, Summary};
use super::summarizer::{self, Summarizer};

pub(crate) use super::compaction::{
    CompactError, Compacted, DEFAULT_KEEP_RECENT, DEFAULT_THRESHOLD, Options, Stats, SummaryMethod,
};

/// Which entry blocks are the most recent ones kept verbatim.
fn keep_window(blocks: &[Block], keep_recent: usize) -> Vec<bool> {
    let mut keep = vec![false; blocks.len()];
    if keep_recent == 0 {
        return keep;
    }
    let mut used = 0;
    for (i, b) in blocks.iter().enumerate().rev() {
        if !matches!(b.kind, BlockKind::Entry { .. }) {
            continue;
        }
        if used > 0 && used + b.lines > keep_recent {
            break;
        }
        keep[i] = true;
        used += b.lines;
    }
    keep
}

/// `\r\n` when the file's first line ends so, else `\n`: new lines match the file.
fn line_ending(input: &[u8]) -> &'static [u8] {
    match input.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && input[i - 1] == b'\r' => b"\r\n",
        _ => b"\n",
    }
}

/// Compact a progress log. See the module doc for what is kept; the result is always shorter
/// than the input, or an error says why nothing was done.
pub fn compact(input: &[u8], opts: &Options) -> Result<Compacted, CompactError> {
    // Counted before scanning: the loop calls this every iteration, and a log under the
    // threshold needs no scan (the blocks' line counts add up to the same number).
    let lines_before = parse::count_lines(input);
    if !opts.force && lines_before <= opts.threshold {
        return Err(CompactError::UnderThreshold {
            lines: lines_before,
            threshold: opts.threshold,
        });
    }
    let blocks = parse::scan(input);
    let old = old_blocks(&blocks, opts.keep_recent);
    let entries = blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Entry { .. }))
        .count();
    let hist = history_of(input, &blocks, &old);
    if hist.entries == 0 {
        return Err(CompactError::NothingOld {
            entries,
            keep_recent: opts.keep_recent,
        });
    }
    let eol = line_ending(input);
    let (method, out) = match &opts.summarizer {
        Some(s) => {
            let file = Old {
                input,
                blocks: &blocks,
                old: &old,
                eol,
            };
            summarized(&file, &hist, s.as_ref(), lines_before)
        }
        None => (SummaryMethod::Deterministic, None),
    };
    let bytes = match out {
        Some(b) => b,
        None => assemble(input, &blocks, &old, eol, &hist, None),
    };
    let lines_after = parse::count_lines(&bytes);
    if lines_after >= lines_before {
        return Err(CompactError::NotShorter {
            before: lines_before,
            after: lines_after,
        });
    }
    let stats = Stats {
        lines_before,
        lines_after,
        entries_compacted: hist.entries,
        entries_kept: entries - hist.entries,
        stories: hist.story_count(),
        learnings: hist.learnings.len(),
        duplicates_merged: hist.learnings.merged,
        method,
    };
    Ok(Compacted { bytes, stats })
}

/// The compacted history of the old blocks: each old entry added, an old section folded in.
fn history_of<'a>(input: &'a [u8], blocks: &'a [Block], old: &[bool]) -> History<'a> {
    let mut hist = History::default();
    for (b, _) in blocks.iter().zip(old).filter(|(_, o)| **o) {
        let bytes = &input[b.span.clone()];
        match &b.kind {
            BlockKind::Entry { date, story_id } => hist.add_entry(bytes, date, story_id),
            _ => hist.fold_section(bytes),
        }
    }
    hist
}

/// Which blocks are old: entries outside the recent window, and the compacted history
/// section (folded into the new one).
fn old_blocks(blocks: &[Block], keep_recent: usize) -> Vec<bool> {
    let keep = keep_window(blocks, keep_recent);
    blocks
        .iter()
        .zip(&keep)
        .map(|(b, &k)| match b.kind {
            BlockKind::Entry { .. } => !k,
            BlockKind::CompactedHistory => true,
            _ => false,
        })
        .collect()
}

/// The file being compacted: its bytes, blocks, which of them are old, its line ending.
struct Old<'a> {
    input: &'a [u8],
    blocks: &'a [Block],
    old: &'a [bool],
    eol: &'a [u8],
}

/// The file with the agent's summary, when the agent's answer is accepted and makes it
/// shorter than `lines_before`; otherwise why not (the deterministic section is used).
fn summarized(
    f: &Old<'_>,
    hist: &History<'_>,
    s: &dyn Summarizer,
    lines_before: usize,
) -> (SummaryMethod, Option<Vec<u8>>) {
    match agent_answer(hist, f.blocks, f.old, f.input, s) {
        Ok(answer) => {
            let bytes = assemble(f.input, f.blocks, f.old, f.eol, hist, Some(&answer));
            if parse::count_lines(&bytes) < lines_before {
                (SummaryMethod::Agent, Some(bytes))
            } else {
                let why = "the file would not be shorter".into();
                (SummaryMethod::Fallback(why), None)
            }
        }
        Err(why) => (SummaryMethod::Fallback(why), None),
    }
}

/// The new file: every kept block verbatim, the section where the first old block was.
/// Whitespace-only blocks between old blocks go with them (they only separated entries).
fn assemble(
    input: &[u8],
    blocks: &[Block],
    old: &[bool],
    eol: &[u8],
    hist: &History<'_>,
    answer: Option<&str>,
) -> Vec<u8> {
    let first = old.iter().position(|&o| o).unwrap_or(0);
    let last = old.iter().rposition(|&o| o).unwrap_or(0);
    let kept = |i: usize, b: &Block| {
        let between = i > first && i < last;
        let blank_gap =
            between && b.kind == BlockKind::Other && input[b.span.clone()].trim_ascii().is_empty();
        !old[i] && !blank_gap
    };
    let kept_len: usize = blocks
        .iter()
        .enumerate()
        .filter(|(i, b)| kept(*i, b))
        .map(|(_, b)| b.span.len())
        .sum();
    // Sized once: no reallocation, so peak memory stays close to input + output.
    let mut out = Vec::with_capacity(kept_len + eol.len() + hist.size_hint(eol.len(), answer));
    let mut placed = false;
    for (i, b) in blocks.iter().enumerate() {
        if old[i] && !placed {
            if !out.is_empty() && !out.ends_with(b"\n") {
                out.extend_from_slice(eol);
            }
            hist.render_into(&mut out, eol, answer);
            placed = true;
        } else if kept(i, b) {
            out.extend_from_slice(&input[b.span.clone()]);
        }
    }
    out
}

/// Ask the summarizer for an accepted answer; Err is the reason to fall back, for the report.
fn agent_answer(
    hist: &History<'_>,
    blocks: &[Block],
    old: &[bool],
    input: &[u8],
    s: &dyn Summarizer,
) -> Result<String, String> {
    let mut old_text = String::new();
    for (b, _) in blocks.iter().zip(old).filter(|(_, o)| **o) {
        old_text.push_str(&String::from_utf8_lossy(&input[b.span.clone()]));
        if !old_text.ends_with('\n') {
            old_text.push('\n');
        }
    }
    let learnings: Vec<String> = hist
        .learnings
        .texts()
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .collect();
    let norms: Vec<String> = hist.learnings.norms().collect();
    let norms: Vec<&str> = norms.iter().map(String::as_str).collect();
    let answer = s
        .summarize(&summarizer::prompt(&old_text, &learnings))
        .map_err(|e| e.to_string())?;
    summarizer::accept(&answer, &old_text, &norms).map_err(|r| r.to_string())
}

/// Compact `<root>/progress.txt` if it is over the threshold: archive the exact original, write
/// the result atomically, log it in `.ralph/compaction.log`. Ok(None) when there is no file or
/// nothing to compact (under the threshold, no old entry, result not shorter).
pub(crate) fn auto(root: &Path, opts: &Options) -> Result<Option<Summary>, ProgressError> {
    let path = super::path_in(root);
    let Some(original) = store::read_if_exists(&path)? else {
        return Ok(None);
    };
    match compact(&original.bytes, opts) {
        Ok(c) => store::commit(root, &original, &c).map(Some),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests;
