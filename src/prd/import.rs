//! `ralph prd import`: a markdown PRD of the common shape into a prd.json value, deterministically
//! and without an agent (pure: text in, value and a report of what was not understood out).
//!
//! Recognised: story headings `## `…`#### ` followed by an id (`US-001`, `US-1`, `T-3a`) and a
//! title; `**Description:**` (or a plain paragraph, or `**As a** / **I want** / **So that**`
//! lines) for the description; `**Acceptance Criteria:**` list items (`- [ ]`, `- [x]`, `- `,
//! `1.`), one criterion per item with its wrapped lines and nested sub-items; dependency lines
//! (`**Depends on:** US-001, US-002`, `blockedBy: US-001`, `Requires US-003`). Other labelled parts
//! of a story go to its `notes`; other sections are reported. Does not read or write files.

use regex::Regex;
use serde_json::{Value, json};
use std::sync::LazyLock;

static STORY_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(#{2,4})\s+(?:\*\*)?(?:Story\s+)?([A-Za-z][A-Za-z0-9]*-\d+[A-Za-z]?)(?:\*\*)?\s*(?:[:.\-–—]\s*)?(.*)$")
        .expect("static regex")
});
static LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\*\*([^*]+?)\s*:?\s*\*\*\s*:?\s*(.*)$").expect("static regex"));
static LIST_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[([ xX])\]\s*)?(.*)$").expect("static regex")
});
static DEP_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:[-*+]\s+)?(?:\*\*)?(depends\s+on|dependencies|blocked\s*by|requires|prerequisites)\b(?:\*\*)?\s*:?\s*(?:\*\*)?\s*(.*)$")
        .expect("static regex")
});
static ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z][A-Za-z0-9]*-\d+[A-Za-z]?").expect("static regex"));

/// The imported document and what the import could not place.
#[derive(Debug, Clone)]
pub(crate) struct Imported {
    pub value: Value,
    /// One line per thing not understood or kept elsewhere (a section, a label, a reference).
    pub report: Vec<String>,
}

#[derive(Debug, Default)]
struct Story {
    id: String,
    title: String,
    description: Vec<String>,
    criteria: Vec<String>,
    checked: Vec<bool>,
    deps: Vec<String>,
    notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Right after the heading: a plain paragraph is the description.
    Start,
    Description,
    Criteria,
    /// Under a label ralph has no field for: kept in notes.
    Other,
}

/// Why nothing could be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no user story found: ralph looks for headings such as `### US-001: Title` (levels ## to ####), each followed by `**Acceptance Criteria:**` and a list"
)]
pub(crate) struct NoStories;

/// Import a markdown PRD.
pub(crate) fn import(markdown: &str) -> Result<Imported, NoStories> {
    let mut r = Reader {
        stories: Vec::new(),
        project: None,
        intro: Vec::new(),
        intro_done: false,
        skipped_sections: Vec::new(),
        story_level: 0,
        mode: Mode::Start,
        in_fence: false,
        item_indent: None,
    };
    for raw in markdown.lines() {
        r.line(raw.trim_end());
    }
    if r.stories.is_empty() {
        return Err(NoStories);
    }
    let mut report = Vec::new();
    let value = build(r.project, &r.intro, &mut r.stories, &mut report);
    if !r.skipped_sections.is_empty() {
        report.push(format!(
            "sections not imported (prd.json has no place for them): {}",
            r.skipped_sections.join(", ")
        ));
    }
    Ok(Imported { value, report })
}

/// The markdown read so far, a line at a time.
struct Reader {
    stories: Vec<Story>,
    project: Option<String>,
    intro: Vec<String>,
    intro_done: bool,
    skipped_sections: Vec<String>,
    /// The heading level of the story being read; 0 outside a story.
    story_level: usize,
    mode: Mode,
    in_fence: bool,
    item_indent: Option<usize>,
}

impl Reader {
    /// One line, its trailing whitespace cut.
    fn line(&mut self, line: &str) {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            self.in_fence = !self.in_fence;
            self.note(line.trim());
            return;
        }
        if self.in_fence {
            self.note(line);
            return;
        }
        if let Some(c) = STORY_HEADING.captures(line) {
            self.story_level = c[1].len();
            self.stories.push(Story {
                id: c[2].to_string(),
                title: clean(&c[3]),
                ..Story::default()
            });
            self.mode = Mode::Start;
            self.item_indent = None;
            return;
        }
        if let Some(level) = heading_level(line) {
            self.heading(level, line[level..].trim().to_string());
            return;
        }
        let Some(story) = self.stories.last_mut().filter(|_| self.story_level > 0) else {
            self.intro_line(line.trim());
            return;
        };
        self.mode = story_line(story, line, self.mode, &mut self.item_indent);
    }

    /// A line inside a code fence: kept in the current story's notes, if any.
    fn note(&mut self, line: &str) {
        if let Some(s) = self.stories.last_mut().filter(|_| self.story_level > 0) {
            s.notes.push(line.to_string());
        }
    }

    /// A heading that is not a story's: the project's name, or the end of the story.
    fn heading(&mut self, level: usize, title: String) {
        if level == 1 && self.project.is_none() {
            self.project = Some(project_name(&title));
        } else if self.story_level == 0 || level <= self.story_level {
            self.story_level = 0;
            if level == 2 && !title.to_lowercase().contains("user stor") {
                self.skipped_sections.push(title);
            }
        }
    }

    /// A line outside any story: the intro's first paragraph after the title.
    fn intro_line(&mut self, t: &str) {
        if self.project.is_some() && self.stories.is_empty() && !self.intro_done {
            if !t.is_empty() && !t.starts_with(['#', '-', '*', '>', '|', '[']) {
                self.intro.push(t.to_string());
            } else if !self.intro.is_empty() {
                self.intro_done = true;
            }
        }
    }
}

/// The level of a markdown heading line (`### x` → 3).
fn heading_level(line: &str) -> Option<usize> {
    let n = line.bytes().take_while(|&b| b == b'#').count();
    (n > 0 && n <= 6 && line.as_bytes().get(n) == Some(&b' ')).then_some(n)
}

/// `PRD: Context Management` → `Context Management`.
fn project_name(title: &str) -> String {
    let t = title.trim();
    let lower = t.to_lowercase();
    for prefix in [
        "prd:",
        "product requirements document:",
        "product requirements:",
    ] {
        if lower.starts_with(prefix) {
            return t[prefix.len()..].trim().to_string();
        }
    }
    t.to_string()
}

/// Markdown emphasis markers around a title removed.
fn clean(s: &str) -> String {
    s.trim().trim_matches('*').trim().to_string()
}

/// One line of a story's body; returns the next mode.
fn story_line(story: &mut Story, line: &str, mode: Mode, item_indent: &mut Option<usize>) -> Mode {
    let t = line.trim();
    if t.is_empty() {
        return if mode == Mode::Description && !story.description.is_empty() {
            Mode::Other
        } else {
            mode
        };
    }
    if t.chars().all(|c| c == '-') && t.len() >= 3 {
        return mode;
    }
    if let Some(deps) = dependency_line(t) {
        story.deps.extend(deps);
        return mode;
    }
    if let Some(c) = LABEL.captures(t) {
        let label = c[1].trim().trim_end_matches(':').trim().to_lowercase();
        let rest = c[2].trim();
        *item_indent = None;
        return match label.as_str() {
            "description" | "user story" | "story" => {
                push_text(&mut story.description, rest);
                Mode::Description
            }
            "acceptance criteria" | "criteria" | "acceptance" => Mode::Criteria,
            "as a" | "as an" | "i want" | "i want to" | "so that" => {
                story.description.push(format!("{} {rest}", c[1].trim()));
                Mode::Start
            }
            _ => {
                story.notes.push(t.to_string());
                Mode::Other
            }
        };
    }
    match mode {
        Mode::Criteria => criteria_line(story, line, item_indent),
        Mode::Start | Mode::Description if !t.starts_with(['>', '|']) => {
            push_text(&mut story.description, t);
            Mode::Description
        }
        _ => {
            story.notes.push(t.to_string());
            mode
        }
    }
}

fn push_text(into: &mut Vec<String>, text: &str) {
    if !text.is_empty() {
        into.push(text.to_string());
    }
}

/// A list item starts a criterion; a deeper item or an indented line continues the last one.
fn criteria_line(story: &mut Story, line: &str, item_indent: &mut Option<usize>) -> Mode {
    let indent = line.len() - line.trim_start().len();
    if let Some(c) = LIST_ITEM.captures(line) {
        let top = *item_indent.get_or_insert(indent);
        if indent <= top || story.criteria.is_empty() {
            story.criteria.push(c[3].trim().to_string());
            story
                .checked
                .push(c.get(2).is_some_and(|m| m.as_str() != " "));
            return Mode::Criteria;
        }
    } else if item_indent.is_none() || indent == 0 {
        // A paragraph after the list ends it.
        story.notes.push(line.trim().to_string());
        return Mode::Other;
    }
    if let Some(last) = story.criteria.last_mut() {
        last.push(' ');
        last.push_str(line.trim());
    }
    Mode::Criteria
}

/// The ids a dependency line names (`**Depends on:** US-001, US-002`; `—` or `none` name none),
/// or `None` when the line is not one (a criterion that starts with "Requires the user…").
fn dependency_line(t: &str) -> Option<Vec<String>> {
    let c = DEP_LINE.captures(t)?;
    let ids: Vec<String> = ID
        .find_iter(&c[2])
        .map(|m| m.as_str().to_string())
        .collect();
    let rest = c[2].trim().trim_matches('*').trim().to_lowercase();
    let none = ["", "—", "–", "-", "none", "n/a", "nothing"].contains(&rest.as_str());
    let phrase = c[1].to_lowercase();
    let explicit = !(phrase.starts_with("requires") || phrase.starts_with("prerequisites"));
    (!ids.is_empty() || (none && explicit)).then_some(ids)
}

/// The prd.json value, in ralph's key order; stories in file order, priority = position.
fn build(
    project: Option<String>,
    intro: &[String],
    stories: &mut [Story],
    report: &mut Vec<String>,
) -> Value {
    let project = project.unwrap_or_else(|| "project".into());
    let known: Vec<String> = stories.iter().map(|s| s.id.clone()).collect();
    let out: Vec<Value> = stories
        .iter_mut()
        .enumerate()
        .map(|(i, s)| story_value(i, s, &known, report))
        .collect();
    if out.iter().all(|s| s.get("blockedBy").is_none()) {
        report.push(
            "no dependency lines (`**Depends on:** US-001`): no blockedBy imported; dependencies \
             written only in prose are not read"
                .into(),
        );
    }
    json!({
        "project": project,
        "branchName": format!("ralph/{}", super::dialect::slug(&project)),
        "description": intro.join(" "),
        "userStories": out,
    })
}

/// One story as prd.json's value, at priority `i + 1`; what was left out or assumed said in
/// `report`.
fn story_value(i: usize, s: &mut Story, known: &[String], report: &mut Vec<String>) -> Value {
    let mut deps = Vec::new();
    for d in s.deps.drain(..) {
        if d == s.id || deps.contains(&d) {
            continue;
        }
        if known.contains(&d) {
            deps.push(d);
        } else {
            report.push(format!(
                "{}: dependency {d} is not a story of this PRD: left out",
                s.id
            ));
        }
    }
    let done = !s.checked.is_empty() && s.checked.iter().all(|c| *c);
    if done {
        report.push(format!(
            "{}: every criterion is checked [x]: imported as passing",
            s.id
        ));
    }
    if s.criteria.is_empty() {
        report.push(format!("{}: no acceptance criteria found", s.id));
    }
    let labels = s.notes.iter().filter(|n| n.starts_with("**")).count();
    if !s.notes.is_empty() {
        report.push(format!(
            "{}: {} line(s) that are neither description nor criteria{} kept in \"notes\"",
            s.id,
            s.notes.len(),
            if labels > 0 {
                format!(" ({labels} labelled part(s))")
            } else {
                String::new()
            }
        ));
    }
    let mut story = json!({
        "id": s.id,
        "title": if s.title.is_empty() { s.id.clone() } else { s.title.clone() },
        "description": s.description.join(" "),
        "acceptanceCriteria": s.criteria,
        "priority": i + 1,
        "passes": done,
        "notes": s.notes.join("\n"),
    });
    if !deps.is_empty() {
        story["blockedBy"] = json!(deps);
    }
    story
}

#[cfg(test)]
mod tests;
