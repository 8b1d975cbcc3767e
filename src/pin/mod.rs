//! The Pin: specs/INDEX.md, a keyword index of the codebase a fresh agent reads first so it finds
//! existing code instead of writing duplicates.
//!
//! Owns the format ([`format`](mod@format): lenient parse, lossless write), generation
//! ([`generate`]: a reader of the index, [`crate::index`], which walks and reads the project
//! once for the Pin and "where to look" alike; with the pure parts [`discover`], `roots`,
//! `split`, [`cluster`], [`manifest`], [`keywords`] and [`merge`], over the leaf files `source`
//! (their inputs), `paths` (path helpers) and [`cover`] (which paths an entry's files name)),
//! validation ([`check`]) and ranking ([`search`]: [`search::parse_and_search`], with the
//! index's BM25F and tokenizer).
//! Does not own printing or exit codes (see `crate::cli::pin`) or prompt assembly (the context
//! builder calls [`read_index`] and [`search::parse_and_search`]). The format is specified in
//! specs/pin.md.

pub(crate) mod check;
pub(crate) mod cluster;
pub(crate) mod cover;
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
}
