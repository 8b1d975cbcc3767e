//! The report as a terminal table ([`text`]) and as a markdown table for a PR description
//! ([`markdown`]): the same rows and totals. Pure; owns neither the model nor any printing.

use super::{Columns, Report, StoryRow, cost, duration, thousands};
use crate::ui::printable;

/// The outcome as a person reads it (`verify-failed` is `verify failed`).
pub(crate) fn outcome_label(outcome: &str) -> String {
    match outcome {
        "incomplete" => "not finished".into(),
        o => o.replace('-', " "),
    }
}

/// The table's header and rows (the totals last), the optional columns only when present; the
/// terminal, markdown and HTML tables all render these.
pub(super) fn table(r: &Report) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let c = r.columns;
    let mut head = vec!["story", "iters", "time", "outcome"];
    let opt = |on: bool, name: &'static str, head: &mut Vec<&'static str>| {
        if on {
            head.push(name);
        }
    };
    opt(c.verify, "verify", &mut head);
    opt(c.workers, "worker", &mut head);
    opt(c.merge, "merge", &mut head);
    opt(c.review, "review", &mut head);
    opt(c.tokens, "tokens", &mut head);
    opt(c.cost, "cost", &mut head);
    let mut rows: Vec<Vec<String>> = r.stories.iter().map(|s| cells(c, s)).collect();
    let t = &r.totals;
    let mut total = vec![
        format!("total ({} done of {})", t.done, t.stories),
        t.iterations.to_string(),
        duration(t.duration_ms),
        String::new(),
    ];
    for (on, cell) in [
        (c.verify, String::new()),
        (c.workers, String::new()),
        (c.merge, String::new()),
        (c.review, String::new()),
        (c.tokens, t.tokens.map_or("-".into(), thousands)),
        (c.cost, t.cost_usd.map_or("-".into(), cost)),
    ] {
        if on {
            total.push(cell);
        }
    }
    rows.push(total);
    (head, rows)
}

/// A story's row: the fixed cells, then the optional columns `c` shows.
fn cells(c: Columns, s: &StoryRow) -> Vec<String> {
    let mut cells = vec![
        printable(&s.story),
        s.iterations.to_string(),
        duration(s.duration_ms),
        printable(&outcome_label(&s.outcome)),
    ];
    if c.verify {
        cells.push(if s.verify_total == 0 {
            "-".into()
        } else {
            format!("{}/{}", s.verify_passed, s.verify_total)
        });
    }
    if c.workers {
        let w: Vec<String> = s.workers.iter().map(u64::to_string).collect();
        cells.push(w.join(","));
    }
    if c.merge {
        cells.push(s.merge.as_deref().map_or("-".into(), printable));
    }
    if c.review {
        cells.push(s.review.as_deref().map_or("-".into(), printable));
    }
    if c.tokens {
        cells.push(s.tokens.map_or("-".into(), thousands));
    }
    if c.cost {
        cells.push(s.cost_usd.map_or("-".into(), cost));
    }
    cells
}

/// Numbers read best right-aligned.
pub(super) fn right_aligned(name: &str) -> bool {
    matches!(name, "iters" | "time" | "tokens" | "cost")
}

/// The line above the table: which run, when, how long.
pub(crate) fn title(r: &Report) -> String {
    let when = r
        .iterations
        .first()
        .and_then(|i| i.start.as_deref())
        .map(|s| format!(", started {}", super::when(s)))
        .unwrap_or_default();
    let runs = match r.runs.as_slice() {
        [one] => format!("run {one}"),
        many => format!("{} runs ({} to {})", many.len(), first(many), last(many)),
    };
    printable(&format!(
        "ralph report: {runs}{when}; wall time {}",
        duration(r.totals.wall_ms)
    ))
}

fn first(v: &[String]) -> &str {
    v.first().map_or("", String::as_str)
}

fn last(v: &[String]) -> &str {
    v.last().map_or("", String::as_str)
}

fn skipped_note(r: &Report) -> Option<String> {
    (r.skipped_lines > 0).then(|| {
        format!(
            "{} line(s) of the history are not records and were skipped",
            r.skipped_lines
        )
    })
}

/// A plain-text table for a terminal.
pub(crate) fn text(r: &Report) -> String {
    let (head, rows) = table(r);
    let width = |i: usize| {
        rows.iter()
            .map(|row| row[i].chars().count())
            .chain([head[i].len()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..head.len()).map(width).collect();
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            if right_aligned(head[i]) {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            }
        }
        out.trim_end().to_string()
    };
    let mut out = format!("{}\n\n", title(r));
    let head_cells: Vec<String> = head.iter().map(|h| h.to_string()).collect();
    out.push_str(&line(&head_cells));
    out.push('\n');
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let (total, stories) = rows
        .split_last()
        .map_or((None, &rows[..]), |(t, s)| (Some(t), s));
    for row in stories {
        out.push_str(&line(row));
        out.push('\n');
    }
    out.push_str(&line(&rule));
    out.push('\n');
    if let Some(t) = total {
        out.push_str(&line(t));
        out.push('\n');
    }
    if let Some(note) = skipped_note(r) {
        out.push_str(&format!("\nnote: {note}\n"));
    }
    out
}

/// `|` would end a markdown cell, a newline the row; `<` would start inline HTML.
fn md_cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// A markdown table with the same content, for a PR description.
pub(crate) fn markdown(r: &Report) -> String {
    let (head, rows) = table(r);
    let mut out = format!("### {}\n\n", md_cell(&title(r)));
    out.push_str(&format!("| {} |\n", head.join(" | ")));
    let align: Vec<&str> = head
        .iter()
        .map(|h| if right_aligned(h) { "---:" } else { "---" })
        .collect();
    out.push_str(&format!("| {} |\n", align.join(" | ")));
    let n = rows.len();
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .map(|c| {
                let c = md_cell(c);
                if i + 1 == n && !c.is_empty() {
                    format!("**{c}**")
                } else {
                    c
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if let Some(note) = skipped_note(r) {
        out.push_str(&format!("\n_{note}_\n"));
    }
    out
}
