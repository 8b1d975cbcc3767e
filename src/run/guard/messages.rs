//! What the guard tells the person when it repaired prd.json or progress.txt: what was wrong,
//! what was kept, where the rejected version is and how to re-apply it (someone may have been
//! editing the file by hand while the agent ran: their edit is in that copy).
//!
//! Pure formatting; the guard's I/O is [`super::repair`].

use std::path::Path;

use super::repair::{Guarded, ProgressRestored};
use crate::state::history::Outcome;

/// What ralph changed in prd.json after one iteration, for its commit message.
pub(crate) struct Correction<'a> {
    pub n: u32,
    pub story: &'a str,
    /// Why the guard repaired the file (empty when it did not).
    pub restored: &'a [String],
    /// The `passes` values ralph wrote itself.
    pub settled: &'a [(String, bool)],
    pub outcome: Outcome,
    pub rejected: Option<&'a Path>,
}

/// The commit message for ralph's correction of prd.json: what and why.
pub(crate) fn correction_message(c: &Correction<'_>) -> String {
    let mut subject = Vec::new();
    if !c.restored.is_empty() {
        subject.push("revert rule-breaking edits to prd.json".to_string());
    }
    for (id, p) in c.settled {
        subject.push(if *p {
            format!("mark {id} passing")
        } else {
            format!("set {id} passes back to false")
        });
    }
    let mut body = Vec::new();
    for r in c.restored {
        body.push(format!("- {r}"));
    }
    if !c.settled.is_empty() {
        body.push(format!(
            "- {}",
            match c.outcome {
                Outcome::Done => "the story was claimed and every verify command passed",
                Outcome::VerifyFailed => "a verify command failed",
                Outcome::Interrupted => "the iteration was interrupted before it was verified",
                Outcome::Blocked => "the agent reported the story blocked",
                _ => "the iteration did not complete the story",
            }
        ));
    }
    if let Some(k) = c.rejected {
        body.push(format!(
            "The rejected version is kept in {} (not committed).",
            k.display()
        ));
    }
    format!(
        "ralph: {} (iteration {}, story {})\n\n{}\n",
        subject.join(", "),
        c.n,
        c.story,
        body.join("\n")
    )
}

/// How to get a rejected version's changes back.
fn reapply(kept: &Path, file: &Path) -> String {
    format!(
        "the rejected version is kept in {k}; if those edits were yours, re-apply them after this run (compare: diff {f} {k})",
        k = kept.display(),
        f = file.display()
    )
}

/// The line for a repaired prd.json; `None` when nothing was wrong.
pub(crate) fn prd_restored(path: &Path, g: &Guarded) -> Option<String> {
    if g.restored.is_empty() {
        return None;
    }
    let what: Vec<String> = g.restored.iter().map(ToString::to_string).collect();
    let only_passes = g.restored.iter().all(|v| v.passes_only().is_some());
    let mut line = if only_passes {
        format!(
            "set passes back to false in {}: {}",
            path.display(),
            what.join("; ")
        )
    } else {
        let kept: Vec<String> = g
            .flips
            .iter()
            .map(|(id, p)| format!("{id} passes={p}"))
            .collect();
        format!(
            "restored {} from before the iteration, reverting only what breaks a rule: {}{}",
            path.display(),
            what.join("; "),
            if kept.is_empty() {
                String::new()
            } else {
                format!(" (re-applied {})", kept.join(", "))
            }
        )
    };
    if let Some(k) = &g.rejected {
        line.push_str("; ");
        line.push_str(&reapply(k, path));
    }
    Some(line)
}

/// The line for a restored progress.txt.
pub(crate) fn progress_restored(p: &ProgressRestored) -> String {
    let mut line = format!("restored progress.txt from before the iteration: {}", p.why);
    if p.appended {
        line.push_str("; the agent's new text is appended to it");
    }
    if let Some(k) = &p.rejected {
        line.push_str("; ");
        line.push_str(&reapply(k, Path::new("progress.txt")));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::guard::policy::Violation;

    #[test]
    fn correction_messages_say_what_and_why() {
        let restored =
            vec!["story B was marked passing, but only the current story may be".to_string()];
        let settled = vec![("A".to_string(), false)];
        let m = correction_message(&Correction {
            n: 3,
            story: "A",
            restored: &restored,
            settled: &settled,
            outcome: Outcome::VerifyFailed,
            rejected: Some(Path::new(".ralph/rejected/r")),
        });
        assert!(m.starts_with("ralph: revert rule-breaking edits to prd.json, set A passes back to false (iteration 3, story A)\n\n"), "{m}");
        assert!(m.contains("- story B was marked passing"), "{m}");
        assert!(m.contains("- a verify command failed"), "{m}");
        assert!(m.contains(".ralph/rejected/r"), "{m}");
    }

    #[test]
    fn messages_name_the_kept_copy_and_how_to_reapply() {
        let p = ProgressRestored {
            why: "progress.txt was deleted".into(),
            rejected: Some(".ralph/rejected/x-iter1-progress.txt".into()),
            appended: true,
        };
        let line = progress_restored(&p);
        assert!(line.contains("appended"), "{line}");
        assert!(line.contains("diff progress.txt .ralph/rejected/x-iter1-progress.txt"));
        let src = r#"{"project": "p", "branchName": "b", "userStories": [
            {"id": "A", "title": "a", "description": "", "acceptanceCriteria": [], "priority": 1, "passes": false}]}"#;
        let g = Guarded {
            prd: crate::prd::Prd::from_bytes(Path::new("prd.json"), src.as_bytes()).unwrap(),
            bytes: vec![],
            restored: vec![Violation::TopLevelChanged("project".into())],
            flips: vec![("A".into(), true)],
            rejected: Some(".ralph/rejected/y".into()),
        };
        let line = prd_restored(Path::new("prd.json"), &g).unwrap();
        assert!(line.contains("re-applied A passes=true"), "{line}");
        assert!(line.contains(".ralph/rejected/y"), "{line}");
    }
}
