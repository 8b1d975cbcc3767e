//! What the run waits on and for: an interrupt ([`signals`]: Ctrl-C, SIGTERM, SIGHUP), a usage
//! limit's reset ([`ratelimit`], pure), the `--sleep` and the countdown ([`sleep`]), and the
//! heartbeats while an agent or a command runs ([`watch`]).

pub(crate) mod ratelimit;
pub(crate) mod signals;
pub(crate) mod sleep;
pub(crate) mod watch;
