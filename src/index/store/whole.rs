//! The type of the whole index, a base and maybe a delta over it, apart from its methods (what
//! a query reads, in [`super`]; what builds one, in [`super::build`]) so that both name it
//! without importing each other.

use super::super::facts::FIELDS as NF;
use super::segment::Segment;

/// The whole index: a base and, maybe, a delta over it.
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub(super) base: Segment,
    pub(super) delta: Option<Segment>,
    /// Per base file, whether the delta replaced or dropped it.
    pub(super) dead: Vec<bool>,
    pub(super) dead_docs: Vec<bool>,
    /// Live files, and their field lengths summed.
    pub(super) live: usize,
    pub(super) lens: [u64; NF],
}
