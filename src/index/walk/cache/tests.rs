//! The cache against a full walk: after adding, removing, renaming, editing files and folders
//! and changing ignore files, what `rewalk` says the project holds is what a walk finds.

use std::fs;
use std::time::{Duration, SystemTime};

use super::super::{Walked, walk};
use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// Every folder under `root` (the walk's, hidden and skipped ones aside) made a day old, so
/// only what changes after this looks changed.
fn age_dirs(root: &Path) {
    let old = std::time::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    let w = walk(root);
    for (d, _) in &w.cache.dirs {
        let f = fs::File::open(root.join(d)).unwrap();
        f.set_times(fs::FileTimes::new().set_modified(old)).unwrap();
    }
}

fn lists(w: &Walked) -> (Vec<Found>, Vec<Found>, Vec<String>) {
    (w.sources.clone(), w.docs.clone(), w.manifests.clone())
}

fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for (p, t) in [
        ("Cargo.toml", "[package]"),
        ("README.md", "# Hi"),
        ("src/main.rs", "fn main() {}"),
        ("src/cli/args.rs", "fn args() {}"),
        ("src/cli/mod.rs", "mod args;"),
        ("gen/out.rs", "fn generated() {}"),
        ("lib/a.py", "x = 1"),
        ("lib/deep/b.py", "y = 2"),
        (".gitignore", "gen/\n*.tmp.rs\n"),
        ("lib/.gitignore", "!keep.tmp.rs\n"),
    ] {
        write(r, p, t);
    }
    d
}

/// `rewalk` from a cache taken now (folders aged), after `change`, against a full walk.
fn check(change: impl Fn(&Path)) -> Option<Walked> {
    let d = project();
    let r = d.path();
    age_dirs(r);
    let before = walk(r);
    change(r);
    let built_at = i64::try_from(
        (SystemTime::now() - Duration::from_secs(3600))
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap();
    let got = rewalk(r, &before.cache, before.sources, before.docs, built_at)?;
    let want = walk(r);
    assert_eq!(lists(&got), lists(&want));
    Some(got)
}

#[test]
fn nothing_changed_needs_no_walk_and_edits_are_seen() {
    let got = check(|r| write(r, "src/main.rs", "fn main() { edited() }")).unwrap();
    let main = got
        .sources
        .iter()
        .find(|f| f.path == "src/main.rs")
        .unwrap();
    assert_eq!(main.size, 22);
}

#[test]
fn added_removed_and_renamed_files_and_folders_are_found() {
    for change in [
        (|r: &Path| write(r, "src/new.rs", "fn new() {}")) as fn(&Path),
        |r| fs::remove_file(r.join("lib/a.py")).unwrap(),
        |r| fs::rename(r.join("src/cli"), r.join("src/command")).unwrap(),
        |r| write(r, "src/cli/sub/deeper/x.rs", "fn x() {}"),
        |r| fs::remove_dir_all(r.join("lib")).unwrap(),
        |r| write(r, "docs/guide.md", "# Guide"),
        |r| write(r, "src/skip.tmp.rs", "fn skipped() {}"),
        |r| write(r, "lib/keep.tmp.rs", "fn kept() {}"),
        |r| write(r, "node_modules/m/index.js", "x"),
        |r| write(r, "pkg/package.json", "{}"),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(check(change.1).is_some(), "change {}", change.0);
    }
}

#[test]
fn a_changed_ignore_file_calls_for_a_full_walk() {
    assert!(check(|r| write(r, ".gitignore", "gen/\n")).is_none());
    assert!(check(|r| write(r, "src/.ignore", "main.rs\n")).is_none());
    assert!(check(|r| fs::remove_file(r.join("lib/.gitignore")).unwrap()).is_none());
}

#[test]
fn an_unchanged_folder_is_not_listed_again() {
    let d = project();
    let r = d.path();
    age_dirs(r);
    let before = walk(r);
    // A file appears, but its folder's time is put back: the cache trusts the folder.
    write(r, "src/sneaky.rs", "fn s() {}");
    age_dirs(r);
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap();
    let got = rewalk(r, &before.cache, before.sources, before.docs, now).unwrap();
    assert!(!got.sources.iter().any(|f| f.path == "src/sneaky.rs"));
    assert!(walk(r).sources.iter().any(|f| f.path == "src/sneaky.rs"));
}

/// `Looked::same` says the project is as last seen exactly when a rewalk finds the same lists
/// and cache (all of it modified before the index was built); in the second of the build or
/// after, it says no and leaves the rest to the rewalk.
#[test]
fn same_is_what_a_rewalk_and_a_comparison_say() {
    let changes: [fn(&Path); 8] = [
        |_| {},
        |r| write(r, "src/main.rs", "fn main() { edited() }"),
        |r| write(r, "src/main.rs", "fn nain() {}"), // same size, new time
        |r| write(r, "src/new.rs", "fn new() {}"),
        |r| fs::remove_file(r.join("lib/deep/b.py")).unwrap(),
        |r| fs::rename(r.join("src/cli"), r.join("src/command")).unwrap(),
        |r| write(r, "lib/.gitignore", "!keep.tmp.rs\nother\n"),
        |r| write(r, "README.md", "# Hello"),
    ];
    let secs = |t: SystemTime| {
        let s = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        i64::try_from(s).unwrap()
    };
    let later = secs(SystemTime::now() + Duration::from_secs(3600));
    for (i, change) in changes.iter().enumerate() {
        let d = project();
        let r = d.path();
        age_dirs(r);
        let before = walk(r);
        change(r);
        let known = || before.sources.iter().chain(&before.docs);
        let paths: Vec<&str> = known().map(|f| f.path.as_str()).collect();
        let looked = look(r, &before.cache, &paths).unwrap();
        let stamps = || known().map(|f| (f.size, f.mtime));
        let same = looked.same(r, &before.cache, stamps(), later);
        let again = rewalk(
            r,
            &before.cache,
            before.sources.clone(),
            before.docs.clone(),
            later,
        );
        if i == 0 {
            let w = again.as_ref().unwrap();
            assert_eq!(lists(w), lists(&before));
            assert_eq!(w.cache, before.cache);
        }
        let unchanged =
            again.is_some_and(|w| lists(&w) == lists(&before) && w.cache == before.cache);
        assert_eq!(same, unchanged, "change {i}");
        assert_eq!(same, i == 0, "change {i}");
        if i == 0 {
            let built_now = secs(SystemTime::now());
            assert!(!looked.same(r, &before.cache, stamps(), built_now));
        }
    }
}
