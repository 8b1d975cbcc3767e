//! Tests of the cache format: round trips, lazy reads, damage.

use super::*;
use crate::code::facts::facts;

fn build(files: &[(&str, &str)]) -> Index {
    let mut b = Builder::new(&Index::default());
    for (path, text) in files {
        let f = facts(path, text.as_bytes());
        let d = b.digest(&f);
        b.add(path.to_string(), text.len() as u64, (1, 2), f.lens, d);
    }
    b.finish(None, 7)
}

fn term(index: &Index, t: &str) -> Vec<(usize, [u8; NF])> {
    index.term_ids(&[t])[0].map_or_else(Vec::new, |id| index.postings(id))
}

#[test]
fn round_trip_through_a_file_reads_lists_and_details_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(&[
        ("src/a.rs", "/// Render tables as rows.\nfn render_table() {}\n"),
        ("src/b.rs", "fn other() { render_table() }\n"),
    ]);
    save(dir.path(), &index).unwrap();
    let back = load(dir.path()).unwrap();
    assert!(matches!(back.body, Body::File { .. }));
    assert_eq!(back.files(), index.files());
    assert_eq!(back.built_at(), 7);
    let hits = term(&back, "render");
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1]);
    assert!(hits[0].1[crate::code::facts::NAMES] > 0);
    assert_eq!(hits[1].1[crate::code::facts::NAMES], 0);
    assert!(term(&back, "absent").is_empty());
    let d = back.details(0);
    assert_eq!(d.summary, "Render tables as rows.");
    let sym: Vec<Symbol> = d.symbols().collect();
    assert_eq!(sym[0].name, "render_table");
    assert_eq!(back.details(1), index.details(1));
    assert_eq!(back.details(9), Details::default());
    assert_eq!(back.file("src/b.rs"), Some(1));
}

#[test]
fn kept_files_keep_their_terms_and_details() {
    let old = build(&[("a.rs", "fn alpha() {}\n"), ("b.rs", "fn beta() {}\n")]);
    let old = decode(&encode(&old)).unwrap();
    let kept = Builder::kept_terms(&old);
    let mut b = Builder::new(&old);
    b.keep(&old, 0, kept[0].clone());
    let f = facts("c.rs", b"fn gamma() { alpha() }\n");
    let d = b.digest(&f);
    b.add("c.rs".into(), 1, (1, 1), f.lens, d);
    let new = b.finish(None, 8);
    let paths: Vec<&str> = new.files().iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.rs", "c.rs"]);
    assert_eq!(
        term(&new, "alpha").iter().map(|h| h.0).collect::<Vec<_>>(),
        [0, 1]
    );
    assert!(term(&new, "beta").is_empty());
    assert_eq!(new.details(0), old.details(0));
}

#[test]
fn large_counts_and_many_terms_survive() {
    let big = Facts {
        terms: [
            ("a".to_string(), [0, 0, 0, 255]),
            ("b".to_string(), [1, 2, 3, 4]),
        ]
        .into_iter()
        .collect(),
        ..Facts::default()
    };
    let mut b = Builder::new(&Index::default());
    for i in 0..300 {
        let d = b.digest(&big);
        b.add(format!("f{i:03}.rs"), 1, (1, 1), big.lens, d);
    }
    let index = b.finish(None, 0);
    let a = term(&index, "a");
    assert_eq!(a.len(), 300);
    assert_eq!(a[299], (299, [0, 0, 0, 255]));
    assert_eq!(term(&index, "b")[150], (150, [1, 2, 3, 4]));
}

#[test]
fn damage_is_none_or_empty_never_a_panic() {
    let index = build(&[("src/a.rs", "fn render_table() {}\n")]);
    let bytes = encode(&index);
    assert!(decode(&bytes).is_some());
    assert!(decode(b"").is_none());
    assert!(decode(&bytes[..bytes.len() / 2]).is_none());
    let mut other = bytes.clone();
    other[8] ^= 1; // another version
    assert!(decode(&other).is_none());
    let mut junk = bytes.clone();
    for b in junk.iter_mut().skip(PREAMBLE as usize) {
        *b = 0xff;
    }
    assert!(decode(&junk).is_none());
    // A damaged body: lists and details read as whatever decodes, within bounds.
    let head_len = preamble(bytes.first_chunk().unwrap()).unwrap() as usize;
    for cut in [0xff, 0x80, 0x00] {
        let mut body_junk = bytes.clone();
        for b in body_junk.iter_mut().skip(PREAMBLE as usize + head_len) {
            *b = cut;
        }
        let d = decode(&body_junk).unwrap();
        for id in 0..d.head.lists.len() {
            for (file, _) in d.postings(id as u32) {
                assert!(file < d.files().len());
            }
        }
        let _ = d.details(0);
    }
    // Every truncation of a saved file loads as None or reads safely.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CACHE_PATH);
    for len in [0, 5, 12, 20, bytes.len() - 1] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes[..len]).unwrap();
        if let Some(i) = load(dir.path()) {
            let _ = term(&i, "render");
            let _ = i.details(0);
        }
    }
}
