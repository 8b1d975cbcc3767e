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
