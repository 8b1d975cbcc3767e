//! Splitting a flat folder: the source files directly in one folder, too many for one readable
//! Pin entry, grouped into cohesive parts.
//!
//! Owns the policy, pure over file names, sizes and the links between the files (Rust `mod x;`
//! and `use crate::x`/`super::x`, Python relative imports, JS/TS `./x` imports; see
//! [`super::generate::FileFacts::links`]): files sharing a name stem go together (`terminal.go`,
//! `terminal_unix.go`, `terminal_test.go`'s source), a small file only one part imports joins
//! that part, a tiny file alone joins the folder's own part, tests form parts of their own, and no part holds more than [`MAX_PART`] files.
//! Does not own which folders are split or how parts are named in the Pin (see
//! [`super::discover`]).

use std::collections::BTreeMap;

use crate::index::text::split_words;

/// A folder with more direct source files than this is split into parts.
pub(crate) const SPLIT_ABOVE: usize = 15;
/// At most this many files in one part.
pub(crate) const MAX_PART: usize = 12;
/// A file smaller than this that only one part imports joins it (a private helper).
const HELPER_BYTES: u64 = 4_000;
/// A file alone in its part and smaller than this joins the folder's own part instead (too
/// little to be an entry of its own).
const TINY_BYTES: u64 = 1_500;

/// One file directly in the folder being split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlatFile<'a> {
    /// Its path (only the file name is read).
    pub path: &'a str,
    pub size: u64,
    /// The sibling modules it refers to, by name (`x` for `x.rs`, `x.py`, `./x`).
    pub links: &'a [String],
}

/// What a part holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PartKind {
    /// The folder's own files: entry points (`lib.rs`, `mod.rs`, `__init__.py`, `index.ts`,
    /// `main.go`, `doc.go`…) and anything not grouped.
    Own,
    /// Sources sharing a stem.
    Sources,
    /// Test files.
    Tests,
}

/// One cohesive group of files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// What names the part: the shared stem (`terminal`), `tests`, or `tests <first>-<last>`
    /// when the tests take several parts; empty for [`PartKind::Own`].
    pub label: String,
    pub kind: PartKind,
    /// Indexes into the files given, ascending.
    pub files: Vec<usize>,
}

/// File names that make a folder's entry point rather than one topic of it.
const ENTRY_POINTS: &[&str] = &[
    "__init__", "__main__", "lib", "mod", "main", "index", "doc", "init", "app", "setup",
];

/// The file name without folder and extensions (`a/b/term.test.ts` gives `term.test`,
/// `x.rs` gives `x`).
fn module_name(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.rsplit_once('.').map_or(base, |(n, _)| n)
}

/// Whether a file name is a test's (`x_test.go`, `test_x.py`, `x.test.ts`, `x.spec.js`,
/// `x_spec.rb`, `XTest.java`, `conftest.py`, Rust's `tests.rs`, `tests_util.py`).
pub(crate) fn is_test_file(path: &str) -> bool {
    let name = module_name(path);
    let lower = name.to_ascii_lowercase();
    lower == "conftest"
        || name == "tests"
        || name == "test"
        || lower.starts_with("test_")
        || lower.starts_with("tests_")
        || lower.ends_with("_test")
        || lower.ends_with("_tests")
        || lower.ends_with(".test")
        || lower.ends_with(".spec")
        || lower.ends_with("_spec")
        || lower.ends_with("-test")
        || (name.ends_with("Test") || name.ends_with("Tests")) && name.len() > 5
}

/// The stem a file is grouped by: the first word of its name, test affixes and leading
/// underscores dropped (`_log_render.py` gives `log`, `terminal_unix.go` gives `terminal`,
/// `ansi_test.go` gives `ansi`); `None` for an entry point.
fn stem_of(path: &str) -> Option<String> {
    let name = module_name(path);
    if ENTRY_POINTS.contains(&name) {
        return None;
    }
    let mut words = split_words(name);
    if is_test_file(path) {
        words.retain(|w| w != "test" && w != "tests" && w != "spec" && w != "conftest");
    }
    words.into_iter().next()
}

/// Split the files directly in one folder into parts (see the module doc). Every file is in
/// exactly one part; parts come in a fixed order: the folder's own part first (when it has
/// files), then sources by label, then tests.
pub(crate) fn split_flat(files: &[FlatFile<'_>]) -> Vec<Part> {
    let mut own = Vec::new();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut tests: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        match (stem_of(f.path), is_test_file(f.path)) {
            (Some(s), true) => tests.entry(s).or_default().push(i),
            (None, true) => tests.entry(String::new()).or_default().push(i),
            (Some(s), false) => groups.entry(s).or_default().push(i),
            (None, false) => own.push(i),
        }
    }
    attach_helpers(files, &mut groups);
    groups.retain(|_, v| {
        let tiny = v.len() == 1 && files[v[0]].size < TINY_BYTES;
        if tiny {
            own.push(v[0]);
        }
        !tiny
    });
    let mut parts = Vec::new();
    if !own.is_empty() {
        parts.push(Part {
            label: String::new(),
            kind: PartKind::Own,
            files: own,
        });
    }
    for (label, idx) in groups {
        for (n, chunk) in idx.chunks(MAX_PART).enumerate() {
            parts.push(Part {
                label: if n == 0 {
                    label.clone()
                } else {
                    format!("{label} {}", n + 1)
                },
                kind: PartKind::Sources,
                files: chunk.to_vec(),
            });
        }
    }
    parts.extend(pack_tests(tests));
    for p in &mut parts {
        p.files.sort_unstable();
    }
    parts
}

/// Move each small single-file group that exactly one other group imports into that group
/// (while it has room): a private helper belongs with its only user.
fn attach_helpers(files: &[FlatFile<'_>], groups: &mut BTreeMap<String, Vec<usize>>) {
    // Which group each file is in, and each file by its module name.
    let mut group_of: Vec<Option<String>> = vec![None; files.len()];
    for (g, idx) in groups.iter() {
        for &i in idx {
            group_of[i] = Some(g.clone());
        }
    }
    let by_name: BTreeMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (module_name(f.path), i))
        .collect();
    // importers[i]: the groups whose files link to file i.
    let mut importers: Vec<Vec<String>> = vec![Vec::new(); files.len()];
    for (i, f) in files.iter().enumerate() {
        let Some(g) = &group_of[i] else { continue };
        for l in f.links {
            if let Some(&j) = by_name.get(l.as_str())
                && j != i
                && !importers[j].contains(g)
            {
                importers[j].push(g.clone());
            }
        }
    }
    let singles: Vec<(String, usize)> = groups
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(g, v)| (g.clone(), v[0]))
        .collect();
    for (g, i) in singles {
        let only = match importers[i].as_slice() {
            [only] if *only != g => only.clone(),
            _ => continue,
        };
        if files[i].size >= HELPER_BYTES {
            continue;
        }
        // The importer may itself have moved: follow it to where its file is now.
        let target = groups
            .iter()
            .find(|(_, v)| {
                v.iter()
                    .any(|&k| group_of[k].as_deref() == Some(only.as_str()))
            })
            .map(|(t, _)| t.clone());
        let Some(target) = target.filter(|t| *t != g) else {
            continue;
        };
        if groups.get(&target).is_some_and(|v| v.len() < MAX_PART) {
            groups.remove(&g);
            if let Some(v) = groups.get_mut(&target) {
                v.push(i);
            }
        }
    }
}

/// Test files: one part when they fit, else runs of whole stem groups (alphabetical) of at
/// most [`MAX_PART`] files, labelled by their first and last stem.
fn pack_tests(tests: BTreeMap<String, Vec<usize>>) -> Vec<Part> {
    let total: usize = tests.values().map(Vec::len).sum();
    if total == 0 {
        return Vec::new();
    }
    if total <= MAX_PART {
        return vec![Part {
            label: "tests".to_string(),
            kind: PartKind::Tests,
            files: tests.into_values().flatten().collect(),
        }];
    }
    let mut runs: Vec<(String, String, Vec<usize>)> = Vec::new();
    for (stem, idx) in tests {
        for chunk in idx.chunks(MAX_PART) {
            match runs.last_mut() {
                Some((_, last, files)) if files.len() + chunk.len() <= MAX_PART => {
                    last.clone_from(&stem);
                    files.extend_from_slice(chunk);
                }
                _ => runs.push((stem.clone(), stem.clone(), chunk.to_vec())),
            }
        }
    }
    runs.into_iter()
        .map(|(first, last, files)| Part {
            label: match (first.is_empty(), first == last) {
                (true, _) if last.is_empty() => "tests".to_string(),
                (true, _) => format!("tests -{last}"),
                (false, true) => format!("tests {first}"),
                (false, false) => format!("tests {first}-{last}"),
            },
            kind: PartKind::Tests,
            files,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat<'a>(files: &'a [(&'a str, u64, Vec<String>)]) -> Vec<FlatFile<'a>> {
        files
            .iter()
            .map(|(p, s, l)| FlatFile {
                path: p,
                size: *s,
                links: l,
            })
            .collect()
    }

    /// The parts as (label, file names).
    fn show(files: &[FlatFile<'_>], parts: &[Part]) -> Vec<(String, Vec<String>)> {
        parts
            .iter()
            .map(|p| {
                let names = p
                    .files
                    .iter()
                    .map(|&i| files[i].path.rsplit('/').next().unwrap_or("").to_string())
                    .collect();
                (p.label.clone(), names)
            })
            .collect()
    }

    /// `files` with borrowed paths, as [`flat`] takes them.
    fn borrowed(files: &[(String, u64, Vec<String>)]) -> Vec<(&str, u64, Vec<String>)> {
        files
            .iter()
            .map(|(p, s, l)| (p.as_str(), *s, l.clone()))
            .collect()
    }

    fn links(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn test_files_are_recognised_by_name() {
        for t in [
            "a/x_test.go",
            "test_x.py",
            "x.test.ts",
            "x.spec.js",
            "x_spec.rb",
            "FooTest.java",
            "conftest.py",
        ] {
            assert!(is_test_file(t), "{t}");
        }
        for t in ["src/tests.rs", "test.py", "tests_util.py"] {
            assert!(is_test_file(t), "{t}");
        }
        for s in ["latest.go", "contest.py", "Test.java", "testing.rs", "x.rs"] {
            assert!(!is_test_file(s), "{s}");
        }
    }

    #[test]
    fn a_flat_go_src_splits_by_name_prefix_with_tests_apart() {
        let mut v: Vec<(&str, u64, Vec<String>)> = Vec::new();
        for name in [
            "src/ansi.go",
            "src/ansi_test.go",
            "src/terminal.go",
            "src/terminal_unix.go",
            "src/terminal_windows.go",
            "src/terminal_test.go",
            "src/chunklist.go",
            "src/chunklist_test.go",
            "src/core.go",
            "src/options.go",
            "src/options_test.go",
            "src/doc.go",
        ] {
            v.push((name, 5000, Vec::new()));
        }
        let files = flat(&v);
        let parts = split_flat(&files);
        assert_eq!(
            show(&files, &parts),
            [
                ("".to_string(), vec!["doc.go".to_string()]),
                ("ansi".into(), vec!["ansi.go".into()]),
                ("chunklist".into(), vec!["chunklist.go".into()]),
                ("core".into(), vec!["core.go".into()]),
                ("options".into(), vec!["options.go".into()]),
                (
                    "terminal".into(),
                    vec![
                        "terminal.go".into(),
                        "terminal_unix.go".into(),
                        "terminal_windows.go".into()
                    ]
                ),
                (
                    "tests".into(),
                    vec![
                        "ansi_test.go".into(),
                        "terminal_test.go".into(),
                        "chunklist_test.go".into(),
                        "options_test.go".into()
                    ]
                ),
            ]
        );
        assert_eq!(parts.last().map(|p| p.kind), Some(PartKind::Tests));
    }

    #[test]
    fn a_flat_python_package_groups_stems_and_private_helpers() {
        let v: Vec<(&str, u64, Vec<String>)> = vec![
            ("rich/__init__.py", 3000, links(&["console"])),
            ("rich/_loop.py", 500, Vec::new()),
            ("rich/_ratio.py", 1500, Vec::new()),
            (
                "rich/console.py",
                90_000,
                links(&["_loop", "text", "style"]),
            ),
            ("rich/layout.py", 9000, links(&["_ratio", "console"])),
            ("rich/progress.py", 9000, links(&["console", "_loop"])),
            ("rich/progress_bar.py", 4000, links(&["console"])),
            ("rich/style.py", 9000, Vec::new()),
            ("rich/text.py", 9000, links(&["style"])),
        ];
        let files = flat(&v);
        let got = show(&files, &split_flat(&files));
        let want: Vec<(String, Vec<String>)> = vec![
            ("".into(), vec!["__init__.py".into(), "_loop.py".into()]),
            ("console".into(), vec!["console.py".into()]),
            (
                "layout".into(),
                vec!["_ratio.py".into(), "layout.py".into()],
            ),
            (
                "progress".into(),
                vec!["progress.py".into(), "progress_bar.py".into()],
            ),
            ("style".into(), vec!["style.py".into()]),
            ("text".into(), vec!["text.py".into()]),
        ];
        // `_ratio` is imported only by layout; `_loop` by two parts, and tiny: the package's.
        assert_eq!(got, want);
    }

    #[test]
    fn a_flat_rust_src_follows_mod_declarations_and_caps_parts() {
        let mut v: Vec<(String, u64, Vec<String>)> = vec![
            ("src/lib.rs".into(), 2000, Vec::new()),
            ("src/render.rs".into(), 8000, links(&["render_cache"])),
            ("src/render_cache.rs".into(), 900, Vec::new()),
            ("src/tiny_util.rs".into(), 300, links(&["render"])),
        ];
        for i in 0..30 {
            v.push((format!("src/widget_{i:02}.rs"), 3000, Vec::new()));
        }
        let owned = borrowed(&v);
        let files = flat(&owned);
        let parts = split_flat(&files);
        let labels: Vec<&str> = parts.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["", "render", "widget", "widget 2", "widget 3"]);
        assert_eq!(parts[0].files, [0, 3], "lib.rs and the tiny file");
        assert!(parts.iter().all(|p| p.files.len() <= MAX_PART));
        let mut all: Vec<usize> = parts.iter().flat_map(|p| p.files.clone()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..files.len()).collect::<Vec<_>>(), "each file once");
    }

    #[test]
    fn many_tests_pack_into_labelled_runs() {
        let mut v: Vec<(String, u64, Vec<String>)> = Vec::new();
        for s in ["alpha", "beta", "gamma", "delta", "omega"] {
            for k in 0..4 {
                v.push((format!("t/test_{s}_{k}.py"), 100, Vec::new()));
            }
        }
        let owned = borrowed(&v);
        let files = flat(&owned);
        let parts = split_flat(&files);
        let labels: Vec<&str> = parts.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["tests alpha-delta", "tests gamma-omega"]);
        assert!(parts.iter().all(|p| p.kind == PartKind::Tests));
    }

    #[test]
    fn odd_names_never_panic() {
        let v: Vec<(&str, u64, Vec<String>)> = vec![
            ("", 0, links(&[""])),
            ("a/.rs", 0, Vec::new()),
            ("a/___.py", 0, links(&["___"])),
            ("a/ü_test.go", 0, Vec::new()),
            ("a/test.py", 0, Vec::new()),
        ];
        let files = flat(&v);
        let parts = split_flat(&files);
        assert_eq!(parts.iter().map(|p| p.files.len()).sum::<usize>(), 5);
    }
}
