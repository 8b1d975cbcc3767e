//! The isolated review of a gated story, as pure policy: the reviewer's prompt (its
//! instructions, the story and its acceptance criteria, the diff of the story's work and the
//! verify results, never the developing agent's transcript), reading the reviewer's verdict
//! (`REVIEW: APPROVE` or `REVIEW: CHANGES` on a line of its own, then the items), the note the
//! story's next prompt carries, and when a story is held for a person.
//!
//! Runs nothing: the reviewer's process, the diff and the history record are
//! `crate::run::iteration::reviewer`'s; the built-in instructions are `crate::context::instructions`'.

use std::collections::HashMap;

/// The most items a verdict keeps, and the most characters of one item.
const MAX_ITEMS: usize = 20;
const MAX_ITEM_CHARS: usize = 400;

/// What the reviewer said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Approve,
    /// The items to change (possibly none listed).
    Changes(Vec<String>),
    /// No verdict line (or the reviewer timed out, crashed, only echoed its prompt): why.
    Missing(String),
}

impl Verdict {
    pub(crate) fn approved(&self) -> bool {
        matches!(self, Verdict::Approve)
    }

    /// `approve`, `changes` or `none`, as history records it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Changes(_) => "changes",
            Verdict::Missing(_) => "none",
        }
    }

    pub(crate) fn items(&self) -> &[String] {
        match self {
            Verdict::Changes(items) => items,
            _ => &[],
        }
    }
}

/// A verdict line's word, or `None` when `line` is not one. The line is read without the
/// emphasis a chat-style reviewer puts around it (`**REVIEW: APPROVE**`, `` `...` ``, `## `);
/// `REVIEW: CHANGES: x` carries its first item on the same line.
fn verdict_line(line: &str) -> Option<(bool, Option<String>)> {
    let t = line
        .trim()
        .trim_start_matches('#')
        .trim_matches(|c: char| c == '*' || c == '`' || c == '_' || c.is_whitespace());
    let rest = t.get(..7).filter(|p| p.eq_ignore_ascii_case("REVIEW:"))?;
    let rest = t[rest.len()..].trim_start();
    let word_end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let (word, tail) = rest.split_at(word_end);
    let approve = match word.to_ascii_uppercase().as_str() {
        "APPROVE" | "APPROVED" => true,
        "CHANGES" => false,
        _ => return None,
    };
    let tail = tail
        .trim_start_matches(|c: char| c == ':' || c == '-' || c == '—' || c.is_whitespace())
        .trim_end_matches(['*', '`'])
        .trim();
    if approve && !tail.is_empty() {
        return None;
    }
    Some((approve, (!tail.is_empty()).then(|| tail.to_string())))
}

/// One item as the next prompt shows it: bullet or number removed (as progress.txt's
/// learnings are read, and `• `), cut to a sane length.
fn item(line: &str) -> Option<String> {
    let t = line.trim();
    let t = match t.strip_prefix("• ") {
        Some(rest) => rest.trim(),
        // The bullet is ASCII, so what is left is still UTF-8.
        None => crate::progress::lessons::strip_bullet(t.as_bytes())
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or(t),
    };
    if t.is_empty() || t.chars().all(|c| c == '-' || c == '=' || c == '`') {
        return None;
    }
    Some(match t.char_indices().nth(MAX_ITEM_CHARS) {
        Some((at, _)) => format!("{}…", &t[..at]),
        None => t.to_string(),
    })
}

/// The nearest non-blank line before (`step` -1) or after (+1) `i`, trimmed.
fn neighbour<'a>(lines: &[&'a str], i: usize, step: isize) -> Option<&'a str> {
    let mut j = i as isize + step;
    while j >= 0 && (j as usize) < lines.len() {
        let l = lines[j as usize].trim();
        if !l.is_empty() {
            return Some(l);
        }
        j += step;
    }
    None
}

/// Whether output line `i` (a verdict line the prompt holds too) is the reviewer echoing its
/// prompt: at one of the places the prompt holds it, the line before or the line after is the
/// same as in the output (a copy of the prompt carries its neighbours; a verdict of the
/// reviewer's own follows its own words). A line with no neighbours on either side is an echo.
fn echoes(out: &[&str], i: usize, prompt: &[&str], at: &[usize]) -> bool {
    let (before, after) = (neighbour(out, i, -1), neighbour(out, i, 1));
    at.iter().any(|&j| {
        let (pb, pa) = (neighbour(prompt, j, -1), neighbour(prompt, j, 1));
        (before.is_some() && before == pb)
            || (after.is_some() && after == pa)
            || (before.is_none() && after.is_none())
    })
}

/// The reviewer's verdict in `output`: the last verdict line counts, and for CHANGES the lines
/// after it are the items. A verdict line that is the reviewer echoing its prompt (the prompt
/// holds it, with the same neighbours: see [`echoes`]) never counts; the same line said in the
/// reviewer's own words does.
pub(crate) fn parse(output: &str, prompt: &str) -> Verdict {
    let prompt: Vec<&str> = prompt.lines().collect();
    let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, l) in prompt.iter().enumerate() {
        if verdict_line(l).is_some() {
            at.entry(l.trim()).or_default().push(j);
        }
    }
    let lines: Vec<&str> = output.lines().collect();
    let last = lines.iter().enumerate().rev().find_map(|(i, l)| {
        let v = verdict_line(l)?;
        match at.get(l.trim()) {
            Some(places) if echoes(&lines, i, &prompt, places) => None,
            _ => Some((i, v)),
        }
    });
    match last {
        None if output.trim().is_empty() => Verdict::Missing("the reviewer printed nothing".into()),
        None => Verdict::Missing(
            "no line `REVIEW: APPROVE` or `REVIEW: CHANGES` in the reviewer's output".into(),
        ),
        Some((_, (true, _))) => Verdict::Approve,
        Some((i, (false, first))) => {
            let items = first
                .into_iter()
                .chain(lines[i + 1..].iter().filter_map(|l| item(l)))
                .take(MAX_ITEMS)
                .collect();
            Verdict::Changes(items)
        }
    }
}

/// One verify command's result, as the reviewer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    pub command: String,
    pub passed: bool,
}

/// Everything the reviewer's prompt holds.
#[derive(Debug, Clone)]
pub(crate) struct Input<'a> {
    pub instructions: &'a str,
    pub id: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    pub criteria: &'a [String],
    /// The diff of the story's work (`git diff <head before>`, untracked files as new files).
    pub diff: &'a str,
    /// How the diff was taken, for the reviewer to look further (`git diff abc123`).
    pub diff_how: &'a str,
    pub checks: &'a [Check],
    /// This review's round (1-based) and the most there will be.
    pub round: u32,
    pub max_rounds: u32,
    /// The most bytes of diff the prompt carries.
    pub max_diff: usize,
}

/// The reviewer's prompt.
pub(crate) fn prompt(i: &Input<'_>) -> String {
    let mut p = String::with_capacity(i.instructions.len() + i.diff.len().min(i.max_diff) + 2048);
    p.push_str(i.instructions.trim_end());
    p.push_str("\n\n# Story under review\n\n");
    p.push_str(&format!("{}: {}\n", i.id, i.title));
    if !i.description.trim().is_empty() {
        p.push_str(&format!("\n{}\n", i.description.trim()));
    }
    p.push_str("\n## Acceptance criteria\n\n");
    if i.criteria.is_empty() {
        p.push_str("(none listed: judge the story by its description)\n");
    }
    for c in i.criteria {
        p.push_str(&format!("- {c}\n"));
    }
    p.push_str("\n## Verify results\n\n");
    if i.checks.is_empty() {
        p.push_str("(no verify commands are configured)\n");
    }
    for c in i.checks {
        let word = if c.passed { "passed" } else { "FAILED" };
        p.push_str(&format!("- `{}`: {word}\n", c.command));
    }
    p.push_str(&format!(
        "\n## Review round\n\nRound {} of {}.\n\n## The diff ({})\n\n",
        i.round, i.max_rounds, i.diff_how
    ));
    p.push_str(&diff_block(i.diff, i.max_diff, i.diff_how));
    p
}

/// The diff in a fence that its own backticks cannot close, cut at a line start when longer
/// than `max` bytes, with how to see the rest.
fn diff_block(diff: &str, max: usize, how: &str) -> String {
    if diff.trim().is_empty() {
        return "(no changes found)\n".to_string();
    }
    let mut cut = diff.len();
    if cut > max {
        let mut at = max;
        while !diff.is_char_boundary(at) {
            at -= 1;
        }
        cut = diff[..at].rfind('\n').map_or(0, |n| n + 1);
    }
    let mut s = crate::context::fence_as(&diff[..cut], "diff");
    if cut < diff.len() {
        s.push_str(&format!(
            "\nThe diff is cut at {cut} of {} bytes; run `{how}` to read the rest.\n",
            diff.len()
        ));
    }
    s
}

/// What the story's next prompt says after a review that did not approve.
pub(crate) fn retry_reason(v: &Verdict, round: u32, max_rounds: u32) -> String {
    let head = format!("The review (round {round} of {max_rounds})");
    match v {
        Verdict::Approve => format!("{head} approved the story."),
        Verdict::Changes(items) if items.is_empty() => format!(
            "{head} asked for changes without listing them. The story was marked not passing again: check your work against every acceptance criterion."
        ),
        Verdict::Changes(items) => {
            let mut s = format!(
                "{head} asked for changes. The story was marked not passing again; address each item:"
            );
            for i in items {
                s.push_str(&format!("\n- {i}"));
            }
            s
        }
        Verdict::Missing(why) => format!(
            "{head} gave no verdict ({why}), so the story is not approved and was marked not passing again. Check your work against every acceptance criterion."
        ),
    }
}

/// The short status-line text of a review that did not approve.
pub(crate) fn detail(v: &Verdict) -> String {
    match v {
        Verdict::Approve => "review approved".into(),
        Verdict::Changes(items) => match items.len() {
            0 => "review asked for changes".into(),
            1 => "review asked for 1 change".into(),
            n => format!("review asked for {n} changes"),
        },
        Verdict::Missing(why) => format!("review gave no verdict: {why}"),
    }
}

/// Why a story is held for a person once its reviews did not approve `rounds` times in a run
/// (`None` while rounds are left).
pub(crate) fn held(rounds: u32, max_rounds: u32, id: &str) -> Option<String> {
    (rounds >= max_rounds).then(|| {
        format!(
            "review: not approved in {rounds} round(s); held for a person (`ralph show {id}` has the items)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approve_and_changes_lines_are_read_with_their_items() {
        assert_eq!(parse("looks fine\nREVIEW: APPROVE\n", ""), Verdict::Approve);
        assert_eq!(parse("**REVIEW: APPROVE**", ""), Verdict::Approve);
        assert_eq!(parse("  review: approved  ", ""), Verdict::Approve);
        let out = "notes\nREVIEW: CHANGES\n- add a test for empty input\n2. rename `x`\n\n* fix the typo\n";
        assert_eq!(
            parse(out, ""),
            Verdict::Changes(vec![
                "add a test for empty input".into(),
                "rename `x`".into(),
                "fix the typo".into()
            ])
        );
        assert_eq!(
            parse("REVIEW: CHANGES: handle errors", ""),
            Verdict::Changes(vec!["handle errors".into()])
        );
    }

    #[test]
    fn a_verdict_must_be_a_line_of_its_own_and_the_last_one_counts() {
        let v = parse("I will answer REVIEW: APPROVE later\n", "");
        assert!(matches!(v, Verdict::Missing(_)), "{v:?}");
        assert!(matches!(
            parse("REVIEW: APPROVE please", ""),
            Verdict::Missing(_)
        ));
        assert!(matches!(parse("REVIEW: MAYBE", ""), Verdict::Missing(_)));
        assert_eq!(
            parse(
                "REVIEW: CHANGES\n- x\nafter fixing my misreading:\nREVIEW: APPROVE",
                ""
            ),
            Verdict::Approve
        );
        assert!(matches!(parse("", ""), Verdict::Missing(w) if w.contains("nothing")));
    }

    #[test]
    fn a_reviewer_that_echoes_its_prompt_gives_no_verdict() {
        let p = prompt(&input(
            "diff --git a/x b/x\n+REVIEW: APPROVE\n REVIEW: APPROVE\n",
        ));
        // The diff quotes a file holding the verdict line: the echo does not count.
        let v = parse(&p, &p);
        assert!(matches!(v, Verdict::Missing(_)), "{v:?}");
        // The built-in instructions never hold a verdict line themselves.
        for l in crate::context::instructions::REVIEWER.lines() {
            assert_eq!(verdict_line(l), None, "{l}");
        }
        // A real verdict after the echo counts.
        assert_eq!(
            parse(&format!("{p}\nREVIEW: CHANGES\n- y"), &p).name(),
            "changes"
        );
    }

    fn input(diff: &str) -> Input<'_> {
        Input {
            instructions: crate::context::instructions::REVIEWER,
            id: "S-1",
            title: "Add it",
            description: "desc",
            criteria: &[],
            diff,
            diff_how: "git diff abc",
            checks: &[],
            round: 1,
            max_rounds: 2,
            max_diff: 10_000,
        }
    }

    #[test]
    fn the_prompt_holds_story_criteria_checks_and_the_diff_fenced() {
        let criteria = vec!["works".to_string(), "has tests".to_string()];
        let checks = vec![Check {
            command: "cargo test".into(),
            passed: true,
        }];
        let diff = "diff --git a/a.md b/a.md\n+```rust\n+x\n+```\n";
        let p = prompt(&Input {
            criteria: &criteria,
            checks: &checks,
            ..input(diff)
        });
        assert!(p.contains("S-1: Add it") && p.contains("- works\n- has tests"));
        assert!(p.contains("- `cargo test`: passed"));
        assert!(p.contains("Round 1 of 2"));
        assert!(
            p.contains("````diff\n"),
            "a fence longer than the diff's own"
        );
        assert!(p.contains(diff));
    }

    #[test]
    fn a_long_diff_is_cut_at_a_line_and_says_how_to_see_the_rest() {
        let diff = "+line one\n".repeat(100);
        let p = prompt(&Input {
            max_diff: 105,
            ..input(&diff)
        });
        assert!(p.contains("+line one\n".repeat(10).as_str()));
        assert!(!p.contains("+line one\n".repeat(11).as_str()));
        assert!(p.contains("cut at 100 of 1000 bytes; run `git diff abc`"));
        assert!(prompt(&input("")).contains("(no changes found)"));
    }

    #[test]
    fn notes_details_and_holding() {
        let v = Verdict::Changes(vec!["a".into(), "b".into()]);
        let r = retry_reason(&v, 1, 2);
        assert!(r.starts_with("The review (round 1 of 2) asked for changes"));
        assert!(r.ends_with("\n- a\n- b"));
        assert_eq!(detail(&v), "review asked for 2 changes");
        let m = Verdict::Missing("timed out after 5m".into());
        assert!(retry_reason(&m, 2, 2).contains("gave no verdict (timed out after 5m)"));
        assert_eq!(held(1, 2, "S-1"), None);
        assert!(held(2, 2, "S-1").unwrap().contains("ralph show S-1"));
    }

    #[test]
    fn items_are_capped_in_number_and_length() {
        let long = "x".repeat(1000);
        let out = format!("REVIEW: CHANGES\n{}", format!("- {long}\n").repeat(50));
        let Verdict::Changes(items) = parse(&out, "") else {
            panic!()
        };
        assert_eq!(items.len(), MAX_ITEMS);
        assert_eq!(items[0].chars().count(), MAX_ITEM_CHARS + 1);
    }
}
