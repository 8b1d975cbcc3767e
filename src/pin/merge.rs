//! Merging generated entries into an existing Pin without losing anything a person wrote.
//!
//! Owns the policy: an existing entry keeps every keyword, spec and note and only gains
//! generated keywords (up to [`MAX_KEYWORDS`] in all) and files it does not already cover, and
//! the generated `**Kind**:` when it has none and was matched by name; it keeps every file
//! too, except the files of a module split since the Pin was written (see
//! [`give_up_split_files`]): those are listed once, by the entry of the part they are now in.
//! Entries nobody generated are never removed; an entry whose files all vanished is flagged
//! stale, not deleted. Pure: whether a path exists is asked through a closure. Does not own
//! discovery, keywords or writing.

use std::collections::VecDeque;

use super::cover::{self, Cover, is_glob};
use super::format::{Entry, Pin};
use super::keywords::MAX_KEYWORDS;
use crate::index::text::{FastMap as HashMap, FastSet};

/// A generated entry: its name, keywords, the items it lists and every file it covers.
#[derive(Debug, Clone)]
pub(crate) struct Generated {
    pub name: String,
    pub keywords: Vec<String>,
    pub items: Vec<String>,
    pub files: Vec<String>,
    /// `tests`, `examples`, `fixtures`, `benchmarks` (see [`Entry::kind`]).
    pub kind: Option<String>,
    /// The module it was split from (see [`super::discover::Unit::family`]).
    pub family: String,
}

/// What a merge changed, by entry name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub stale: Vec<String>,
    /// `(entry, path)`: paths that match nothing any more, taken out of an entry that still
    /// lists living files (an entry whose files all vanished keeps them and is flagged stale).
    pub dropped: Vec<(String, String)>,
}

/// The share of `g`'s files that `e` already lists, against the larger of the two lists.
fn overlap(e: &Entry, g: &Generated) -> f64 {
    if e.files.is_empty() || g.files.is_empty() {
        return 0.0;
    }
    let listed = cover::of(&e.files);
    let hit = g.files.iter().filter(|f| listed.contains(f)).count();
    hit as f64 / g.files.len().max(e.files.len()) as f64
}

/// A Pin written before a module was split lists the files of all its parts under the entry
/// the module had (`app: src` with `src/*.rs`), and the parts come as new entries listing them
/// again. Each generated file belongs to one generated entry and so to one Pin entry (the one
/// that entry merges into, or the new one); an existing entry of the module's family (merged
/// with one of its parts, or unmerged and called as the module was or listing at least half of
/// its files) gives up the files whose part merges elsewhere: a path is dropped, a glob or
/// folder is replaced by the files it still stands for. Files of other modules a person listed
/// stay. Returns, per existing entry, whether it changed.
fn give_up_split_files(
    pin: &mut Pin,
    generated: &[Generated],
    target: &[Option<usize>],
) -> Vec<bool> {
    let n_old = pin.entries().len();
    let mut changed = vec![false; n_old];
    // The members of each family that was split (a family of one has nothing to move).
    let families = split_families(generated);
    if families.is_empty() {
        return changed;
    }
    let owner: HashMap<&str, usize> = generated
        .iter()
        .enumerate()
        .flat_map(|(gi, g)| g.files.iter().map(move |f| (f.as_str(), gi)))
        .collect();
    let merging = merging_families(n_old, generated, target);
    for (ei, changed_here) in changed.iter_mut().enumerate() {
        let e = &pin.entries()[ei];
        let mine = entry_families(e, &merging[ei], &families, generated);
        // Files of those families whose entries are elsewhere.
        let elsewhere: FastSet<&str> = mine
            .iter()
            .filter_map(|f| families.get(&f.to_lowercase()))
            .flatten()
            .filter(|&&gi| target[gi] != Some(ei))
            .flat_map(|&gi| generated[gi].files.iter().map(String::as_str))
            .collect();
        if elsewhere.is_empty() {
            continue;
        }
        let files = files_left(&e.files, &elsewhere, &owner);
        let e = &mut pin.entries_mut()[ei];
        if files != e.files {
            e.files = files;
            *changed_here = true;
        }
    }
    changed
}

/// Per entry of the Pin (`n_old` of them), the families of the generated entries merging into
/// it: one pass over `target`, not one per entry (a Pin of ten thousand entries made that a
/// hundred million steps).
fn merging_families<'g>(
    n_old: usize,
    generated: &'g [Generated],
    target: &[Option<usize>],
) -> Vec<Vec<&'g str>> {
    let mut merging: Vec<Vec<&str>> = vec![Vec::new(); n_old];
    for (t, g) in target.iter().zip(generated) {
        if let Some(m) = t.and_then(|ei| merging.get_mut(ei)) {
            m.push(g.family.as_str());
        }
    }
    merging
}

/// The families whose files entry `e` holds: `merging`, those of the generated entries merging
/// into it ([`merging_families`]), or else the split families it was the entry of (see
/// [`is_family_entry`]).
fn entry_families<'g>(
    e: &Entry,
    merging: &[&'g str],
    families: &HashMap<String, Vec<usize>>,
    generated: &'g [Generated],
) -> Vec<&'g str> {
    if !merging.is_empty() {
        return merging.to_vec();
    }
    families
        .iter()
        .filter(|(f, members)| is_family_entry(e, f, members, generated))
        .map(|(_, m)| generated[m[0]].family.as_str())
        .collect()
}

/// An entry's `items` without the files listed `elsewhere`: a path is dropped, a glob or folder
/// is replaced by the generated files (keys of `owner`) it still stands for.
fn files_left(
    items: &[String],
    elsewhere: &FastSet<&str>,
    owner: &HashMap<&str, usize>,
) -> Vec<String> {
    let mut files: Vec<String> = Vec::with_capacity(items.len());
    for it in items {
        let one = Cover::new([it.as_str()]);
        if !elsewhere.iter().any(|f| one.contains(f)) {
            if !files.contains(it) {
                files.push(it.clone());
            }
            continue;
        }
        // What the item still stands for: the generated files it covers that stay.
        let mut kept: Vec<&str> = owner
            .keys()
            .copied()
            .filter(|f| !elsewhere.contains(f) && one.contains(f))
            .collect();
        kept.sort_unstable();
        for f in kept {
            if !files.iter().any(|x| x == f) {
                files.push(f.to_string());
            }
        }
    }
    files
}

/// Whether `e` is the entry a Pin written before the split gave the module `family` (lowered)
/// whose parts are `members`: named as the module, or listing at least half of its files.
fn is_family_entry(e: &Entry, family: &str, members: &[usize], generated: &[Generated]) -> bool {
    if e.name.trim().to_lowercase() == family {
        return true;
    }
    let all = members.iter().flat_map(|&gi| &generated[gi].files);
    let listed = cover::of(&e.files);
    let (n, hit) = all.fold((0, 0), |(n, h), f| {
        (n + 1, h + usize::from(listed.contains(f)))
    });
    hit * 2 >= n && n > 0
}

/// The members of each module that was split into more than one part, by lowered name.
fn split_families(generated: &[Generated]) -> HashMap<String, Vec<usize>> {
    let mut families: HashMap<String, Vec<usize>> = HashMap::default();
    for (gi, g) in generated.iter().enumerate() {
        families
            .entry(g.family.to_lowercase())
            .or_default()
            .push(gi);
    }
    families.retain(|_, m| m.len() > 1);
    families
}

/// Merge `generated` into `pin`. `exists(item)` says whether a path or glob matches anything.
pub(crate) fn merge(
    pin: &mut Pin,
    generated: Vec<Generated>,
    exists: impl Fn(&str) -> bool,
) -> Summary {
    let mut summary = Summary::default();
    let mut taken = vec![false; pin.entries().len()];
    let (mut target, by_same_name) = match_by_name(pin, &generated, &mut taken);
    match_by_files(pin, &generated, &mut taken, &mut target);
    let mut changed = give_up_split_files(pin, &generated, &target);
    let mut family_at = family_positions(pin, &generated, &target);
    for ((g, t), same_name) in generated.into_iter().zip(target).zip(by_same_name) {
        match t {
            Some(ei) => {
                let e = &mut pin.entries_mut()[ei];
                let was_changed = std::mem::take(&mut changed[ei]);
                if update_entry(e, &g, same_name) || was_changed {
                    summary.updated.push(e.name.clone());
                }
            }
            None => add_entry(pin, g, &mut family_at, &mut summary),
        }
    }
    for (ei, c) in changed.into_iter().enumerate() {
        if c {
            summary.updated.push(pin.entries()[ei].name.clone());
        }
    }
    flag_vanished(pin, exists, &mut summary);
    summary
}

/// Match by name: each generated entry takes the first untaken entry of its name, case and
/// surrounding blanks ignored (the names are lowered once, not once per pair). Returns each
/// generated entry's target and whether it was found by name.
fn match_by_name(
    pin: &Pin,
    generated: &[Generated],
    taken: &mut [bool],
) -> (Vec<Option<usize>>, Vec<bool>) {
    let mut target: Vec<Option<usize>> = vec![None; generated.len()];
    let mut by_same_name = vec![false; generated.len()];
    let mut by_name: HashMap<String, VecDeque<usize>> = HashMap::default();
    for (i, e) in pin.entries().iter().enumerate() {
        by_name
            .entry(e.name.trim().to_lowercase())
            .or_default()
            .push_back(i);
    }
    for (gi, g) in generated.iter().enumerate() {
        if let Some(ei) = by_name
            .get_mut(&g.name.trim().to_lowercase())
            .and_then(VecDeque::pop_front)
        {
            taken[ei] = true;
            target[gi] = Some(ei);
            by_same_name[gi] = true;
        }
    }
    (target, by_same_name)
}

/// Match the generated entries left by the files they share with an untaken entry (at least
/// half). A part of a split module is new: it takes an entry by its files only when more than
/// half of both are shared, and never the module's own old entry (which gives the part's
/// files up instead, see [`give_up_split_files`]).
fn match_by_files(
    pin: &Pin,
    generated: &[Generated],
    taken: &mut [bool],
    target: &mut [Option<usize>],
) {
    let families = split_families(generated);
    for (gi, g) in generated.iter().enumerate() {
        if target[gi].is_some() {
            continue;
        }
        let family = g.family.to_lowercase();
        let part = families
            .get(&family)
            .filter(|_| g.name.trim().to_lowercase() != family);
        let mut best: Option<(f64, usize)> = None;
        for ei in (0..taken.len()).filter(|&i| !taken[i]) {
            let e = &pin.entries()[ei];
            if part.is_some_and(|m| is_family_entry(e, &family, m, generated)) {
                continue;
            }
            let o = overlap(e, g);
            let enough = if part.is_some() { o > 0.5 } else { o >= 0.5 };
            if enough && best.is_none_or(|(b, _)| o > b) {
                best = Some((o, ei));
            }
        }
        if let Some((_, ei)) = best {
            taken[ei] = true;
            target[gi] = Some(ei);
        }
    }
}

/// Where each family's entries end, so a new part goes after them, not after the last entry:
/// the last entry a member merges into, else the entry named as the family.
fn family_positions(
    pin: &Pin,
    generated: &[Generated],
    target: &[Option<usize>],
) -> HashMap<String, usize> {
    let mut family_at: HashMap<String, usize> = HashMap::default();
    for (g, t) in generated.iter().zip(target) {
        if let Some(ei) = t {
            family_at.insert(g.family.to_lowercase(), *ei);
        }
    }
    for (ei, e) in pin.entries().iter().enumerate() {
        family_at.entry(e.name.trim().to_lowercase()).or_insert(ei);
    }
    family_at
}

/// Add to existing entry `e` what generated entry `g` knows and it does not: the kind (only an
/// entry of the same name: one found by its files may hold more), the items it does not
/// already cover, keywords up to [`MAX_KEYWORDS`]. Returns whether `e` changed.
fn update_entry(e: &mut Entry, g: &Generated, same_name: bool) -> bool {
    let mut changed = false;
    if same_name && e.kind.is_none() && g.kind.is_some() {
        e.kind.clone_from(&g.kind);
        changed = true;
    }
    // What the entry lists, compiled once; the items added here are asked about apart.
    let listed = cover::of(&e.files);
    let mut added: Vec<String> = Vec::new();
    for it in &g.items {
        let item_files: Vec<&String> = if is_glob(it) {
            let one = Cover::new([it.as_str()]);
            g.files.iter().filter(|f| one.contains(f)).collect()
        } else {
            vec![it]
        };
        let also = cover::of(&added);
        let known = e.files.iter().chain(&added).any(|f| f == it)
            || (!item_files.is_empty()
                && item_files
                    .iter()
                    .all(|f| listed.contains(f) || also.contains(f)));
        if !known {
            added.push(it.clone());
        }
    }
    if !added.is_empty() {
        e.files.extend(added);
        changed = true;
    }
    for k in &g.keywords {
        if e.keywords.len() >= MAX_KEYWORDS {
            break;
        }
        if !e.keywords.iter().any(|x| x.eq_ignore_ascii_case(k)) {
            e.keywords.push(k.clone());
            changed = true;
        }
    }
    changed
}

/// Add generated entry `g` as a new entry, after its family's entries when it has any.
fn add_entry(
    pin: &mut Pin,
    g: Generated,
    family_at: &mut HashMap<String, usize>,
    summary: &mut Summary,
) {
    let mut e = Entry::new(g.name.clone());
    e.keywords = g.keywords;
    e.files = g.items;
    e.kind = g.kind;
    summary.added.push(e.name.clone());
    let family = g.family.to_lowercase();
    match family_at.get(&family) {
        Some(&after) => {
            let at = pin.insert_entry_after(after, e);
            family_at.insert(family, at);
        }
        None => pin.push_entry(e),
    }
}

/// Flag stale the entries whose files all vanished; take the vanished paths out of the others.
fn flag_vanished(pin: &mut Pin, exists: impl Fn(&str) -> bool, summary: &mut Summary) {
    for e in pin.entries_mut() {
        let alive: Vec<bool> = e.files.iter().map(|f| exists(f)).collect();
        let stale = !e.files.is_empty() && !alive.contains(&true);
        e.stale = stale;
        if stale {
            summary.stale.push(e.name.clone());
        } else if alive.contains(&false) {
            let mut alive = alive.into_iter();
            let (keep, gone): (Vec<String>, Vec<String>) = std::mem::take(&mut e.files)
                .into_iter()
                .partition(|_| alive.next().unwrap_or(true));
            e.files = keep;
            for path in gone {
                summary.dropped.push((e.name.clone(), path));
            }
            if !summary.updated.contains(&e.name) {
                summary.updated.push(e.name.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(name: &str, kws: &[&str], items: &[&str], files: &[&str]) -> Generated {
        Generated {
            name: name.into(),
            keywords: kws.iter().map(|s| s.to_string()).collect(),
            items: items.iter().map(|s| s.to_string()).collect(),
            files: files.iter().map(|s| s.to_string()).collect(),
            kind: None,
            family: name.into(),
        }
    }

    const HAND: &str = "# Index\n\nIntro.\n\n### Parser (hand named)\n**Keywords**: lexer, Grammar\n\n\
**File Paths**:\n- src/parse/*.rs\n\n**Spec Link**: specs/parse.md\n\n---\n\n\
### Old thing\n**Keywords**: legacy\n\n**File Paths**:\n- src/old.rs\n\n**Spec Link**: N/A\n\n---\n\n\
### Notes only\n**Keywords**: ideas\n\n**File Paths**:\n\n**Spec Link**: N/A\n\n---\n\n## Footer\n";

    #[test]
    fn keeps_human_work_gains_new_and_flags_vanished() {
        let mut pin = Pin::parse(HAND);
        let gen_ = vec![
            g(
                "p: src/parse",
                &["grammar", "token", "ast"],
                &["src/parse/lex.rs", "src/parse/new.rs", "src/parse/sub/x.rs"],
                &["src/parse/lex.rs", "src/parse/new.rs", "src/parse/sub/x.rs"],
            ),
            g(
                "p: src/graph",
                &["graph"],
                &["src/graph/mod.rs"],
                &["src/graph/mod.rs"],
            ),
        ];
        let s = merge(&mut pin, gen_, |f| f != "src/old.rs");
        assert_eq!(s.added, ["p: src/graph"]);
        assert_eq!(s.updated, ["Parser (hand named)"]);
        assert_eq!(s.stale, ["Old thing"]);
        let e = &pin.entries()[0];
        assert_eq!(e.keywords, ["lexer", "Grammar", "token", "ast"]);
        assert_eq!(e.files, ["src/parse/*.rs", "src/parse/sub/x.rs"]);
        assert_eq!(e.spec.as_deref(), Some("specs/parse.md"));
        assert!(pin.entries()[1].stale);
        assert!(!pin.entries()[2].stale);
        let text = pin.to_markdown();
        assert!(text.contains(
            "### Notes only\n**Keywords**: ideas\n\n**File Paths**:\n\n**Spec Link**: N/A\n\n---\n"
        ));
        assert!(text.ends_with("## Footer\n"));
        let graph_at = text.find("### p: src/graph").unwrap();
        assert!(graph_at < text.find("## Footer").unwrap());
    }

    #[test]
    fn a_vanished_path_leaves_an_entry_that_still_lists_living_files() {
        let mut pin = Pin::parse(
            "### Both\n**Keywords**: kept\n\n**File Paths**:\n- src/a.rs\n- src/gone.rs\n- src/gone*.py\n\n---\n",
        );
        let s = merge(&mut pin, Vec::new(), |f| f == "src/a.rs");
        let e = &pin.entries()[0];
        assert_eq!(e.files, ["src/a.rs"]);
        assert_eq!(e.keywords, ["kept"]);
        assert!(!e.stale);
        assert_eq!(s.updated, ["Both"]);
        assert!(s.stale.is_empty());
        assert_eq!(
            s.dropped,
            [
                ("Both".to_string(), "src/gone.rs".to_string()),
                ("Both".to_string(), "src/gone*.py".to_string())
            ]
        );
    }

    #[test]
    fn names_match_ignoring_case_and_blanks_first_untaken_first() {
        let old = "### Alpha\n**Keywords**: a\n\n**File Paths**:\n- a.rs\n\n**Spec Link**: N/A\n\n---\n\n\
### alpha\n**Keywords**: b\n\n**File Paths**:\n- b.rs\n\n**Spec Link**: N/A\n\n---\n";
        let mut pin = Pin::parse(old);
        let gen_ = vec![
            g(" ALPHA ", &["k1"], &["a.rs"], &["a.rs"]),
            g("alpha", &["k2"], &["b.rs"], &["b.rs"]),
            g("Alpha", &["k3"], &["c.rs"], &["c.rs"]),
        ];
        let s = merge(&mut pin, gen_, |_| true);
        assert_eq!(pin.entries()[0].keywords, ["a", "k1"]);
        assert_eq!(pin.entries()[1].keywords, ["b", "k2"]);
        assert_eq!(s.added, ["Alpha"], "both old entries were taken");
    }

    #[test]
    fn merging_twice_changes_nothing() {
        let gen_ = || {
            vec![
                g(
                    "p: src/parse",
                    &["grammar", "token"],
                    &["src/parse/lex.rs"],
                    &["src/parse/lex.rs"],
                ),
                g(
                    "p: src/graph",
                    &["graph"],
                    &["src/graph/mod.rs"],
                    &["src/graph/mod.rs"],
                ),
            ]
        };
        let mut pin = Pin::parse(HAND);
        merge(&mut pin, gen_(), |f| f != "src/old.rs");
        let once = pin.to_markdown();
        let mut again = Pin::parse(&once);
        let s = merge(&mut again, gen_(), |f| f != "src/old.rs");
        assert_eq!(again.to_markdown(), once);
        assert!(s.added.is_empty() && s.updated.is_empty());
    }

    fn part(name: &str, family: &str, files: &[&str]) -> Generated {
        let mut p = g(name, &["gen"], files, files);
        p.family = family.into();
        p
    }

    /// Every file listed by more than one entry.
    fn listed_twice(pin: &Pin, files: &[&str]) -> Vec<String> {
        files
            .iter()
            .filter(|f| {
                let listing = pin
                    .entries()
                    .iter()
                    .filter(|e| cover::of(&e.files).contains(f));
                listing.count() > 1
            })
            .map(|f| f.to_string())
            .collect()
    }

    const SPLIT_SRC: &str = "### app: src\n\nStart at `lib.rs`.\n\n**Keywords**: hand, gen\n\n\
**File Paths**:\n- src/*.rs\n- scripts/build.sh\n\n**Spec Link**: specs/app.md\n\n---\n\n\
### Glossary\n**Keywords**: words\n\n**File Paths**:\n- src/alpha.rs\n\n**Spec Link**: N/A\n\n---\n";

    fn split_src() -> Vec<Generated> {
        vec![
            part("app: src", "app: src", &["src/lib.rs"]),
            part(
                "app: src (alpha)",
                "app: src",
                &["src/alpha.rs", "src/alpha_x.rs"],
            ),
            part("app: src (beta)", "app: src", &["src/beta.rs"]),
            part("app: docs", "app: docs", &["docs/gen.py"]),
        ]
    }

    #[test]
    fn a_module_split_since_the_pin_was_written_lists_each_file_once() {
        let mut pin = Pin::parse(SPLIT_SRC);
        let s = merge(&mut pin, split_src(), |_| true);
        let e = &pin.entries()[0];
        // The glob gave up the parts' files; the hand-listed script of another module stays,
        // and so do the keywords, the note and the spec.
        assert_eq!(e.files, ["src/lib.rs", "scripts/build.sh"]);
        assert_eq!(e.keywords, ["hand", "gen"]);
        assert_eq!(e.notes.iter().filter(|n| n.contains("lib.rs")).count(), 1);
        assert_eq!(e.spec.as_deref(), Some("specs/app.md"));
        assert_eq!(s.updated, ["app: src"]);
        // The parts come right after their module, before the person's own entry, which keeps
        // what it lists (a person may list a file twice; the merge does not).
        let names: Vec<&str> = pin.entries().iter().map(|e| e.name.as_str()).collect();
        let text = pin.to_markdown();
        let at = |n: &str| text.find(&format!("### {n}\n")).unwrap();
        assert!(at("app: src") < at("app: src (alpha)"));
        assert!(at("app: src (alpha)") < at("app: src (beta)"));
        assert!(at("app: src (beta)") < at("Glossary"), "{text}");
        assert_eq!(names.last(), Some(&"app: docs"));
        assert_eq!(pin.entries()[1].files, ["src/alpha.rs"]);
        let generated = ["src/lib.rs", "src/alpha_x.rs", "src/beta.rs", "docs/gen.py"];
        assert!(listed_twice(&pin, &generated).is_empty(), "{text}");
        // And again: nothing changes.
        let mut again = Pin::parse(&text);
        let s = merge(&mut again, split_src(), |_| true);
        assert_eq!(again.to_markdown(), text);
        assert!(s.added.is_empty() && s.updated.is_empty(), "{s:?}");
    }

    #[test]
    fn an_old_entry_with_no_part_of_its_own_gives_up_its_files_and_keeps_the_rest() {
        for (old, files) in [
            ("### app: tests", "- tests/a.rs\n- tests/b.rs\n"),
            ("### Our tests (renamed)", "- tests/\n"),
        ] {
            let text = format!(
                "{old}\nRun with cargo test.\n\n**Keywords**: mine\n\n**File Paths**:\n{files}\n\
                 **Spec Link**: N/A\n\n---\n"
            );
            let mut pin = Pin::parse(&text);
            let gen_ = vec![
                part("app: tests (a)", "app: tests", &["tests/a.rs"]),
                part("app: tests (b)", "app: tests", &["tests/b.rs"]),
            ];
            let s = merge(&mut pin, gen_, |_| true);
            let e = &pin.entries()[0];
            assert!(e.files.is_empty(), "{old}: {:?}", e.files);
            assert_eq!(e.keywords, ["mine"]);
            assert_eq!(e.notes.iter().filter(|n| n.contains("cargo")).count(), 1);
            assert_eq!(s.added, ["app: tests (a)", "app: tests (b)"]);
            assert!(listed_twice(&pin, &["tests/a.rs", "tests/b.rs"]).is_empty());
        }
    }

    #[test]
    fn keyword_gain_stops_at_twenty() {
        let mut pin = Pin::default();
        let many: Vec<String> = (0..25).map(|i| format!("k{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        merge(
            &mut pin,
            vec![g("x", &refs[..18], &["a.rs"], &["a.rs"])],
            |_| true,
        );
        merge(&mut pin, vec![g("x", &refs, &["a.rs"], &["a.rs"])], |_| {
            true
        });
        assert_eq!(pin.entries()[0].keywords.len(), 20);
    }
}
