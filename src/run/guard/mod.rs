//! The integrity guard: after each agent, prd.json and progress.txt are checked against the
//! copies taken before it, and only what breaks a rule is put back. [`policy`] is the rules
//! (pure: what an agent may change), [`repair`] the I/O (re-read, repair, keep every rejected
//! version, the fallback when a write fails), [`messages`] what the person is told and ralph's
//! correction commit message.

pub mod messages;
pub mod policy;
pub mod repair;
