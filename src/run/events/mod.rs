//! The one channel through which the loop tells what happens: every note, warning, start,
//! outcome and end of a run is an [`Event`] handed to a [`Reporter`]. [`Terminal`] prints the
//! lines a person reads on stderr (dropped by `-q` except an unfinished run's end; a live
//! heartbeat refreshed in place on a terminal, see [`crate::ui::transient`]); [`JsonLines`] writes one
//! JSON object per event on stdout for tools (`ralph run --json`; the shape is in specs/json.md).
//! Hooks wrap a reporter ([`hooks`]). The words themselves: [`event`] the events as data,
//! [`terminal`] a person's lines, [`status`] the line after each iteration and why a story cannot
//! run, [`board`] a parallel run's status lines and summary, [`durations`] "4m10s".
//!
//! Owns the wording and the JSON shape of the loop's reports; decides nothing about the run and
//! never prints the agent's own output (that is `agent::process`'s echo and log).

pub(crate) mod board;
pub(crate) mod durations;
mod event;
pub(crate) mod hooks;
mod json;
pub(crate) mod status;
mod terminal;

#[cfg(test)]
pub(crate) use event::Recorded;
pub(crate) use event::{Event, Reporter};
pub(crate) use json::JsonLines;
pub(crate) use terminal::Terminal;
