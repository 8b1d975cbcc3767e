//! An agent CLI's version: read from what its `--version` prints, compared with the range a
//! preset was verified with.
//!
//! Owns the parsing (the first `MAJOR.MINOR[.PATCH]` in the text: `2.1.332 (Claude Code)`,
//! `codex-cli 0.171.0`, `0.0.1790142911-g7618fb`) and the ordering. Pure. Running the program
//! is [`super::probe`]'s; which range belongs to which preset is [`super::preset`]'s.

use std::fmt;

/// A version as `MAJOR.MINOR.PATCH`; anything after the numbers (a pre-release, a build) is
/// kept for display only and does not order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    /// The text as the CLI printed it (`0.0.1790142911-g7618fb`).
    pub text: String,
}

impl Version {
    /// A version from its parts (the preset table's constants).
    pub(crate) const fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            text: String::new(),
        }
    }

    fn key(&self) -> (u64, u64, u64) {
        (self.major, self.minor, self.patch)
    }

    /// The first `N.N` or `N.N.N` in `text` (a word of its own: `v1.2.3` counts, `x1.2` too,
    /// `1.2.3.4` is read as `1.2.3`); `None` when there is none.
    pub(crate) fn find(text: &str) -> Option<Version> {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_digit()
                && (i == 0 || !bytes[i - 1].is_ascii_digit())
                && let Some(v) = Self::at(&text[i..])
            {
                return Some(v);
            }
            i += 1;
        }
        None
    }

    /// A version starting exactly at the start of `s`.
    fn at(s: &str) -> Option<Version> {
        let end = s
            .find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ')' | '(' | '"' | '\''))
            .unwrap_or(s.len());
        let word = &s[..end];
        let numeric_end = word
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(word.len());
        let mut parts = word[..numeric_end].split('.').filter(|p| !p.is_empty());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        Some(Version {
            major,
            minor,
            patch,
            text: word.trim_end_matches('.').to_string(),
        })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.is_empty() {
            write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
        } else {
            f.write_str(&self.text)
        }
    }
}

/// The versions a preset was verified with, both ends included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Range {
    pub oldest: Version,
    pub newest: Version,
}

/// Where a version stands against a [`Range`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    Inside,
    Older,
    Newer,
}

impl Range {
    pub(crate) fn fit(&self, v: &Version) -> Fit {
        if v < &self.oldest {
            Fit::Older
        } else if v > &self.newest {
            Fit::Newer
        } else {
            Fit::Inside
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.oldest == self.newest {
            write!(f, "{}", self.oldest)
        } else {
            write!(f, "{} to {}", self.oldest, self.newest)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::find(s).unwrap()
    }

    #[test]
    fn reads_what_the_real_clis_print() {
        let cases = [
            ("2.1.332 (Claude Code)\n", (2, 1, 332), "2.1.332"),
            ("codex-cli 0.171.0\n", (0, 171, 0), "0.171.0"),
            ("0.61.0\n", (0, 61, 0), "0.61.0"),
            ("1.18.33\n", (1, 18, 33), "1.18.33"),
            (
                "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n",
                (1, 0, 102),
                "1.0.102",
            ),
            (
                "0.0.1790142911-g7618fb\n",
                (0, 0, 1_790_142_911),
                "0.0.1790142911-g7618fb",
            ),
            ("v20.20.2", (20, 20, 2), "20.20.2"),
            ("tool 3.4", (3, 4, 0), "3.4"),
        ];
        for (text, (a, b, c), shown) in cases {
            let got = v(text);
            assert_eq!((got.major, got.minor, got.patch), (a, b, c), "{text:?}");
            assert_eq!(got.to_string(), shown, "{text:?}");
        }
        assert_eq!(Version::find("no digits here"), None);
        assert_eq!(Version::find("build 42 only"), None);
        assert_eq!(Version::find(""), None);
    }

    #[test]
    fn orders_by_numbers_and_fits_a_range() {
        assert!(v("0.128.0") > v("0.99.9"));
        assert!(v("1.0.10") > v("1.0.9"));
        assert_eq!(v("1.2.3-beta").cmp(&v("1.2.3")), std::cmp::Ordering::Equal);
        let r = Range {
            oldest: Version::new(0, 128, 0),
            newest: Version::new(0, 171, 0),
        };
        assert_eq!(r.fit(&v("0.150.2")), Fit::Inside);
        assert_eq!(r.fit(&v("0.128.0")), Fit::Inside);
        assert_eq!(r.fit(&v("0.171.0")), Fit::Inside);
        assert_eq!(r.fit(&v("0.127.9")), Fit::Older);
        assert_eq!(r.fit(&v("0.172.0")), Fit::Newer);
        assert_eq!(r.to_string(), "0.128.0 to 0.171.0");
    }
}
