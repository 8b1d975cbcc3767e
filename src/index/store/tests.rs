//! Tests of the index on disk: a segment's round trips, lazy reads and damage; a delta over a
//! base.

use super::segment::{CHECK, Head, PREAMBLE, decode, decode_list, encode, preamble};
use super::*;
use crate::index::facts::{Lexicon, Symbol, facts};

/// Read `text` as the file at `path` with `words` (one of `b`'s lexicons) and add it.
fn add_text(b: &mut Builder, words: &mut Lexicon, path: &str, text: &str) {
    let p = b.admit(build::prepare(facts(path, text.as_bytes(), words), words));
    b.add(path.into(), 1, (1, 1), p);
}

fn term(index: &Index, t: &str) -> Vec<(usize, [u8; NF])> {
    index.postings(t).unwrap()
}

fn two_files() -> Index {
    from_texts(&[
        (
            "src/a.rs",
            "/// Render tables as rows.\nfn render_table() {}\n",
        ),
        ("src/b.rs", "fn other() { render_table() }\n"),
    ])
}

/// The bytes of `index`'s base.
fn base_bytes(index: &Index) -> Vec<u8> {
    encode(&index.base).unwrap().0
}

/// Where the body starts in `bytes` (a whole segment file).
fn body_at(bytes: &[u8]) -> usize {
    let (head_len, _, _) = preamble(bytes.first_chunk().unwrap()).unwrap();
    PREAMBLE + head_len as usize
}

/// A project folder whose base file holds `bytes`.
fn saved_as(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CACHE_PATH);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    dir
}

/// Every posting list and every file's details of `index`'s base, or the first damage found.
fn read_all(index: &Index) -> Result<(), Damaged> {
    for id in 0..index.base.n_terms() {
        index.base.postings(id as u32)?;
    }
    for (fi, _) in index.files() {
        index.details(fi)?;
    }
    Ok(())
}

#[test]
fn round_trip_through_a_file_reads_lists_and_details_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = two_files();
    save(dir.path(), &mut index).unwrap();
    let back = load(dir.path()).unwrap();
    assert!(matches!(back.base.body, segment::Body::File { .. }));
    let recs = |ix: &Index| ix.files().map(|(_, f)| f.clone()).collect::<Vec<_>>();
    assert_eq!(recs(&back), recs(&index));
    assert_eq!(back.built_at(), 7);
    let hits = term(&back, "render");
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1]);
    assert!(hits[0].1[crate::index::facts::NAMES] > 0);
    assert_eq!(hits[1].1[crate::index::facts::NAMES], 0);
    assert!(term(&back, "absent").is_empty());
    assert!(term(&back, "").is_empty());
    let d = back.details(0).unwrap();
    assert_eq!(d.summary, "Render tables as rows.");
    let sym: Vec<Symbol> = d.symbols().collect();
    assert_eq!(sym[0].name, "render_table");
    assert_eq!(back.details(1), index.details(1));
    assert_eq!(back.file("src/b.rs"), Some(1));
    assert_eq!(base_bytes(&back), base_bytes(&index));
}

#[test]
fn the_dictionary_is_sorted_and_found_by_search() {
    let index = from_texts(&[("z.rs", "fn zeta() { alpha(); mid() }\n")]);
    let n = index.base.n_terms();
    let terms: Vec<&[u8]> = (0..n).map(|i| index.base.term(i)).collect();
    assert!(terms.windows(2).all(|w| w[0] < w[1]), "{terms:?}");
    for (i, t) in terms.iter().enumerate() {
        let t = std::str::from_utf8(t).unwrap();
        assert_eq!(index.base.term_id(t), Some(i as u32));
    }
    assert_eq!(index.base.term_id("aaa"), None);
    assert_eq!(index.base.term_id("zzzz"), None);
}

#[test]
fn kept_files_keep_their_terms_and_details_and_gone_terms_leave_the_dictionary() {
    let old = from_texts(&[("a.rs", "fn alpha() {}\n"), ("b.rs", "fn beta() {}\n")]);
    let mut b = Builder::for_base(&old);
    let mut kept = old.kept(&[Some(0), None], &mut b).unwrap();
    assert!(kept[1].is_none());
    b.keep(kept[0].take().unwrap());
    let mut words = b.lexicon();
    add_text(&mut b, &mut words, "c.rs", "fn gamma() { alpha() }\n");
    let new = b.finish_base(State::default());
    let paths: Vec<&str> = new.files().map(|(_, f)| f.path.as_str()).collect();
    assert_eq!(paths, ["a.rs", "c.rs"]);
    assert_eq!(
        term(&new, "alpha").iter().map(|h| h.0).collect::<Vec<_>>(),
        [0, 1]
    );
    assert_eq!(
        term(&new, "gamma").iter().map(|h| h.0).collect::<Vec<_>>(),
        [1]
    );
    assert!(term(&new, "beta").is_empty());
    assert_eq!(new.base.term_id("beta"), None);
    assert_eq!(new.details(0), old.details(0));
    read_all(&new).unwrap();
}

#[test]
fn large_counts_and_many_terms_survive() {
    // `beta`: once in the path, once a name, three times in comments, four in all the text.
    let text = format!(
        "// beta beta beta\nfn beta() {{}}\n{}",
        "alpha ".repeat(300)
    );
    let mut b = Builder::new();
    let mut words = b.lexicon();
    for i in 0..300 {
        // `rare` in files 0 and 200: a distance that takes two bytes.
        let rare = if i % 200 == 0 { "rare\n" } else { "" };
        add_text(
            &mut b,
            &mut words,
            &format!("f{i:03}/beta.rs"),
            &(text.clone() + rare),
        );
    }
    let index = b.finish_base(State::default());
    let a = term(&index, "alpha");
    assert_eq!(a.len(), 300);
    assert_eq!(a[299], (299, [0, 0, 0, 255]));
    assert_eq!(term(&index, "beta")[150], (150, [1, 1, 3, 4]));
    assert_eq!(
        term(&index, "rare"),
        [(0, [0, 0, 0, 1]), (200, [0, 0, 0, 1])]
    );
}

#[test]
fn what_is_not_a_segment_of_this_version_is_none() {
    let bytes = base_bytes(&two_files());
    assert!(decode(&bytes).is_some());
    assert!(decode(b"").is_none());
    let mut other = bytes.clone();
    other[8] ^= 1; // another version
    assert!(decode(&other).is_none());
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert!(decode(&magic).is_none());
    for bytes in [other, magic] {
        assert!(load(saved_as(&bytes).path()).is_none());
    }
    assert!(load(tempfile::tempdir().unwrap().path()).is_none());
}

#[test]
fn a_truncated_or_grown_segment_is_none() {
    let bytes = base_bytes(&two_files());
    let body = body_at(&bytes);
    // Cut in the preamble, in the head, at the body's start, inside it, one byte short.
    for len in [
        0,
        5,
        12,
        20,
        PREAMBLE,
        body - 1,
        body,
        body + 1,
        bytes.len() - 1,
    ] {
        assert!(decode(&bytes[..len]).is_none(), "cut at {len}");
        assert!(
            load(saved_as(&bytes[..len]).path()).is_none(),
            "cut at {len}"
        );
    }
    let mut grown = bytes.clone();
    grown.push(0);
    assert!(decode(&grown).is_none());
    assert!(load(saved_as(&grown).path()).is_none());
    assert!(load(saved_as(&bytes).path()).is_some());
}

#[test]
fn a_corrupted_head_is_none() {
    let bytes = base_bytes(&two_files());
    let body = body_at(&bytes);
    // Any byte of the head or of its length, length or check in the preamble.
    for at in (12..body).step_by(3) {
        for flip in [0x01, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            assert!(decode(&bad).is_none(), "byte {at} ^ {flip:#x}");
            assert!(
                load(saved_as(&bad).path()).is_none(),
                "byte {at} ^ {flip:#x}"
            );
        }
    }
}

#[test]
fn a_head_that_checks_but_is_inconsistent_is_none() {
    let bad = |f: &dyn Fn(&mut Index)| {
        let mut index = two_files();
        f(&mut index);
        decode(&base_bytes(&index)).is_none()
    };
    assert!(bad(&|ix| ix.base.head.files[1].details.at = 1 << 40));
    assert!(bad(&|ix| {
        let ends = &mut ix.base.head.list_ends;
        ends.truncate(ends.len() - 8);
    }));
    assert!(bad(&|ix| ix.base.head.files.swap(0, 1)));
    assert!(bad(&|ix| {
        // A term before the first that sorts after it.
        let h = &mut ix.base.head;
        h.terms.splice(0..0, *b"zzzz");
        let ends: Vec<u8> = h
            .ends
            .chunks(4)
            .flat_map(|c| (u32::from_le_bytes(c.try_into().unwrap()) + 4).to_le_bytes())
            .collect();
        h.ends = 4u32.to_le_bytes().into_iter().chain(ends).collect();
        h.list_ends.splice(0..0, h.list_ends[..8].to_vec());
    }));
    assert!(bad(&|ix| {
        ix.base.head.ends.push(0);
    }));
    assert!(!bad(&|_| {}));
}

#[test]
fn posting_lists_that_overlap_or_leave_the_body_make_the_head_unusable() {
    let bad = |f: &dyn Fn(&mut Head)| {
        let mut index = two_files();
        f(&mut index.base.head);
        decode(&base_bytes(&index)).is_none()
    };
    let set_end = |h: &mut Head, i: usize, end: u64| {
        h.list_ends[8 * i..8 * i + 8].copy_from_slice(&end.to_le_bytes());
    };
    let end =
        |h: &Head, i: usize| u64::from_le_bytes(h.list_ends[8 * i..8 * i + 8].try_into().unwrap());
    // The lists end where the body does: one byte further leaves it.
    assert!(bad(&|h| h.lists_at += 1));
    assert!(bad(&|h| {
        let last = h.list_ends.len() / 8 - 1;
        set_end(h, last, end(h, last) + 1);
    }));
    // A list shorter than its check, and one that ends before the one before it.
    assert!(bad(&|h| set_end(h, 0, CHECK as u64 - 1)));
    assert!(bad(&|h| {
        let second = end(h, 1);
        set_end(h, 1, end(h, 0));
        set_end(h, 0, second);
    }));
    assert!(bad(&|h| h.list_ends.push(0)));
    assert!(!bad(&|_| {}));
}

#[test]
fn a_damaged_body_reads_as_damaged_never_as_other_data() {
    let bytes = base_bytes(&two_files());
    let body = body_at(&bytes);
    for at in body..bytes.len() {
        for flip in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            let dir = saved_as(&bad);
            let from_file = load(dir.path()).unwrap();
            assert!(read_all(&from_file).is_err(), "byte {at} ^ {flip:#x}");
            let mut b = Builder::for_base(&from_file);
            assert!(from_file.kept(&[Some(0), Some(1)], &mut b).is_err());
        }
    }
}

#[test]
fn a_segment_cut_after_it_was_loaded_reads_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    save(dir.path(), &mut two_files()).unwrap();
    let index = load(dir.path()).unwrap();
    let path = dir.path().join(CACHE_PATH);
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len - 8)
        .unwrap();
    assert!(read_all(&index).is_err());
    assert!(encode(&index.base).is_err());
    assert!(load(dir.path()).is_none());
}

#[test]
fn lists_that_do_not_decode_are_damaged() {
    let n = 3;
    assert_eq!(decode_list(&[], n), Ok(Vec::new()));
    assert_eq!(
        decode_list(&[0, 0b1, 2, 2, 0b1000, 9], n),
        Ok(vec![(0, [2, 0, 0, 0]), (2, [0, 0, 0, 9])])
    );
    for bad in [
        &[0x80][..],                           // a number cut short
        &[0],                                  // no mask
        &[0, 0b1],                             // no count
        &[0, 0b1_0000, 1],                     // a field that does not exist
        &[3, 0b1, 1],                          // past the last file
        &[0, 0b1, 1, 0, 0b1, 1],               // the same file twice
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], // a number too long
    ] {
        assert!(decode_list(bad, n).is_err(), "{bad:?}");
    }
}

/// A base of a, b, c saved in a fresh folder, and a delta over it that changes b, drops c and
/// adds d.
fn base_and_delta() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let mut base = from_texts(&[
        ("a.rs", "fn alpha() {}\n"),
        ("b.rs", "fn beta() { alpha() }\n"),
        ("c.rs", "fn gamma() {}\n"),
    ]);
    save(dir.path(), &mut base).unwrap();
    let old = load(dir.path()).unwrap();
    let mut b = Builder::for_delta(&old);
    let mut words = b.lexicon();
    for (path, text) in [
        ("b.rs", "fn beta() { delta_word() }\n"),
        ("d.rs", "fn delta_word() {}\n"),
    ] {
        add_text(&mut b, &mut words, path, text);
    }
    let state = State {
        built_at: 9,
        ..State::default()
    };
    let index = b.finish_delta(old, vec![1, 2], vec![], state);
    (dir, index)
}

#[test]
fn a_delta_replaces_and_drops_base_files_and_adds_its_own() {
    let (dir, mut index) = base_and_delta();
    let check = |ix: &Index| {
        let paths: Vec<&str> = ix.files().map(|(_, f)| f.path.as_str()).collect();
        assert_eq!(paths, ["a.rs", "b.rs", "d.rs"]);
        assert_eq!(ix.len(), 3);
        assert_eq!(ix.slots(), 5);
        let b = ix.file("b.rs").unwrap();
        assert_eq!(b, 3, "the delta's b.rs, not the base's");
        assert_eq!(ix.file("c.rs"), None);
        assert!(term(ix, "gamma").is_empty());
        let files = |t: &str| term(ix, t).into_iter().map(|h| h.0).collect::<Vec<_>>();
        assert_eq!(files("alpha"), [0], "the old b.rs is dead");
        assert_eq!(files("delta"), [3, 4]);
        assert_eq!(files("beta"), [3]);
        assert_eq!(ix.built_at(), 9);
        let d = ix.details(4).unwrap();
        assert_eq!(d.symbols().next().unwrap().name, "delta_word");
        let lens: u64 = ix.files().map(|(_, f)| u64::from(f.lens[3])).sum();
        assert_eq!(ix.averages()[3], (lens as f64 / 3.0).max(1.0));
    };
    check(&index);
    save(dir.path(), &mut index).unwrap();
    assert!(dir.path().join(DELTA_PATH).is_file());
    let back = load(dir.path()).unwrap();
    check(&back);
}

#[test]
fn files_under_a_prefix_are_the_live_files_starting_with_it_in_path_order() {
    let (_dir, index) = base_and_delta();
    for prefix in ["", "a", "b", "b.rs", "c", "d.rs", "e", "b.rs/"] {
        let all: Vec<(usize, &str)> = index
            .files()
            .filter(|(_, f)| f.path.starts_with(prefix))
            .map(|(i, f)| (i, f.path.as_str()))
            .collect();
        let under: Vec<(usize, &str)> = index
            .files_under(prefix)
            .map(|(i, f)| (i, f.path.as_str()))
            .collect();
        assert_eq!(under, all, "{prefix:?}");
    }
    let b: Vec<usize> = index.files_under("b").map(|(i, _)| i).collect();
    assert_eq!(b, [3], "the delta's b.rs, not the dead one of the base");
}

#[test]
fn a_delta_over_another_base_is_not_used_and_a_new_base_drops_it() {
    let (dir, mut index) = base_and_delta();
    save(dir.path(), &mut index).unwrap();
    // Another base in place of the one the delta was made over.
    let mut other = from_texts(&[("x.rs", "fn x() {}\n")]);
    let (bytes, _) = encode(&other.base).unwrap();
    std::fs::write(dir.path().join(CACHE_PATH), bytes).unwrap();
    let back = load(dir.path()).unwrap();
    assert_eq!(back.files().count(), 1);
    assert_eq!(back.delta_files(), 0);
    // Saving a new base removes the delta.
    save(dir.path(), &mut other).unwrap();
    assert!(!dir.path().join(DELTA_PATH).exists());
}

#[test]
fn a_merged_base_keeps_base_and_delta_files() {
    let (_dir, old) = base_and_delta();
    let mut b = Builder::for_base(&old);
    let wanted: Vec<Option<usize>> = old.files().map(|(i, _)| Some(i)).collect();
    let kept = old.kept(&wanted, &mut b).unwrap();
    for k in kept.into_iter().flatten() {
        b.keep(k);
    }
    let new = b.finish_base(State::default());
    let paths: Vec<&str> = new.files().map(|(_, f)| f.path.as_str()).collect();
    assert_eq!(paths, ["a.rs", "b.rs", "d.rs"]);
    let files = |t: &str| term(&new, t).into_iter().map(|h| h.0).collect::<Vec<_>>();
    assert_eq!(files("delta"), [1, 2]);
    assert_eq!(files("alpha"), [0]);
    assert!(files("gamma").is_empty());
}

#[test]
fn details_keep_each_field_on_its_own_line_and_column() {
    let f = crate::index::facts::Facts {
        defs: "fn\t7\tparse\t\nconst\t1234\tLIMIT\te\n".to_string(),
        summary: "Reads\tthe config.".to_string(),
        imports: vec!["std::io".to_string(), "odd\nname".to_string()],
        ..Default::default()
    };
    let d = Details::of(f.clone());
    assert_eq!(d.symbols, f.defs);
    for n in [0, 1, 127, 128, 16_383, 16_384, 300_000] {
        let long = Details {
            module_doc: "x".repeat(n),
            ..d.clone()
        };
        let bytes = postcard::to_stdvec(&long).unwrap();
        assert_eq!(long.encoded_len(), bytes.len(), "{n}");
    }
    assert_eq!(d.summary, "Reads the config.");
    assert_eq!(d.imports, "std::io\nodd name");
    assert_eq!(d.links, "");
    let back: Vec<Symbol> = d.symbols().collect();
    assert_eq!(
        back[1],
        Symbol {
            kind: "const".to_string(),
            name: "LIMIT".to_string(),
            line: 1234,
            sig: String::new(),
        }
    );
    let exported: Vec<bool> = d.symbol_refs().map(|s| s.exported).collect();
    assert_eq!(exported, [false, true]);
}
