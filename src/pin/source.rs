//! What the Pin's discovery is given: the project's source files and its manifest texts.
//!
//! Owns the two input types shared by [`super::discover`], [`super::roots`], [`super::split`]
//! and [`super::manifest`]. A leaf: it imports none of its siblings, so they can all use it
//! without an import circle. Does not own walking the project or reading files (see
//! [`super::generate`] and [`crate::index`]).

/// A source file found by the walk (path relative to the project root, `/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceFile {
    pub path: String,
    pub size: u64,
}

/// A manifest file and its text (Cargo.toml, package.json, pyproject.toml, setup.cfg, go.mod,
/// pom.xml, build.gradle[.kts]).
#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    pub path: String,
    pub text: String,
}
