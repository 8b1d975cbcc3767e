use super::*;

fn strs(v: &[Cow<'_, [u8]>]) -> Vec<String> {
    v.iter()
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

#[test]
fn extracts_first_bullet_and_nested_learnings() {
    let body = b"- Implemented X\n- Files changed: a.rs\n- **Learnings for future iterations:**\n  - one\n  - two\n    continued\n- Later bullet\n---\n";
    let (first, l) = extract(body);
    assert_eq!(first, Some(&b"Implemented X"[..]));
    assert_eq!(strs(&l), ["one", "two continued", "Later bullet"]);
}

#[test]
fn extracts_flat_learnings_list_and_markers() {
    let body = b"Did a thing.\n\n**Learnings:**\n- alpha\n\n- beta\n**Files:**\n- c.rs\n- [GOTCHA] tests need a tty\nnote [PATTERN] use fsutil\n- **Learnings:**\n- flat one\n- flat two\n";
    let (first, l) = extract(body);
    assert_eq!(first, Some(&b"Did a thing."[..]));
    assert_eq!(
        strs(&l),
        [
            "alpha",
            "beta",
            "[GOTCHA] tests need a tty",
            "note [PATTERN] use fsutil",
            "flat one",
            "flat two"
        ]
    );
}

#[test]
fn h3_headings_key_learnings_and_other_bold_labels() {
    let body = b"Did it.\n### Learnings for future iterations:\n- h3 one\n\n### Files\n- x.rs\nKey learnings:\n1. numbered\n2) also\n**Gotchas:**\n- gotcha one\n  - nested deeper\n**Patterns discovered:** inline pattern\n**Files changed:**\n- y.rs\n";
    let (first, l) = extract(body);
    assert_eq!(first, Some(&b"Did it."[..]));
    assert_eq!(
        strs(&l),
        [
            "h3 one",
            "numbered",
            "also",
            "gotcha one",
            "nested deeper",
            "**Patterns discovered:** inline pattern"
        ]
    );
}

#[test]
fn inline_lessons_paragraphs_and_wrapped_bullets() {
    let body = b"- Built the thing\n- Lesson: keep the cache warm\n- Lessons learned:\n  - wrap\n    over two lines\n- Patterns discovered: use fsutil\n    everywhere\n\nKey insight: prose\nmore prose\n\nUnrelated paragraph.\n";
    let (first, l) = extract(body);
    assert_eq!(first, Some(&b"Built the thing"[..]));
    assert_eq!(
        strs(&l),
        [
            "Lesson: keep the cache warm",
            "wrap over two lines",
            "Patterns discovered: use fsutil everywhere",
            "Key insight: prose",
            "more prose"
        ]
    );
}

#[test]
fn prose_with_a_colon_is_not_a_label() {
    assert_eq!(
        label(b"We changed the parser so that it reads: everything"),
        Label::None
    );
    assert_eq!(label(b"**Files changed:**"), Label::Other);
    assert_eq!(label(b"### Notes"), Label::Other);
    assert_eq!(label(b"**Status:** done"), Label::None);
    assert_eq!(label(b"Lesson: x"), Label::Lessons(b"x"));
    assert_eq!(label(b"**Gotchas**: y"), Label::Lessons(b"y"));
}

#[test]
fn a_label_like_bullet_inside_the_list_does_not_narrow_it() {
    // From a real log: a nested bullet reads like an inline label ("… pattern: …"); the
    // bullets back at the label's level after it are still lessons.
    let body = b"- Did it\n- **Learnings for future iterations:**\n  - one\n  - Y.js merging pattern: read, sync, write\n  - two\n- GoodJob control: include the mixin\n- three\n---\n";
    let (_, l) = extract(body);
    assert_eq!(
        strs(&l),
        [
            "one",
            "Y.js merging pattern: read, sync, write",
            "two",
            "GoodJob control: include the mixin",
            "three"
        ]
    );
}

#[test]
fn a_wrapped_line_that_reads_like_a_label_stays_in_its_lesson() {
    // From a real log: the second line of a wrapped bullet has "Pattern:" in it.
    let body = b"- **Learnings for future iterations:**\n  - tests need an http origin; spin up a server and tear it down at\n    the end. Pattern: `serve()` returning {url}.\n  - next lesson\n";
    let (_, l) = extract(body);
    assert_eq!(
        strs(&l),
        [
            "tests need an http origin; spin up a server and tear it down at the end. Pattern: `serve()` returning {url}.",
            "next lesson"
        ]
    );
}

#[test]
fn a_wrapped_line_outside_a_list_is_not_a_label() {
    // From a real log: a summary bullet wraps onto "14 interactive patterns: …"; that is not a
    // learnings label, so the summary bullets after it are not lessons.
    let body = b"- Did it\n- Each task carries a unique tag.\n  14 interactive patterns: a, b,\n  c, d.\n- tests went from 10 to 15:\n   * exactly 22 tasks\n";
    let (first, l) = extract(body);
    assert_eq!(first, Some(&b"Did it"[..]));
    assert!(l.is_empty(), "{:?}", strs(&l));
}

#[test]
fn a_learnings_label_with_a_note_in_parentheses_keeps_its_wrapped_bullets() {
    // The shape issue 29 reports: the heading carries a note in parentheses (once with a colon
    // inside it) and every bullet wraps; all of them were lost in compaction.
    let body = b"- Added the tokenizer\n- Files changed: a.ts\n- Learnings for future iterations (carry into X-002/003):\n  - the tokenizer treats `--` as the end of flags, so positional\n    arguments after it are not re-split\n  - keep offsets in UTF-16 units\n- Learnings (see X-003: dates):\n  - normalise to UTC\n    first\n---\n";
    let (first, l) = extract(body);
    assert_eq!(first, Some(&b"Added the tokenizer"[..]));
    assert_eq!(
        strs(&l),
        [
            "the tokenizer treats `--` as the end of flags, so positional arguments after it are not re-split",
            "keep offsets in UTF-16 units",
            "normalise to UTC first"
        ]
    );
    // A long plain line with a colon is still prose, parentheses or not.
    let (_, l) = extract(b"- We fixed the parser and the lexer today (both): done\n");
    assert!(l.is_empty(), "{:?}", strs(&l));
}
