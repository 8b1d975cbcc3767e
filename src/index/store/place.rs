//! Where the index's segments live in a project. Shared by the files of [`super`] (a leaf:
//! it imports nothing).

/// Where the base lives, relative to the project root.
pub(crate) const CACHE_PATH: &str = ".ralph/code-index.bin";
/// Where the delta lives, relative to the project root.
pub(crate) const DELTA_PATH: &str = ".ralph/code-index.delta";
