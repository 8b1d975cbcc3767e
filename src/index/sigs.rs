//! The one-line signatures shown for a ranked file's definitions (`ralph context`, `ralph pin
//! search --files`). The index keeps where a definition is (kind, name, line), not its line's
//! text: that text was half of the index's bytes, written on every cold build and held in
//! memory while it is. The few files a prompt shows have their lines read back instead.
//!
//! Pure: a file's text in, signatures out; reading the files is [`super::scan`]'s. Does not
//! rank.

use super::facts::{Symbol, cut, push_clean};
use super::lang::{Lang, defines, signature, text_lines};

/// The longest signature shown, in characters (a `…` marks one cut).
pub(crate) const MAX_SIG: usize = 140;

/// Each of `symbols`' signature, from `text`, the text of their file (in `lang`) as the index
/// read it: its line trimmed, without a trailing `{` or `:` ([`signature`]), cut to
/// [`MAX_SIG`] characters. A line that no longer defines the name (the file changed since it
/// was read, or is gone: `text` is empty) gives `kind name`.
pub(crate) fn fill<'a>(lang: Lang, text: &str, symbols: impl IntoIterator<Item = &'a mut Symbol>) {
    let mut symbols: Vec<&mut Symbol> = symbols.into_iter().collect();
    let last = symbols.iter().map(|s| s.line).max().unwrap_or(0);
    let lines: Vec<&str> = text_lines(text).take(last as usize).collect();
    for s in &mut symbols {
        let line = (s.line as usize).checked_sub(1).and_then(|i| lines.get(i));
        s.sig = match line {
            Some(line) if defines(lang, line, &s.name) => {
                let mut sig = String::new();
                push_clean(&mut sig, &cut(signature(line), MAX_SIG));
                sig
            }
            _ => format!("{} {}", s.kind, s.name),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::{def_refs, facts_alone};

    /// The definitions of `src` at `path`, as the index gives them, their signatures filled
    /// from `text`.
    fn filled(path: &str, src: &str, text: &str) -> Vec<(String, u32, String)> {
        let f = facts_alone(path, src.as_bytes()).0;
        let mut all: Vec<Symbol> = def_refs(&f.defs).map(Symbol::from).collect();
        fill(Lang::of(path), text, &mut all);
        all.into_iter().map(|s| (s.name, s.line, s.sig)).collect()
    }

    #[test]
    fn a_signature_is_its_line_trimmed_without_the_opening_brace_or_colon() {
        let rs = "pub struct Table {\n}\n\nimpl Table {\n    pub(crate) fn render_table(&self, width: usize) -> String {\n        todo!()\n    }\n}\r\nconst MAX: usize = 3;\n";
        assert_eq!(
            filled("src/table.rs", rs, rs),
            [
                ("Table".into(), 1, "pub struct Table".into()),
                ("Table".into(), 4, "impl Table".into()),
                (
                    "render_table".into(),
                    5,
                    "pub(crate) fn render_table(&self, width: usize) -> String".into()
                ),
                ("MAX".into(), 9, "const MAX: usize = 3;".into()),
            ]
        );
        let py = "class Segment:\n\tdef split_cells(self, cut):\n        pass\n";
        let got = filled("rich/segment.py", py, py);
        assert_eq!(got[1].2, "def split_cells(self, cut)", "{got:?}");
    }

    #[test]
    fn a_long_line_is_cut_by_characters() {
        let long = format!("fn {}(é: u8) {{}}", "a".repeat(400));
        let got = filled("a.rs", &long, &long);
        assert_eq!(got[0].2.chars().count(), MAX_SIG + 1, "{got:?}");
        assert!(got[0].2.ends_with('…'));
    }

    #[test]
    fn a_file_changed_or_gone_since_it_was_read_shows_kind_and_name() {
        let rs = "fn a() {}\nfn b() {}\n";
        let got = filled("a.rs", rs, "fn a() {}\n// b moved away\n");
        assert_eq!(got[0].2, "fn a() {}");
        assert_eq!(got[1].2, "fn b");
        let got = filled("a.rs", rs, "");
        assert_eq!(got[0].2, "fn a");
    }
}
