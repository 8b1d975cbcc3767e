use super::*;

const PIN: &str = "# The Pin\n\nProse.\n\n### Parser\n**Keywords**: parse, parsing, grammar\n\
    **File Paths**:\n- src/parse.rs\n- src/parse/lexer.rs\n**Spec Link**: specs/parse.md\n\n---\n\n\
    ### Parser tests\n**Kind**: tests\n**Keywords**: parse\n**File Paths**:\n- tests/parse.rs\n---\n";

fn fork() -> &'static str {
    include_str!("../../../tests/fixtures/compat/newralph/INDEX.md")
}

#[test]
fn entries_are_where_a_whole_parse_finds_them_and_read_alone_the_same() {
    for text in [PIN, fork()] {
        let d = Digest::build(text);
        let whole = PinView::parse(text);
        assert_eq!(d.len(), whole.entries().len());
        assert!(!d.is_empty());
        for (i, e) in whole.entries().iter().enumerate() {
            let s = d.entry(i).unwrap();
            assert_eq!((s.line, s.aside), (e.line, e.is_aside()));
            assert_eq!(PinView::entry_at(text, s.start, s.line).as_ref(), Some(e));
        }
    }
}

#[test]
fn lists_count_each_term_per_field() {
    let d = Digest::build(PIN);
    // Paths and the spec link: `src parse rs`, `src parse lexer rs`, `specs parse md`.
    assert_eq!(d.entry(0).unwrap().len, [3, 1, 10]);
    assert_eq!(d.entry(1).unwrap().len, [1, 2, 3]);
    // `parse` and `parsing` stem alike (`parser` does not): twice in the first entry's
    // keywords, in its two paths and its spec link; once in the second's keywords and path.
    assert_eq!(
        d.postings("pars").unwrap(),
        [(0, [2, 0, 3]), (1, [1, 0, 1])]
    );
    assert_eq!(
        d.postings("parser").unwrap(),
        [(0, [0, 1, 0]), (1, [0, 1, 0])]
    );
    assert_eq!(d.postings("grammar").unwrap(), [(0, [1, 0, 0])]);
    assert_eq!(d.totals(), [4, 3, 13]);
    assert_eq!(d.postings("nothing").unwrap(), []);
}

#[test]
fn bytes_read_back_only_with_their_own_text() {
    for text in [PIN, fork(), ""] {
        let d = Digest::build(text);
        let bytes = d.to_bytes(text);
        assert_eq!(Digest::from_bytes(bytes.clone(), text).as_ref(), Some(&d));
        let other = format!("{text} ");
        assert_eq!(Digest::from_bytes(bytes, &other), None);
    }
}

#[test]
fn damaged_bytes_never_read_back() {
    let bytes = Digest::build(fork()).to_bytes(fork());
    for cut in [0, 7, HEADER - 1, HEADER, bytes.len() - 1] {
        assert_eq!(
            Digest::from_bytes(bytes[..cut].to_vec(), fork()),
            None,
            "{cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(Digest::from_bytes(longer, fork()), None);
    for at in (0..bytes.len()).step_by(97) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        assert_eq!(Digest::from_bytes(flipped, fork()), None, "byte {at}");
    }
}

#[test]
fn a_list_that_does_not_decode_is_damaged() {
    let two = decode_list(&[0, 1, 0, 0, 0, 0, 0, 1], 2);
    assert_eq!(two, Ok(vec![(0, [1, 0, 0]), (1, [0, 0, 1])]));
    for bad in [
        &[0x80][..],               // a number cut short
        &[0, 1, 0],                // counts cut short
        &[0, 0, 0, 0],             // an entry without the term
        &[2, 1, 0, 0],             // an entry past the last
        &[0, 1, 0, 0, 1, 1, 0, 0], // past the last after a step
    ] {
        assert_eq!(decode_list(bad, 2), Err(Damaged), "{bad:?}");
    }
}

/// `bytes` with the check in the header made right again: a digest damaged on purpose, which
/// only the reading's other checks can catch.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= HEADER {
        let sum = check(&bytes[HEADER..]).to_le_bytes();
        bytes[HEADER - 8..HEADER].copy_from_slice(&sum);
    }
    bytes
}

proptest::proptest! {
    #[test]
    fn damaged_but_resealed_bytes_never_panic_and_search_like_the_text(
        flips in proptest::collection::vec((0usize..4096, 1u8..=255), 1..6),
        cut in proptest::option::of(0usize..4096),
    ) {
        let text = fork();
        let sound = Digest::build(text).to_bytes(text);
        let mut bytes = sound.clone();
        for (at, x) in flips {
            let at = HEADER + at % (bytes.len() - HEADER);
            bytes[at] ^= x;
        }
        if let Some(cut) = cut {
            bytes.truncate(HEADER + cut % (bytes.len() - HEADER));
        }
        let whole = crate::pin::search::search(text, &Digest::build(text), "agent skills git", 5);
        if let Some(d) = Digest::from_bytes(resealed(bytes), text) {
            for term in ["agent", "skill", "git", "lib", "zzz"] {
                let _ = d.postings(term);
            }
            // A damaged list is found out and the text read again; a digest that reads as
            // sound but lies can change scores, never panic.
            let found = crate::pin::search::search(text, &d, "agent skills git", 5);
            proptest::prop_assert!(found.len() <= 5);
            if d == Digest::build(text) {
                proptest::prop_assert_eq!(found, whole);
            }
        }
    }
}

#[test]
fn an_entry_asked_for_where_none_starts_is_none() {
    let s = *Digest::build(PIN).entry(0).unwrap();
    assert!(PinView::entry_at(PIN, s.start, s.line).is_some());
    for (start, line) in [
        (s.start + 1, s.line),
        (0, s.line),
        (PIN.len(), 1),
        (s.start, 0),
    ] {
        assert_eq!(PinView::entry_at(PIN, start, line), None, "{start} {line}");
    }
    let far = PinView::entry_at(PIN, s.start, usize::MAX);
    assert_eq!(far, None, "line numbers past usize::MAX");
}
