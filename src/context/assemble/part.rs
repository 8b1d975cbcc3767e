//! One section of the prompt as the assembler holds it: its name, text and fate ([`Part`]).
//! A leaf shared by the level builder, the last cuts and the account.

use crate::context::account::Status;

pub(super) fn chars(s: &str) -> usize {
    s.chars().count()
}

pub(super) struct Part {
    pub(super) name: &'static str,
    pub(super) text: String,
    pub(super) status: Status,
}

pub(super) fn part(name: &'static str, text: String, status: Status) -> Part {
    Part { name, text, status }
}

/// A section with nothing to show.
pub(super) fn empty(name: &'static str) -> Part {
    part(name, String::new(), Status::Empty)
}

/// A section left out by a zone.
pub(super) fn dropped(name: &'static str) -> Part {
    part(name, String::new(), Status::Dropped)
}

pub(super) fn shortened_if(cut: bool) -> Status {
    if cut { Status::Shortened } else { Status::Kept }
}
