//! The walk: which files of a project are indexed, found gitignore-aware on all cores, and
//! how the next refresh tells what changed without walking again.
//!
//! - [`rules`]: what counts as a source file, a doc about the code, a manifest, and the
//!   folders never entered, for the index and the Pin alike: ONE walk. Pure.
//! - [`found`]: what a walk found ([`Found`], [`Walked`], [`WalkCache`]).
//! - [`list`]: listing a folder (the I/O of the walk).
//! - [`stat`]: many files' sizes and times at once, each by its bare name in its folder.
//! - [`cache`]: telling what changed from the last walk's folders ([`look`], then
//!   [`rewalk_looked`] unless nothing did).
//!
//! Does not read files (see [`super::scan`]).

use std::path::Path;

mod cache;
mod found;
mod list;
pub(crate) mod rules;
mod stat;

pub(crate) use cache::{look, rewalk_looked};
pub(crate) use found::{Found, WalkCache, Walked};

/// Walk the whole project under `root` on all cores (see [`walker`]); the lists come out
/// sorted, so the result does not depend on the order the threads saw the files in.
pub(crate) fn walk(root: &Path) -> Walked {
    let (mut w, dirs) = list::collect(root, root, None);
    w.sources.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    w.docs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    w.manifests.sort_unstable();
    w.cache = WalkCache::new(root, dirs, w.manifests.clone());
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_sorts_sources_docs_and_manifests_and_skips_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for (p, t) in [
            ("src/b.rs", "fn b() {}"),
            ("src/a.py", "x = 1"),
            ("README.md", "# Hi"),
            ("CHANGELOG.md", "# 1.0"),
            ("Cargo.toml", "[package]"),
            ("notes.txt", "x"),
            ("target/x.rs", "fn x() {}"),
            (".hidden/y.rs", "fn y() {}"),
            ("ignored/z.rs", "fn z() {}"),
            (".ignore", "ignored/\n"),
        ] {
            let path = r.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, t).unwrap();
        }
        let w = walk(r);
        let paths = |v: &[Found]| v.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&w.sources), ["src/a.py", "src/b.rs"]);
        assert_eq!(w.sources[1].size, 9);
        assert_eq!(paths(&w.docs), ["README.md"]);
        assert_eq!(w.manifests, ["Cargo.toml"]);
        assert!(w.error.is_none());
        assert!(walk(&r.join("missing")).error.is_some());
    }
}
