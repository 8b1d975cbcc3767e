//! "Did you mean …?" suggestions for misspelt names (fields, config keys, story ids).

/// The candidate closest to `input`, if it is close enough to be a plausible typo.
/// Case-only differences always qualify.
pub(crate) fn nearest<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = input.to_lowercase();
    let mut best: Option<(&str, f64)> = None;
    for cand in candidates {
        if cand == input {
            continue;
        }
        let score = if cand.to_lowercase() == lower {
            1.0
        } else {
            strsim::jaro_winkler(&lower, &cand.to_lowercase())
        };
        if score >= 0.85 && best.is_none_or(|(_, s)| score > s) {
            best = Some((cand, score));
        }
    }
    best.map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_case_and_typo_fixes_only() {
        let fields = ["blockedBy", "passes", "priority", "notes"];
        assert_eq!(nearest("blockedby", fields), Some("blockedBy"));
        assert_eq!(nearest("blokedBy", fields), Some("blockedBy"));
        assert_eq!(nearest("pases", fields), Some("passes"));
        assert_eq!(nearest("zzz", fields), None);
    }
}
