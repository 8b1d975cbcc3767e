//! Helpers of the `pin_*` tests: reading a Pin's entries, copying real trees.

use std::path::{Path, PathBuf};

pub(crate) fn index(root: &Path) -> String {
    std::fs::read_to_string(root.join("specs/INDEX.md")).unwrap()
}

/// Copy a tree, skipping `.git`, `target` and the given relative paths.
pub(crate) fn copy_tree(from: &Path, to: &Path, skip: &[&str]) {
    fn walk(base: &Path, from: &Path, to: &Path, skip: &[&str]) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            let src = e.path();
            let rel = src
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if name == ".git" || name == "target" || skip.contains(&rel.as_str()) {
                continue;
            }
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                walk(base, &src, &to.join(&name), skip);
            } else if ft.is_file() {
                std::fs::copy(&src, to.join(&name)).unwrap();
            }
        }
    }
    walk(from, from, to, skip);
}

/// The newest copy of `<name>-<version>` in the local cargo registry cache. CI downloads the
/// project's dependencies before the tests, so their sources are there.
pub(crate) fn registry_crate(name: &str) -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    let mut found = Vec::new();
    for index in std::fs::read_dir(home.join("registry/src")).expect("a cargo registry cache") {
        let index = index.unwrap().path();
        for c in std::fs::read_dir(&index).unwrap() {
            let p = c.unwrap().path();
            let file = p.file_name().unwrap().to_string_lossy().to_string();
            if let Some(ver) = file.strip_prefix(&format!("{name}-"))
                && ver.starts_with(|c: char| c.is_ascii_digit())
            {
                found.push(p);
            }
        }
    }
    found.sort();
    found
        .pop()
        .unwrap_or_else(|| panic!("{name} is not in the cargo registry cache; run `cargo fetch`"))
}

/// One entry's section of a Pin (from its heading to its `---`).
pub(crate) fn section<'a>(pin: &'a str, name: &str) -> &'a str {
    let start = pin
        .find(&format!("### {name}\n"))
        .unwrap_or_else(|| panic!("no entry {name} in\n{pin}"));
    let rest = &pin[start..];
    let end = rest.find("\n---\n").map_or(rest.len(), |e| e + 5);
    &rest[..end]
}

/// The keywords of one entry.
pub(crate) fn keywords(pin: &str, name: &str) -> Vec<String> {
    let s = section(pin, name);
    let line = s
        .lines()
        .find(|l| l.starts_with("**Keywords**:"))
        .unwrap_or_else(|| panic!("no keywords in {s}"));
    line["**Keywords**:".len()..]
        .split(',')
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

/// Entry names, in order.
pub(crate) fn names(pin: &str) -> Vec<String> {
    pin.lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(String::from)
        .collect()
}
