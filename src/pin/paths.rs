//! Path strings of the Pin's discovery: project-relative, `/`-separated.
//!
//! Owns the small helpers every discovery file shares (parent folder, base name, "is under",
//! join), pure over strings. A leaf: it imports none of its siblings, so [`super::discover`],
//! [`super::roots`], [`super::split`] and [`super::manifest`] can all use it without an
//! import circle. Does not touch the file system.

/// The folder of `path` ("" at the top).
pub(super) fn parent_dir(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// The last component of `path`.
pub(super) fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `path` lies strictly inside folder `dir` ("" holds everything).
pub(super) fn under(dir: &str, path: &str) -> bool {
    dir.is_empty()
        || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

/// `a/b`, or whichever is not empty.
pub(super) fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}
