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
