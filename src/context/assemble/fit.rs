//! The last cuts, once the zones did what they could and the prompt is still over the budget
//! (only instructions, story, steering notes and patterns are left): the Codebase Patterns are
//! cut, then dropped; then the oldest steering notes are left out, then the section.

use super::part::{Part, chars};
use super::prepared::Prepared;
use crate::context::account::Status;
use crate::context::budget;
use crate::context::render;

/// Shrink the patterns section (the only optional one left at level 4) until the prompt fits,
/// or drop it.
pub(super) fn patterns(parts: &mut [Part], p: &Prepared, max: usize) {
    let total: usize = parts.iter().map(|x| chars(&x.text)).sum();
    let Some(idx) = parts.iter().position(|x| x.name == "patterns") else {
        return;
    };
    if total <= max {
        return;
    }
    let others = total - chars(&parts[idx].text);
    let available = max.saturating_sub(others);
    let content = p.patterns.as_ref().map_or("", |(t, _)| t.as_str());
    let mut n = available;
    loop {
        let (cut, _) = budget::head(content, n);
        if cut.trim().is_empty() {
            break;
        }
        let text = render::patterns(cut, true);
        let len = chars(&text);
        if len <= available {
            parts[idx].text = text;
            parts[idx].status = Status::Shortened;
            return;
        }
        n = n.saturating_sub(len - available);
    }
    parts[idx].text.clear();
    parts[idx].status = Status::Dropped;
}

/// Leave out the oldest steering notes (after the patterns gave way) until the prompt fits, or
/// drop the section.
pub(super) fn steering(parts: &mut [Part], p: &Prepared, max: usize) {
    let total: usize = parts.iter().map(|x| chars(&x.text)).sum();
    let Some(x) = parts
        .iter_mut()
        .find(|x| x.name == "steering" && total > max)
    else {
        return;
    };
    let available = max.saturating_sub(total - chars(&x.text));
    (x.text, x.status) = match p.steering.shrink(available) {
        Some(text) => (text, Status::Shortened),
        None => (String::new(), Status::Dropped),
    };
}
