//! Token arithmetic for the prompt budget: the estimate, the fill zones, and cutting text to size.
//!
//! Owns how text is measured (chars/4 plus a 15% safety margin, so an estimate never undercounts
//! a typical tokenizer by much) and the zone thresholds (60/75/85/95% of the budget). Pure
//! functions only; what each zone does to the prompt is decided in [`super::assemble`].

use serde::Serialize;

/// Tokens estimated for a text of `chars` characters: `ceil(chars / 4 * 1.15)`.
pub(crate) fn tokens_for_chars(chars: usize) -> usize {
    // chars / 4 * 115 / 100 == chars * 23 / 80, rounded up; u128 so no input overflows.
    let t = (chars as u128 * 23).div_ceil(80);
    usize::try_from(t).unwrap_or(usize::MAX)
}

/// Tokens estimated for `text` (counted in Unicode scalar values, not bytes).
pub(crate) fn estimate(text: &str) -> usize {
    tokens_for_chars(text.chars().count())
}

/// The most characters a text may have and still be estimated within `budget` tokens.
/// Exact: `tokens_for_chars(max_chars(b)) <= b < tokens_for_chars(max_chars(b) + 1)`.
pub(crate) fn max_chars(budget: usize) -> usize {
    let c = budget as u128 * 80 / 23;
    usize::try_from(c).unwrap_or(usize::MAX)
}

/// How full the prompt is, relative to the budget. Each zone asks the assembler to give up a
/// little more of the low-priority material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Zone {
    /// Under 60%: everything at full length.
    Green,
    /// 60% and over: spec excerpts are shortened.
    Yellow,
    /// 75% and over: lower-ranked Pin entries keep only their name and files.
    Orange,
    /// 85% and over: recent progress entries and the errors seen before are dropped.
    Red,
    /// 95% and over: only instructions, the story and the Codebase Patterns remain.
    Critical,
}

impl Zone {
    /// All zones, least full first.
    pub(crate) const ALL: [Zone; 5] = [
        Zone::Green,
        Zone::Yellow,
        Zone::Orange,
        Zone::Red,
        Zone::Critical,
    ];

    /// The fill percentage at which this zone starts.
    pub(crate) fn threshold_percent(self) -> u32 {
        match self {
            Zone::Green => 0,
            Zone::Yellow => 60,
            Zone::Orange => 75,
            Zone::Red => 85,
            Zone::Critical => 95,
        }
    }

    /// 0 for green up to 4 for critical: how many reduction steps the zone asks for.
    pub(crate) fn level(self) -> usize {
        self as usize
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Zone::Green => "green",
            Zone::Yellow => "yellow",
            Zone::Orange => "orange",
            Zone::Red => "red",
            Zone::Critical => "critical",
        }
    }

    /// What the assembler gives up once the prompt reaches this zone (cumulative).
    pub(crate) fn reduction(self) -> &'static str {
        match self {
            Zone::Green => "none",
            Zone::Yellow => "spec excerpts shortened",
            Zone::Orange => {
                "spec excerpts shortened, lower-ranked Pin entries cut to names and files"
            }
            Zone::Red => {
                "spec excerpts shortened, lower-ranked Pin entries cut, recent progress and errors seen before dropped"
            }
            Zone::Critical => "only instructions, story and Codebase Patterns kept",
        }
    }

    /// The zone of a prompt estimated at `tokens` under `budget`.
    pub(crate) fn of(tokens: usize, budget: usize) -> Zone {
        let (t, b) = (tokens as u128 * 100, budget as u128);
        Zone::ALL
            .into_iter()
            .rev()
            .find(|z| t >= b * u128::from(z.threshold_percent()))
            .unwrap_or(Zone::Green)
    }
}

impl std::fmt::Display for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Fill as a whole percentage (rounded down; 0 for a zero budget with no tokens).
pub(crate) fn percent(tokens: usize, budget: usize) -> usize {
    if budget == 0 {
        return if tokens == 0 { 0 } else { usize::MAX };
    }
    usize::try_from(tokens as u128 * 100 / budget as u128).unwrap_or(usize::MAX)
}

/// The first `n` lines of `text` (line ends kept). Returns the text and whether lines were cut.
pub(crate) fn first_lines(text: &str, n: usize) -> (&str, bool) {
    let mut end = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == n {
            return (&text[..end], true);
        }
        end += line.len();
    }
    (text, false)
}

/// The start of `text`, at most `max` characters, cut at a line end when one is in reach.
/// Returns the kept text and whether anything was cut.
pub(crate) fn head(text: &str, max: usize) -> (&str, bool) {
    let Some((byte, _)) = text.char_indices().nth(max) else {
        return (text, false);
    };
    let kept = &text[..byte];
    match kept.rfind('\n') {
        Some(nl) if nl > 0 => (&kept[..=nl], true),
        _ => (kept, true),
    }
}

/// The end of `text`, at most `max` characters, starting at a line start when one is in reach.
/// Returns the kept text and whether anything was cut.
pub(crate) fn tail(text: &str, max: usize) -> (&str, bool) {
    let total = text.chars().count();
    if total <= max {
        return (text, false);
    }
    let skip = total - max;
    let byte = text.char_indices().nth(skip).map_or(text.len(), |(b, _)| b);
    let kept = &text[byte..];
    match kept.find('\n') {
        Some(nl) if nl + 1 < kept.len() => (&kept[nl + 1..], true),
        _ => (kept, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_is_chars_over_four_plus_fifteen_percent_rounded_up() {
        assert_eq!(tokens_for_chars(0), 0);
        assert_eq!(tokens_for_chars(1), 1);
        assert_eq!(tokens_for_chars(80), 23);
        assert_eq!(tokens_for_chars(400), 115);
        assert_eq!(tokens_for_chars(401), 116);
        // Characters, not bytes: four 3-byte characters are four characters.
        assert_eq!(estimate("€€€€"), tokens_for_chars(4));
        assert!(tokens_for_chars(usize::MAX) < usize::MAX);
    }

    #[test]
    fn max_chars_is_the_exact_inverse_of_the_estimate() {
        for budget in [0, 1, 2, 22, 23, 24, 100, 24_000, 1_000_003] {
            let c = max_chars(budget);
            assert!(tokens_for_chars(c) <= budget, "budget {budget}");
            assert!(tokens_for_chars(c + 1) > budget, "budget {budget}");
        }
    }

    #[test]
    fn zones_start_at_60_75_85_95_percent() {
        let z = |t| Zone::of(t, 1000);
        assert_eq!(z(0), Zone::Green);
        assert_eq!(z(599), Zone::Green);
        assert_eq!(z(600), Zone::Yellow);
        assert_eq!(z(749), Zone::Yellow);
        assert_eq!(z(750), Zone::Orange);
        assert_eq!(z(850), Zone::Red);
        assert_eq!(z(949), Zone::Red);
        assert_eq!(z(950), Zone::Critical);
        assert_eq!(z(5000), Zone::Critical);
        assert_eq!(Zone::of(0, 0), Zone::Critical);
        assert_eq!(Zone::Critical.level(), 4);
        assert_eq!(percent(600, 1000), 60);
        assert_eq!(percent(0, 0), 0);
    }

    #[test]
    fn first_lines_keeps_line_ends_and_says_when_it_cut() {
        assert_eq!(first_lines("a\nb\nc\n", 2), ("a\nb\n", true));
        assert_eq!(first_lines("a\nb\nc", 3), ("a\nb\nc", false));
        assert_eq!(first_lines("a\nb\n", 2), ("a\nb\n", false));
        assert_eq!(first_lines("", 0), ("", false));
        assert_eq!(first_lines("x", 0), ("", true));
    }

    #[test]
    fn head_and_tail_cut_at_line_boundaries_within_the_limit() {
        assert_eq!(head("one\ntwo\nthree\n", 9), ("one\ntwo\n", true));
        assert_eq!(head("abcdef", 3), ("abc", true));
        assert_eq!(head("short", 10), ("short", false));
        assert_eq!(head("ééé", 2), ("éé", true));
        assert_eq!(tail("one\ntwo\nthree\n", 9), ("three\n", true));
        assert_eq!(tail("abcdef", 3), ("def", true));
        assert_eq!(tail("short", 10), ("short", false));
        assert_eq!(tail("ééé", 2), ("éé", true));
    }
}
