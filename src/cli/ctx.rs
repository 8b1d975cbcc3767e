//! Where a command works ([`Ctx`]: the project root and the prd.json, resolved from the global
//! options) and the settings there.
//!
//! A leaf every handler imports; the parent module builds it from the parsed command line.

use std::path::PathBuf;

/// Where the command works: resolved from the global options.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub root: PathBuf,
    pub prd_path: PathBuf,
}

impl Ctx {
    /// The prd.json, for a command that only reads it. A live run merging a story has git
    /// rewrite the file in place, so for a moment it can be empty or cut short: while a run is
    /// live, it is read again for up to 2 s before the error is reported.
    pub(crate) fn load_prd(&self) -> anyhow::Result<crate::prd::Prd> {
        use anyhow::Context;
        use std::time::{Duration, Instant};
        let load = || crate::prd::Prd::load(&self.prd_path);
        let mut loaded = load();
        let end = Instant::now() + Duration::from_secs(2);
        while loaded.is_err()
            && Instant::now() < end
            && crate::state::control::live_run(&self.root).is_ok()
        {
            std::thread::sleep(Duration::from_millis(50));
            loaded = load();
        }
        loaded.with_context(|| format!("cannot use {}", self.prd_path.display()))
    }

    /// The settings: `flags` over the `RALPH_*` environment over ralph.toml over the defaults.
    pub(crate) fn settings(
        &self,
        flags: &crate::config::Layer,
    ) -> anyhow::Result<crate::config::Settings> {
        let file = crate::config::load_file(&self.root)?;
        let env = crate::config::from_process_env()?;
        Ok(crate::config::resolve(&[flags, &env, &file]))
    }
}
