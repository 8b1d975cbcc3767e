//! What a walk found: the files the index keeps ([`Found`], [`Walked`]) and what the next
//! refresh needs to tell what changed without walking again ([`WalkCache`]; [`super::cache`]
//! fills and reads it). Data only, the leaf the walk's other files share.

use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

/// A file found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Relative to the root, `/`-separated.
    pub(crate) path: String,
    pub(crate) size: u64,
    /// Modification time: seconds and nanoseconds since the epoch.
    pub(crate) mtime: (i64, u32),
}

/// What the walk found, each list sorted by path.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// Files with a source extension ([`super::rules::SOURCE_EXTS`]).
    pub(crate) sources: Vec<Found>,
    /// Markdown files that describe the code around them ([`super::rules::describes_code`]).
    pub(crate) docs: Vec<Found>,
    /// Manifests ([`super::rules::MANIFESTS`]), by path.
    pub(crate) manifests: Vec<String>,
    /// The first folder or file that could not be read, if any (left out of the lists).
    pub(crate) error: Option<ignore::Error>,
    /// What the next refresh needs to tell whether anything was added, removed or renamed.
    pub(crate) cache: WalkCache,
}

/// The modification time of a file's metadata: seconds and nanoseconds since the epoch
/// ((0, 0) before it, as [`mtime_at`]).
pub(crate) fn mtime_of(meta: &std::fs::Metadata) -> (i64, u32) {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| {
            (
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                d.subsec_nanos(),
            )
        })
}

/// A modification time as the system gives it (seconds, nanoseconds), as [`mtime_of`] reads it:
/// a time before the epoch is (0, 0).
pub(super) fn mtime_at(secs: i64, nanos: u32) -> (i64, u32) {
    match secs < 0 {
        true => (0, 0),
        false => (secs, nanos),
    }
}

/// A file's size and modification time, or `None` when it does not exist.
pub(super) type Stamp = Option<(u64, (i64, u32))>;

/// What the last walk saw, for [`super::look`] and [`super::rewalk_looked`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct WalkCache {
    /// Every folder the walk entered, relative to the root (`""` is the root), sorted, with its
    /// modification time.
    pub(super) dirs: Vec<(String, (i64, u32))>,
    /// The ignore files that shaped the walk, with their stamps: each walked folder's
    /// `.gitignore` and `.ignore` that exist (relative paths), and, absent or not, those of the
    /// folders above the root, the repository's `info/exclude` and the global excludes file
    /// (absolute paths).
    pub(super) ignores: Vec<(String, Stamp)>,
    /// Where git's global excludes file is, when configured.
    pub(super) global: Option<String>,
    /// The manifests found, by path.
    pub(super) manifests: Vec<String>,
}

impl WalkCache {
    /// The manifests the walk found, by path.
    pub(crate) fn manifests(&self) -> &[String] {
        &self.manifests
    }
}
