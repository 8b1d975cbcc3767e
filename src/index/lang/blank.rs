//! Blanks (spaces and tabs) at the ends of a line's text, trimmed by bytes ([`Blanks`]): the
//! line matchers trim them several times per line of every file, and `str`'s char-pattern trims
//! decode each character to compare it. [`trimmed`] is `str::trim` (all Unicode whitespace) with
//! an ASCII fast path. Does not find definitions or imports (see [`super::defs`], [`super::imports`]).

/// Trimming spaces and tabs, by bytes: what `trim_start_matches([' ', '\t'])` and its kin do.
pub(super) trait Blanks {
    /// Without its leading spaces and tabs.
    fn trim_blanks_start(&self) -> &str;
    /// Without its trailing spaces and tabs.
    fn trim_blanks_end(&self) -> &str;
    /// Without its leading and trailing spaces and tabs.
    fn trim_blanks(&self) -> &str {
        self.trim_blanks_start().trim_blanks_end()
    }
}

impl Blanks for str {
    fn trim_blanks_start(&self) -> &str {
        let n = self
            .bytes()
            .position(|b| b != b' ' && b != b'\t')
            .unwrap_or(self.len());
        &self[n..]
    }

    fn trim_blanks_end(&self) -> &str {
        let n = self
            .bytes()
            .rposition(|b| b != b' ' && b != b'\t')
            .map_or(0, |i| i + 1);
        &self[..n]
    }
}

/// `line.trim()` (Unicode whitespace), without decoding characters when both ends are ASCII.
pub(super) fn trimmed(line: &str) -> &str {
    let t = line.trim_ascii();
    let plain = |b: Option<&u8>| b.is_none_or(|&b| b.is_ascii() && b != 0x0B);
    if plain(t.as_bytes().first()) && plain(t.as_bytes().last()) {
        return t;
    }
    t.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_are_trimmed_and_nothing_else() {
        assert_eq!(" \t fn x \t".trim_blanks_start(), "fn x \t");
        assert_eq!(" \t fn x \t".trim_blanks_end(), " \t fn x");
        assert_eq!(" \t fn x \t".trim_blanks(), "fn x");
        assert_eq!(" \t\n".trim_blanks(), "\n");
        assert_eq!("\u{a0}x\u{a0}".trim_blanks(), "\u{a0}x\u{a0}");
        assert_eq!("".trim_blanks(), "");
        assert_eq!(" \t ".trim_blanks_end(), "");
    }

    #[test]
    fn trimmed_is_str_trim() {
        for s in [
            "",
            " ",
            "\t x \r",
            "x",
            "\u{b}x\u{b}",
            "\u{a0} x \u{3000}",
            " \u{2003}\t",
            "é ",
            " \u{85}",
            "\x0c y \x0c",
            "  // é",
        ] {
            assert_eq!(trimmed(s), s.trim(), "{s:?}");
        }
    }
}
