//! The Pin: specs/INDEX.md, a keyword index of the codebase a fresh agent reads first so it finds
//! existing code instead of writing duplicates.
//!
//! Owns the format ([`format`](mod@format): lenient parse, lossless write), generation
//! ([`generate`]: a reader of the index, [`crate::index`], which walks and reads the project
//! once for the Pin and "where to look" alike; with the pure parts [`discover`], `roots`,
//! `split`, [`cluster`], [`manifest`], [`keywords`] and [`merge`], over the leaf files `source`
//! (their inputs), `paths` (path helpers) and [`cover`] (which paths an entry's files name)),
//! validation ([`check`]) and ranking ([`search`], with the index's BM25F and tokenizer, over
//! the Pin's [`digest`], kept in [`DIGEST_PATH`] per Pin text: [`searchable`]).
//! Does not own printing or exit codes (see `crate::cli::pin`) or prompt assembly (the context
//! builder calls [`searchable`]). The format is specified in specs/pin.md.

pub(crate) mod check;
pub(crate) mod cluster;
pub(crate) mod cover;
pub(crate) mod digest;
pub(crate) mod discover;
pub(crate) mod format;
pub(crate) mod generate;
pub(crate) mod keywords;
pub(crate) mod manifest;
pub(crate) mod merge;
mod paths;
mod roots;
pub(crate) mod search;
mod source;
mod split;

use std::path::{Path, PathBuf};

pub(crate) use format::{Pin, PinView};

/// Where the Pin lives, relative to the project root.
pub(crate) const INDEX_PATH: &str = "specs/INDEX.md";
/// Where the Pin's digest ([`digest`]) is kept, relative to the project root.
pub(crate) const DIGEST_PATH: &str = ".ralph/pin-search.bin";

/// Why the Pin could not be read or generated.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PinError {
    #[error(transparent)]
    Fs(#[from] crate::fsutil::FsError),
    #[error("{path}: not valid UTF-8 (first bad byte at line {line}); save the file as UTF-8")]
    NotUtf8 { path: PathBuf, line: usize },
    #[error("{root}: cannot walk the project (check --root)")]
    Walk {
        root: PathBuf,
        #[source]
        source: ignore::Error,
    },
}

/// Read a text file; `None` when it does not exist.
pub(crate) fn read_text(path: &Path) -> Result<Option<String>, PinError> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = crate::fsutil::read(path)?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(Some(s)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
            Err(PinError::NotUtf8 {
                path: path.to_path_buf(),
                line,
            })
        }
    }
}

/// Load `root/specs/INDEX.md`. A missing file gives an empty Pin; an unreadable or non-UTF-8
/// file is an error naming it. Parsing itself never fails.
pub(crate) fn load(root: &Path) -> Result<Pin, PinError> {
    Ok(PinView::parse(&read_index(root)?).to_pin())
}

/// The text of `root/specs/INDEX.md` ("" when it does not exist), for a borrowed
/// [`PinView::parse`] where nothing is edited (search, the context builder).
pub(crate) fn read_index(root: &Path) -> Result<String, PinError> {
    Ok(read_text(&root.join(INDEX_PATH))?.unwrap_or_default())
}

/// The Pin's text with its digest: what [`search::search`] reads.
#[derive(Debug, Default)]
pub(crate) struct Searchable {
    pub text: String,
    pub digest: digest::Digest,
}

impl Searchable {
    /// The best `limit` entries for `query` (see [`search::search`]).
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<search::Found<'_>> {
        search::search(&self.text, &self.digest, query, limit)
    }
}

/// The Pin of `root` ready to search: its text, and its digest from [`DIGEST_PATH`] when that
/// is the digest of this text, else worked out (and written there when `save`; a digest that
/// cannot be written is worked out again next time). A missing Pin is empty; an unreadable or
/// non-UTF-8 one is an error naming it.
pub(crate) fn searchable(root: &Path, save: bool) -> Result<Searchable, PinError> {
    let text = read_index(root)?;
    let path = root.join(DIGEST_PATH);
    let kept = crate::fsutil::read_if_exists(&path).ok().flatten();
    if let Some(digest) = kept.and_then(|b| digest::Digest::from_bytes(b, &text)) {
        return Ok(Searchable { text, digest });
    }
    let digest = digest::Digest::build(&text);
    if save && !text.is_empty() {
        let written = path
            .parent()
            .map_or(Ok(()), crate::fsutil::create_dir_all)
            .and_then(|()| crate::fsutil::replace_cache(&path, &[&digest.to_bytes(&text)]));
        if let Err(e) = written {
            tracing::debug!(error = %e, "the Pin's digest was not kept");
        }
    }
    Ok(Searchable { text, digest })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_missing_is_empty_and_bad_utf8_names_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        assert!(load(d.path()).unwrap().entries().is_empty());
        std::fs::create_dir(d.path().join("specs")).unwrap();
        std::fs::write(d.path().join(INDEX_PATH), b"# a\n\n\xff\n").unwrap();
        let err = load(d.path()).unwrap_err().to_string();
        assert!(
            err.contains("specs/INDEX.md") && err.contains("line 3"),
            "{err}"
        );
    }

    #[test]
    fn a_digest_is_kept_only_when_asked_and_only_for_a_pin() {
        let d = tempfile::tempdir().unwrap();
        let kept = d.path().join(DIGEST_PATH);
        searchable(d.path(), true).unwrap();
        assert!(!kept.exists(), "no Pin, nothing kept");
        std::fs::create_dir(d.path().join("specs")).unwrap();
        let text = "### A\n**Keywords**: alpha\n**File Paths**:\n- a.rs\n";
        std::fs::write(d.path().join(INDEX_PATH), text).unwrap();
        let dry = searchable(d.path(), false).unwrap();
        assert!(!kept.exists(), "a dry search writes nothing");
        let pin = searchable(d.path(), true).unwrap();
        assert_eq!(pin.digest, dry.digest);
        assert_eq!(std::fs::read(&kept).unwrap(), pin.digest.to_bytes(text));
        assert_eq!(pin.search("alpha", 5)[0].entry.name, "A");
    }
}
