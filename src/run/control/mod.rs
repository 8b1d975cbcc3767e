//! Steering a live run from another terminal: `ralph pause` / `resume` (no new iteration, claim
//! or attempt starts; running agents finish), `ralph steer "TEXT" [--story ID]` (a note in the
//! next prompts), `ralph skip ID` / `retry ID` (a story held for the rest of the run, or
//! released), and the state `ralph status` shows.
//!
//! The channel is files under `.ralph/control/` (their shapes: [`crate::state::control`]):
//! a command writes a request atomically and waits briefly for the answer ([`client`]); inside
//! the run a thread takes each request once, decides it ([`policy`], pure), keeps its line in
//! history.jsonl, answers and publishes the run's state ([`live`]). The loops read the outcome at
//! their own checks: the sequential driver before each iteration (and while paused), the
//! parallel scheduler on every tick. Owns none of the loops' state: they apply the holds and
//! releases to their own maps.

pub(crate) mod client;
pub(crate) mod live;
pub(crate) mod policy;

pub(crate) use live::{Live, Setup};
pub(crate) use policy::{Change, Claim};
