//! Tests of the cache format: round trips, lazy reads, damage.

use super::*;
use crate::index::facts::facts;

fn term(index: &Index, t: &str) -> Vec<(usize, [u8; NF])> {
    index.term_ids(&[t])[0].map_or_else(Vec::new, |id| index.postings(id).unwrap())
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

/// Where the body starts in `bytes` (a whole cache file).
fn body_at(bytes: &[u8]) -> usize {
    let (head_len, _, _) = preamble(bytes.first_chunk().unwrap()).unwrap();
    PREAMBLE + head_len as usize
}

/// The cache file under a fresh project folder holding `bytes`.
fn saved_as(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CACHE_PATH);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    dir
}

/// Every posting list and every file's details of `index`, or the first damage found.
fn read_all(index: &Index) -> Result<(), Damaged> {
    for id in 0..index.head.lists.len() {
        index.postings(id as u32)?;
    }
    for file in 0..index.files().len() {
        index.details(file)?;
    }
    Ok(())
}

#[test]
fn round_trip_through_a_file_reads_lists_and_details_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let index = two_files();
    save(dir.path(), &index).unwrap();
    let back = load(dir.path()).unwrap();
    assert!(matches!(back.body, Body::File { .. }));
    assert_eq!(back.files(), index.files());
    assert_eq!(back.built_at(), 7);
    let hits = term(&back, "render");
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1]);
    assert!(hits[0].1[crate::index::facts::NAMES] > 0);
    assert_eq!(hits[1].1[crate::index::facts::NAMES], 0);
    assert!(term(&back, "absent").is_empty());
    assert_eq!(back.postings(u32::MAX), Ok(Vec::new()));
    let d = back.details(0).unwrap();
    assert_eq!(d.summary, "Render tables as rows.");
    let sym: Vec<Symbol> = d.symbols().collect();
    assert_eq!(sym[0].name, "render_table");
    assert_eq!(back.details(1), index.details(1));
    assert_eq!(back.details(9), Ok(Details::default()));
    assert_eq!(back.file("src/b.rs"), Some(1));
    assert_eq!(encode(&back).unwrap(), encode(&index).unwrap());
}

#[test]
fn kept_files_keep_their_terms_and_details_and_gone_terms_leave_the_dictionary() {
    let old = from_texts(&[("a.rs", "fn alpha() {}\n"), ("b.rs", "fn beta() {}\n")]);
    let old = decode(&encode(&old).unwrap()).unwrap();
    let mut kept = Builder::kept(&old, &[Some(0), None]).unwrap();
    assert!(kept[1].is_none());
    let mut b = Builder::new(&old);
    b.keep(kept[0].take().unwrap());
    let f = facts("c.rs", b"fn gamma() { alpha() }\n");
    let p = b.prepare(&f);
    b.add("c.rs".into(), 1, (1, 1), p);
    let new = b.finish(None, 8);
    let paths: Vec<&str> = new.files().iter().map(|f| f.path.as_str()).collect();
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
    assert!(
        !new.head.dict.lines().any(|t| t == "beta"),
        "{}",
        new.head.dict
    );
    assert_eq!(new.head.lists.len(), new.head.dict.lines().count());
    assert_eq!(new.details(0), old.details(0));
    read_all(&new).unwrap();
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
        let p = b.prepare(&big);
        b.add(format!("f{i:03}.rs"), 1, (1, 1), p);
    }
    let index = b.finish(None, 0);
    let a = term(&index, "a");
    assert_eq!(a.len(), 300);
    assert_eq!(a[299], (299, [0, 0, 0, 255]));
    assert_eq!(term(&index, "b")[150], (150, [1, 2, 3, 4]));
}

#[test]
fn what_is_not_a_cache_of_this_version_is_none() {
    let bytes = encode(&two_files()).unwrap();
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
fn a_truncated_or_grown_cache_is_none() {
    let bytes = encode(&two_files()).unwrap();
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
    let bytes = encode(&two_files()).unwrap();
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
fn a_head_that_checks_but_points_outside_the_body_is_none() {
    let mut index = two_files();
    index.head.files[1].details.at = 1 << 40;
    let bytes = encode(&index).unwrap();
    assert!(decode(&bytes).is_none());
    assert!(load(saved_as(&bytes).path()).is_none());
    let mut index = two_files();
    index.head.lists.pop();
    assert!(decode(&encode(&index).unwrap()).is_none());
    let mut index = two_files();
    index.head.files.swap(0, 1);
    assert!(decode(&encode(&index).unwrap()).is_none());
}

#[test]
fn a_damaged_body_reads_as_damaged_never_as_other_data() {
    let bytes = encode(&two_files()).unwrap();
    let body = body_at(&bytes);
    for at in body..bytes.len() {
        for flip in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            let from_mem = decode(&bad).unwrap();
            assert!(read_all(&from_mem).is_err(), "byte {at} ^ {flip:#x}");
            let dir = saved_as(&bad);
            let from_file = load(dir.path()).unwrap();
            assert!(read_all(&from_file).is_err(), "byte {at} ^ {flip:#x}");
            assert!(Builder::kept(&from_file, &[Some(0), Some(1)]).is_err());
        }
    }
}

#[test]
fn a_cache_cut_after_it_was_loaded_reads_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    save(dir.path(), &two_files()).unwrap();
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
    assert!(encode(&index).is_err());
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
