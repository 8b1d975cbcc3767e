//! A story as a search: its words split the way code is written (`renderTable`,
//! `render_table`, `--render-table` all give `render` and `table`), stop words and story
//! boilerplate dropped, lightly stemmed by the one tokenizer ([`crate::index::text`]), each term
//! weighted by where it appears. Pure.

use std::sync::LazyLock;

use crate::index::text::{FastSet, for_each_name_term, for_each_term, split_words, terms};

/// Weight of a word in the title (the rest of the story weighs 1).
const TITLE: f64 = 2.0;
/// Factor for a word that is part of a code identifier written in the story.
const IDENT: f64 = 1.5;
/// Factor for a word inside backticks (the author pointed at code).
const BACKTICK: f64 = 2.0;

/// Words that say how a story is told, not what it is about ("As a user I want … so that",
/// "add support for", "make sure"). Compared after stemming, and only in prose: inside an
/// identifier or backticks (`add_item`, `useState`) they are the code's own words.
const BOILERPLATE: &[&str] = &[
    "able",
    "acceptance",
    "add",
    "added",
    "adding",
    "adds",
    "allow",
    "allowed",
    "allows",
    "author",
    "bug",
    "bugs",
    "change",
    "changed",
    "changes",
    "correctly",
    "criteria",
    "currently",
    "ensure",
    "feature",
    "features",
    "fix",
    "fixed",
    "fixes",
    "fixing",
    "handle",
    "handles",
    "implement",
    "implemented",
    "improve",
    "instead",
    "issue",
    "issues",
    "make",
    "makes",
    "need",
    "needs",
    "new",
    "please",
    "possible",
    "properly",
    "should",
    "stories",
    "story",
    "support",
    "supported",
    "supports",
    "sure",
    "thing",
    "things",
    "tool",
    "update",
    "use",
    "used",
    "using",
    "updated",
    "updates",
    "want",
    "wants",
    "way",
    "work",
    "working",
    "works",
];

static BOILER: LazyLock<FastSet<String>> =
    LazyLock::new(|| BOILERPLATE.iter().flat_map(|w| terms(w)).collect());

/// One term of a query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryTerm {
    /// As the index stores it (lowercase, stemmed).
    pub term: String,
    /// The word as the story first wrote it (shown to people instead of the stem).
    pub written: String,
    pub weight: f64,
}

/// Whether a term is story boilerplate (see [`BOILERPLATE`]).
pub(crate) fn is_boilerplate(term: &str) -> bool {
    BOILER.contains(term)
}

/// The query of a story: `title` weighs more than `rest` (description, criteria, notes).
pub(crate) fn query(title: &str, rest: &str) -> Vec<QueryTerm> {
    let mut q: Vec<(QueryTerm, usize)> = Vec::new();
    add_text(&mut q, title, TITLE);
    add_text(&mut q, rest, 1.0);
    q.into_iter()
        .map(|(mut t, n)| {
            // Repetition adds a little: a story about tables says "table" more than once.
            t.weight *= 1.0 + 0.25 * (n.min(5) as f64 - 1.0);
            t
        })
        .collect()
}

fn add_text(q: &mut Vec<(QueryTerm, usize)>, text: &str, base: f64) {
    let title_case = is_title_case(text);
    let mut sentence_start = true;
    for (i, span) in text.split('`').enumerate() {
        let quoted = i % 2 == 1;
        for (raw, line_start) in words_of(span) {
            sentence_start |= line_start;
            let factor = if quoted {
                BACKTICK
            } else if is_identifier(raw) {
                IDENT
            } else {
                1.0
            };
            let named = !title_case && !sentence_start && is_capitalized(raw);
            let mut term = |term: &str, w: &str| {
                if factor != 1.0 || !is_boilerplate(term) {
                    add(q, term, w, base * factor);
                }
            };
            // Written alone as code or as a name, a stop word is a name (`Where`, `once`); in
            // a longer identifier (`hasSuffix`) the other words say what it is.
            if (factor != 1.0 || named) && split_words(raw).len() == 1 {
                for_each_name_term(raw, &mut term);
            } else {
                for_each_term(raw, &mut term);
            }
            sentence_start = !quoted && raw.ends_with(['.', '!', '?', ':', ';']);
        }
    }
}

/// The whitespace-separated words of `text`, each with whether it is the first of a line
/// after a line break (a list item or a criterion starts a sentence).
fn words_of(text: &str) -> impl Iterator<Item = (&str, bool)> {
    text.split('\n').enumerate().flat_map(|(l, line)| {
        line.split_whitespace()
            .enumerate()
            .map(move |(i, w)| (w, l > 0 && i == 0))
    })
}

/// Whether a word of prose is written with a capital then lowercase letters (`Where`, not
/// `WHERE`, `where` nor the pronoun `I`).
fn is_capitalized(raw: &str) -> bool {
    let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
    let mut chars = w.chars();
    w.chars().count() > 1
        && chars.next().is_some_and(char::is_uppercase)
        && chars.all(char::is_lowercase)
}

/// Whether most words of `text` (of three letters or more) start with a capital, as in
/// "Add Support For The New Parser": its capitals say nothing of which words are names.
fn is_title_case(text: &str) -> bool {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3)
        .collect();
    let capitals = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    words.len() >= 3 && capitals * 2 > words.len()
}

fn add(q: &mut Vec<(QueryTerm, usize)>, term: &str, written: &str, weight: f64) {
    match q.iter_mut().find(|(t, _)| t.term == term) {
        Some((t, n)) => {
            t.weight = t.weight.max(weight);
            *n += 1;
        }
        None => q.push((
            QueryTerm {
                term: term.to_string(),
                written: written.to_string(),
                weight,
            },
            1,
        )),
    }
}

/// A term (as the index stores it) shown as the story wrote it; the term itself when the
/// story did not write it.
pub(crate) fn as_written(query: &[QueryTerm], term: &str) -> String {
    query
        .iter()
        .find(|q| q.term == term)
        .map_or_else(|| term.to_string(), |q| q.written.clone())
}

/// The query's words as written, joined by spaces (stop words and boilerplate already gone):
/// the text the Pin is searched with.
pub(crate) fn written_words(query: &[QueryTerm]) -> String {
    let words: Vec<&str> = query.iter().map(|q| q.written.as_str()).collect();
    words.join(" ")
}

/// Whether a whitespace-separated token of prose is written like code: snake_case, camelCase,
/// a `--flag`, `a::path`, `obj.method`, `call()`.
fn is_identifier(raw: &str) -> bool {
    let t = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_');
    let b = t.as_bytes();
    let inner_dot = b
        .windows(3)
        .any(|w| w[0].is_ascii_alphanumeric() && w[1] == b'.' && w[2].is_ascii_alphabetic());
    t.starts_with("--")
        || t.trim_matches('_').contains('_')
        || t.contains("::")
        || raw.contains("()")
        || inner_dot
        || b.windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms_of(q: &[QueryTerm]) -> Vec<&str> {
        q.iter().map(|t| t.term.as_str()).collect()
    }

    #[test]
    fn code_styles_split_alike_and_weigh_more() {
        for title in [
            "renderTable",
            "render_table",
            "--render-table",
            "`render-table`",
        ] {
            let q = query(title, "");
            assert_eq!(terms_of(&q), ["render", "tabl"], "{title}");
            assert!(q[0].weight > TITLE, "{title}");
        }
        let plain = query("render table", "");
        assert_eq!(plain[0].weight, TITLE);
    }

    #[test]
    fn stop_words_and_boilerplate_match_nothing() {
        let q = query(
            "As a user I want to add support for the thing",
            "so that it works properly",
        );
        assert_eq!(terms_of(&q), ["user"]);
        assert!(query("the a of and", "so that").is_empty());
        let code = query("Use `useState` in add_item", "");
        assert_eq!(terms_of(&code), ["use", "stat", "add", "item"]);
    }

    #[test]
    fn a_stop_word_written_as_a_name_is_a_term() {
        // Capitalised inside a sentence, in backticks, or as a call: a name.
        assert_eq!(
            terms_of(&query("Provide more detailed errors in Where", "")),
            ["provid", "detail", "error", "where"]
        );
        assert_eq!(
            terms_of(&query("Call `once` then Before()", "")),
            ["call", "once", "before"]
        );
        // Where a sentence or a line starts, in a title written in capitals, or in a longer
        // identifier, it stays a stop word.
        let none = query("Where rows go. Then render", "rows\nWhen done, render");
        assert_eq!(terms_of(&none), ["row", "go", "render"]);
        assert_eq!(
            terms_of(&query("Render Rows Where Shown", "")),
            ["render", "row", "shown"]
        );
        assert_eq!(
            terms_of(&query("Add hasSuffix alias", "")),
            ["suffix", "alia"]
        );
    }

    #[test]
    fn written_form_is_kept_and_title_outweighs_body() {
        let q = query("Configurable variables", "configuration of variables");
        assert_eq!(q[0].written, "Configurable");
        assert_eq!(q[1].written, "variables");
        assert_eq!(as_written(&q, "variabl"), "variables");
        assert_eq!(as_written(&q, "other"), "other");
        assert_eq!(written_words(&q), "Configurable variables configuration");
        let body_only = query("x", "tables");
        assert!(q[1].weight > body_only.iter().find(|t| t.term == "tabl").unwrap().weight);
    }
}
