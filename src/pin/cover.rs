//! Whether a Pin entry's file list names a path: the path itself, a folder above it, or a glob
//! matching it (`*` and `?` never cross a `/`). The one place this rule lives: the Pin's
//! merge asks it of generated files, the ranking of the project's files for a story's matched
//! entries. A list's globs are compiled once for all the paths asked about. Pure; does not
//! read the disk (see [`super::check`] for what an entry's items resolve to there).

/// The characters that make an item a glob.
const WILDCARDS: [char; 3] = ['*', '?', '['];

/// What an item with one of these characters is: a glob.
pub(crate) fn is_glob(item: &str) -> bool {
    item.contains(WILDCARDS)
}

/// How a glob matches a path.
const MATCH: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// A file list, ready to be asked about paths.
pub(crate) struct Cover<'a> {
    /// The items without a trailing `/`: each a path or a folder (a glob too: a path may hold
    /// a `*`).
    items: Vec<&'a str>,
    /// The items that are globs, compiled (one that does not compile matches nothing).
    globs: Vec<glob::Pattern>,
}

impl<'a> Cover<'a> {
    pub(crate) fn new(items: impl IntoIterator<Item = &'a str>) -> Cover<'a> {
        let items: Vec<&str> = items
            .into_iter()
            .map(|it| it.trim_end_matches('/'))
            .collect();
        let globs = items
            .iter()
            .filter(|it| is_glob(it))
            .filter_map(|it| glob::Pattern::new(it).ok())
            .collect();
        Cover { items, globs }
    }

    /// What every path one of the items names starts with: a path or folder item itself, a
    /// glob's text before its first wildcard. Lets a caller holding sorted paths look at a few
    /// ranges instead of asking about every path.
    pub(crate) fn prefixes(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.items
            .iter()
            .map(|it| it.find(WILDCARDS).map_or(*it, |at| &it[..at]))
    }

    /// Whether one of the items names `path`.
    pub(crate) fn contains(&self, path: &str) -> bool {
        self.items.iter().any(|it| {
            *it == path || (path.starts_with(it) && path.as_bytes().get(it.len()) == Some(&b'/'))
        }) || self.globs.iter().any(|g| g.matches_with(path, MATCH))
    }
}

/// A list of owned items as [`Cover`] takes them.
pub(crate) fn of(items: &[String]) -> Cover<'_> {
    Cover::new(items.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_a_folder_above_it_or_a_glob_within_one_folder() {
        let c = Cover::new(["src/lib.rs", "docs/", "src/cli/*.rs", "bad[glob"]);
        assert!(c.contains("src/lib.rs"));
        assert!(c.contains("docs/guide/intro.md"));
        assert!(c.contains("src/cli/run.rs"));
        assert!(!c.contains("src/cli/sub/run.rs"), "* does not cross a /");
        assert!(!c.contains("src/lib.rs.bak"));
        assert!(!c.contains("docsy/x.md"), "a folder is a whole name");
        assert!(
            !c.contains("bad"),
            "a glob that does not compile matches nothing"
        );
        assert!(
            Cover::new(["src/*/"]).contains("src/a"),
            "a trailing / is dropped"
        );
        assert!(!Cover::new(Vec::<&str>::new()).contains("a"));
    }

    #[test]
    fn every_path_an_item_names_starts_with_its_prefix() {
        let c = Cover::new(["src/lib.rs", "docs/", "src/cli/*.rs", "a?/[bc]", "*.md"]);
        let prefixes: Vec<&str> = c.prefixes().collect();
        assert_eq!(prefixes, ["src/lib.rs", "docs", "src/cli/", "a", ""]);
        for path in [
            "src/lib.rs",
            "docs/x.md",
            "src/cli/run.rs",
            "ab/c",
            "README.md",
        ] {
            assert!(c.contains(path), "{path}");
            assert!(prefixes.iter().any(|p| path.starts_with(p)), "{path}");
        }
    }
}
