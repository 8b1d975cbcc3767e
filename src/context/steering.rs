//! The steering notes' section: what a person told the live run with `ralph steer` (for this
//! story, or for every story), and when ([`SteerNote`], a plain input); and the section's share
//! of the budget: each note redacted and cut to the cap, the newest that fit together kept
//! ([`prepare`]), the oldest left out first when the prompt is still over ([`shrink`]). The loop
//! fills the list (`crate::run::control`); [`super::assemble`] places the section,
//! [`super::render`] lays it out.

use super::budget;
use super::inputs::SteerNote;
use super::redact::{Redactions, redact_into};
use super::render;

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The section's notes redacted and cut to its share of the budget.
pub(super) struct Prepared {
    /// The notes kept, rendered, oldest first.
    items: Vec<String>,
    /// How many older ones were left out.
    left_out: usize,
    /// Whether a note was cut to the cap.
    cut: bool,
    /// The redactions of the notes kept.
    pub(super) red: Redactions,
}

impl Prepared {
    /// Each note redacted and cut to `cap` characters; the newest that fit in `cap` together
    /// (the newest always).
    pub(super) fn new(notes: &[SteerNote], cap: usize) -> Prepared {
        let items: Vec<(String, bool, Redactions)> = notes
            .iter()
            .map(|n| {
                let mut red = Redactions::default();
                let text = redact_into(&n.text, &mut red);
                let (kept, cut) = budget::head(&text, cap);
                (render::steer_item(n.this_story, &n.when, kept), cut, red)
            })
            .collect();
        let mut used = 0;
        let mut first = items.len();
        for (i, (item, _, _)) in items.iter().enumerate().rev() {
            used += chars(item);
            if used > cap && first < items.len() {
                break;
            }
            first = i;
        }
        let mut p = Prepared {
            items: Vec::with_capacity(items.len() - first),
            left_out: first,
            cut: false,
            red: Redactions::default(),
        };
        for (item, cut, red) in items.into_iter().skip(first) {
            p.red.merge(&red);
            p.cut |= cut;
            p.items.push(item);
        }
        p
    }

    /// The section and whether it is cut; `None` without notes.
    pub(super) fn section(&self) -> Option<(String, bool)> {
        (!self.items.is_empty()).then(|| {
            let text = render::steering(&self.items, self.left_out);
            (text, self.left_out > 0 || self.cut)
        })
    }

    /// The section without its oldest notes, as many left out as needed to fit `available`
    /// characters; `None` when not even the newest fits.
    pub(super) fn shrink(&self, available: usize) -> Option<String> {
        (1..self.items.len())
            .map(|skip| render::steering(&self.items[skip..], self.left_out + skip))
            .find(|text| chars(text) <= available)
    }
}
