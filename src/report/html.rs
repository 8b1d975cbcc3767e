//! The report as ONE self-contained HTML page: inline CSS, no script, no external URL. A
//! summary, the story table, a timeline per run (a lane per parallel worker, a bar per
//! iteration placed by its start and duration, coloured by outcome, with a title tooltip) and
//! the iterations. Every string from the history is escaped. Pure; owns no I/O.

use super::text::{outcome_label, right_aligned, table, title};
use super::{Iteration, Report, cost, duration, thousands};
use std::fmt::Write;

/// `s` safe inside an element or a quoted attribute.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The CSS class of an outcome (unknown outcomes share one).
fn outcome_class(outcome: &str) -> &'static str {
    match outcome {
        "done" => "o-done",
        "verify-failed" => "o-verify",
        "incomplete" => "o-incomplete",
        "agent-failed" => "o-failed",
        "timed-out" => "o-timeout",
        "rate-limited" => "o-rate",
        "interrupted" => "o-interrupted",
        _ => "o-other",
    }
}

const CSS: &str = "
:root{--fg:#1d2330;--muted:#667085;--line:#e3e7ee;--bg:#fff;--panel:#f6f8fb}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:24px 32px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 10px}h3{font-size:13px;margin:16px 0 6px;color:var(--muted);font-weight:600}
.sub{color:var(--muted);margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:18px}.card span{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%}
th,td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;background:var(--panel)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.t{white-space:nowrap}
tr.total td{font-weight:600;border-top:2px solid var(--fg)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
.pill{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;white-space:nowrap}
.lanes{border:1px solid var(--line);border-radius:8px;padding:8px 12px 4px;background:var(--panel)}
.axis,.lane{display:flex;align-items:center}
.label{width:84px;flex:none;font-size:12px;color:var(--muted)}
.track{position:relative;flex:1;height:30px}
.lane .track{border-radius:4px;margin:3px 0}
.grid{position:absolute;top:0;bottom:0;width:1px;background:var(--line)}
.axis .track{height:18px}
.tick{position:absolute;top:0;font-size:11px;color:var(--muted);transform:translateX(-50%);white-space:nowrap}
.tick.first{transform:none}.tick.last{transform:translateX(-100%)}
.bar{position:absolute;top:3px;height:24px;border-radius:4px;min-width:3px;color:#fff;font-size:11px;line-height:24px;padding:0 5px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;box-shadow:inset 0 0 0 1px rgba(0,0,0,.15)}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin:10px 0 0;font-size:12px;color:var(--muted)}
.legend i{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:5px;vertical-align:-2px}
.o-done{background:#2e9e5b}.o-verify{background:#e07b24}.o-incomplete{background:#7b8ba3}.o-failed{background:#d64545}
.o-timeout{background:#8e5cc4}.o-rate{background:#c9a227}.o-interrupted{background:#555}.o-other{background:#999}
.note{color:var(--muted);font-size:12px}
";

/// A whole HTML page for the report.
pub(crate) fn html(r: &Report) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>ralph report</h1>\n\
         <p class=\"sub\">{}</p>\n",
        escape(&title(r)),
        escape(title(r).trim_start_matches("ralph report: "))
    );
    cards(&mut out, r);
    out.push_str("<h2>Stories</h2>\n");
    stories(&mut out, r);
    out.push_str("<h2>Timeline</h2>\n");
    for run in &r.runs {
        let its: Vec<&Iteration> = r.iterations.iter().filter(|i| &i.run_id == run).collect();
        timeline(&mut out, run, &its, r.runs.len() > 1);
    }
    legend(&mut out, r);
    out.push_str("<h2>Iterations</h2>\n");
    iterations(&mut out, r);
    if r.skipped_lines > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} line(s) of the history are not records and were skipped.</p>",
            r.skipped_lines
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn cards(out: &mut String, r: &Report) {
    let t = &r.totals;
    let mut cards = vec![
        (format!("{}/{}", t.done, t.stories), "stories done"),
        (t.iterations.to_string(), "iterations"),
        (duration(t.wall_ms), "wall time"),
        (duration(t.duration_ms), "agent time"),
    ];
    if let Some(n) = t.tokens {
        cards.push((thousands(n), "tokens"));
    }
    if let Some(c) = t.cost_usd {
        cards.push((cost(c), "cost"));
    }
    out.push_str("<div class=\"cards\">\n");
    for (value, what) in cards {
        let _ = writeln!(
            out,
            "<div class=\"card\"><b>{}</b><span>{what}</span></div>",
            escape(&value)
        );
    }
    out.push_str("</div>\n");
}

fn pill(outcome: &str) -> String {
    format!(
        "<span class=\"pill {}\">{}</span>",
        outcome_class(outcome),
        escape(&outcome_label(outcome))
    )
}

/// The story table: [`table`]'s header and cells, each escaped; numbers right-aligned, the
/// story id as code, the outcome as a pill.
fn stories(out: &mut String, r: &Report) {
    let (head, rows) = table(r);
    let class = |i: usize| {
        if right_aligned(head[i]) {
            " class=\"n\""
        } else {
            ""
        }
    };
    out.push_str("<table>\n<tr>");
    for (i, h) in head.iter().enumerate() {
        // The page has room for the whole word.
        let h = if *h == "iters" { "iterations" } else { h };
        let _ = write!(out, "<th{}>{}</th>", class(i), escape(h));
    }
    out.push_str("</tr>\n");
    // The rows are the stories in order, then the totals.
    let mut stories = r.stories.iter();
    for row in &rows {
        let story = stories.next();
        out.push_str(if story.is_some() {
            "<tr>"
        } else {
            "<tr class=\"total\">"
        });
        for (i, cell) in row.iter().enumerate() {
            let inner = match (story, head[i]) {
                (Some(_), "story") => format!("<code>{}</code>", escape(cell)),
                (Some(s), "outcome") => pill(&s.outcome),
                _ => escape(cell),
            };
            let _ = write!(out, "<td{}>{inner}</td>", class(i));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// A round step for about six ticks over `span_ms`.
fn tick_step(span_ms: u64) -> u64 {
    const STEPS: [u64; 14] = [
        1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000,
        1_800_000, 3_600_000, 7_200_000,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| span_ms / s <= 6)
        .unwrap_or_else(|| span_ms.div_ceil(6).max(1))
}

/// `0`, `30s`, `2m`, `2m 30s`, `1h`, `1h 30m`: an axis label.
fn tick_label(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0 => "0".into(),
        1..60 => format!("{s}s"),
        60..3600 if s.is_multiple_of(60) => format!("{}m", s / 60),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ if s.is_multiple_of(3600) => format!("{}h", s / 3600),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// Percent of `span` with two decimals, as CSS wants it.
fn pct(x: u64, span: u64) -> String {
    format!("{:.2}", x as f64 * 100.0 / span.max(1) as f64)
}

/// The tooltip of one bar: everything the record says about the iteration.
fn tooltip(i: &Iteration) -> String {
    let mut t = format!(
        "{} #{} (worker {})\n{}: {}",
        i.story,
        i.iteration,
        i.worker,
        outcome_label(&i.outcome),
        duration(i.duration_ms)
    );
    if let Some(s) = &i.start {
        let _ = write!(t, "\nstart {}", super::when(s));
    }
    if !i.agent.is_empty() {
        let _ = write!(t, "\nagent {}", i.agent);
    }
    if i.verify_total > 0 {
        let _ = write!(t, "\nverify {}/{}", i.verify_passed, i.verify_total);
        for f in &i.verify_failed {
            let _ = write!(t, "\n  failed: {f}");
        }
    }
    if let Some(u) = &i.usage {
        if let Some(n) = u.tokens() {
            let _ = write!(t, "\ntokens {}", thousands(n));
        }
        if let Some(c) = u.cost_usd {
            let _ = write!(t, "\ncost {}", cost(c));
        }
        if let Some(m) = &u.model {
            let _ = write!(t, "\nmodel {m}");
        }
    }
    if let Some(m) = &i.merge {
        let _ = write!(t, "\nmerge {m}");
    }
    if let Some(v) = &i.review {
        let _ = write!(t, "\nreview {v}");
    }
    if i.skipped {
        t.push_str("\nstory skipped after this iteration");
    }
    t
}

fn timeline(out: &mut String, run: &str, its: &[&Iteration], named: bool) {
    let span = its
        .iter()
        .map(|i| i.offset_ms.saturating_add(i.duration_ms))
        .max()
        .unwrap_or(0)
        .max(1);
    if named {
        let _ = writeln!(
            out,
            "<h3>run {} &middot; {}</h3>",
            escape(run),
            duration(span)
        );
    }
    out.push_str("<div class=\"lanes\">\n<div class=\"axis\"><div class=\"label\"></div><div class=\"track\">");
    let step = tick_step(span);
    let ticks: Vec<u64> = (0..=span / step).map(|k| k * step).collect();
    for &at in &ticks {
        let class = if at == 0 {
            "tick first"
        } else if span - at < step / 2 {
            "tick last"
        } else {
            "tick"
        };
        let _ = write!(
            out,
            "<span class=\"{class}\" style=\"left:{}%\">{}</span>",
            pct(at, span),
            tick_label(at)
        );
    }
    out.push_str("</div></div>\n");
    lanes(out, its, &ticks, span);
    out.push_str("</div>\n");
}

/// A lane per worker: the grid lines at `ticks` and a bar per iteration.
fn lanes(out: &mut String, its: &[&Iteration], ticks: &[u64], span: u64) {
    let mut workers: Vec<u64> = its.iter().map(|i| i.worker).collect();
    workers.sort_unstable();
    workers.dedup();
    for w in workers {
        let _ = write!(
            out,
            "<div class=\"lane\"><div class=\"label\">worker {w}</div><div class=\"track\">"
        );
        for &at in ticks.iter().skip(1) {
            let _ = write!(
                out,
                "<i class=\"grid\" style=\"left:{}%\"></i>",
                pct(at, span)
            );
        }
        for i in its.iter().filter(|i| i.worker == w) {
            let _ = write!(
                out,
                "<div class=\"bar {}\" style=\"left:{}%;width:{}%\" title=\"{}\">{} #{}</div>",
                outcome_class(&i.outcome),
                pct(i.offset_ms, span),
                pct(i.duration_ms, span),
                escape(&tooltip(i)),
                escape(&i.story),
                i.iteration
            );
        }
        out.push_str("</div></div>\n");
    }
}

fn legend(out: &mut String, r: &Report) {
    let mut seen: Vec<&str> = Vec::new();
    for i in &r.iterations {
        if !seen.contains(&i.outcome.as_str()) {
            seen.push(&i.outcome);
        }
    }
    out.push_str("<div class=\"legend\">");
    for o in seen {
        let _ = write!(
            out,
            "<span><i class=\"{}\"></i>{}</span>",
            outcome_class(o),
            escape(&outcome_label(o))
        );
    }
    out.push_str("</div>\n");
}

fn iterations(out: &mut String, r: &Report) {
    let c = r.columns;
    out.push_str("<table>\n<tr><th class=\"n\">#</th><th>story</th>");
    if c.workers {
        out.push_str("<th class=\"n\">worker</th>");
    }
    out.push_str("<th>start</th><th class=\"n\">time</th><th>outcome</th>");
    if c.verify {
        out.push_str("<th>verify</th>");
    }
    if c.merge {
        out.push_str("<th>merge</th>");
    }
    if c.review {
        out.push_str("<th>review</th>");
    }
    if c.tokens {
        out.push_str("<th class=\"n\">tokens</th>");
    }
    if c.cost {
        out.push_str("<th class=\"n\">cost</th>");
    }
    out.push_str("</tr>\n");
    for i in &r.iterations {
        iteration_row(out, c, i);
    }
    out.push_str("</table>\n");
}

/// One iteration's row of the table: the cells `c` shows.
fn iteration_row(out: &mut String, c: super::Columns, i: &Iteration) {
    let _ = write!(
        out,
        "<tr><td class=\"n\">{}</td><td><code>{}</code></td>",
        i.iteration,
        escape(&i.story)
    );
    if c.workers {
        let _ = write!(out, "<td class=\"n\">{}</td>", i.worker);
    }
    let _ = write!(
        out,
        "<td class=\"t\">{}</td><td class=\"n\">{}</td><td>{}</td>",
        escape(&i.start.as_deref().map_or("-".into(), super::when)),
        duration(i.duration_ms),
        pill(&i.outcome)
    );
    if c.verify {
        let mut v = if i.verify_total == 0 {
            "-".to_string()
        } else {
            format!("{}/{}", i.verify_passed, i.verify_total)
        };
        for f in &i.verify_failed {
            let _ = write!(v, "<br>failed: <code>{}</code>", escape(f));
        }
        let _ = write!(out, "<td>{v}</td>");
    }
    for (on, v) in [(c.merge, &i.merge), (c.review, &i.review)] {
        if on {
            let _ = write!(out, "<td>{}</td>", escape(v.as_deref().unwrap_or("-")));
        }
    }
    let usage = i.usage.as_ref();
    if c.tokens {
        let n = usage.and_then(|u| u.tokens()).map_or("-".into(), thousands);
        let _ = write!(out, "<td class=\"n\">{n}</td>");
    }
    if c.cost {
        let n = usage.and_then(|u| u.cost_usd).map_or("-".into(), cost);
        let _ = write!(out, "<td class=\"n\">{n}</td>");
    }
    out.push_str("</tr>\n");
}
