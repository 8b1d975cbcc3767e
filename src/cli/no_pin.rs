//! The error `ralph pin check` stops with when there is no Pin ([`NoPin`]), and its code. A leaf:
//! the handler (`pin.rs`) raises it, the envelope's problems (`envelope/problems.rs`) read it.

/// No specs/INDEX.md where `pin check` looks.
#[derive(Debug, thiserror::Error)]
#[error("{}: no Pin here; run `ralph pin generate` to create it", path.display())]
pub(crate) struct NoPin {
    pub(crate) path: std::path::PathBuf,
}

impl crate::problem::Coded for NoPin {
    fn problem(&self) -> Option<crate::problem::Problem> {
        Some(crate::problem::Problem::at("no-pin", &self.path))
    }
}
