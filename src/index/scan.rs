//! Keeping the index current: find what the project holds (the walk's cache tells without a
//! walk when no folder changed, see [`super::walk::look`]), read again only the files whose
//! size or modification time changed, drop removed ones, bring the git history up to date
//! when HEAD moved (only the commits since, see [`cochange::advance`]), and save what changed: a small delta over the base, or, once the delta holds more
//! than a sixteenth of the files, a new base ([`super::store`]).
//!
//! Never fails: an unreadable file or folder is left out, a cache that cannot be read is
//! rebuilt, one that cannot be written is reported in [`Refresh::warning`] and the fresh index
//! is still used. A cache found damaged only while a query reads it is rebuilt too
//! ([`rank_or_rebuild`]). Reads the lines of the files a prompt shows for their signatures
//! ([`read_sigs`]). Does not score (see [`super::rank`]).

use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use super::cochange;
use super::facts::{Facts, Lexicon, doc_facts, facts};
use super::query::QueryTerm;
use super::rank::{Evidence, Ranked};
use super::store::{self, Admitted, Builder, FileRec, Index, State};
use super::walk::{Found, Walked, look, rewalk_looked, walk};

/// The most bytes of one file that are read (the rest of a huge generated file says little).
const MAX_READ: u64 = 1 << 20;
/// A delta may hold this many files whatever the size of the base.
const MIN_DELTA: usize = 64;
/// Beyond `MIN_DELTA`, a delta holding more than this share of the files is merged into a new
/// base.
const DELTA_SHARE: usize = 16;

/// The refreshed index, what else the walk found, and why the index could not be saved if it
/// could not.
#[derive(Debug)]
pub(crate) struct Refresh {
    pub index: Index,
    /// Why the cache could not be saved, when it could not.
    pub warning: Option<String>,
    /// The manifests the walk found (see [`super::walk::rules::MANIFESTS`]), by path.
    pub manifests: Vec<String>,
    /// The first folder or file the walk could not read (left out of the index), if any.
    pub walk_error: Option<ignore::Error>,
}

/// Bring the cached index of `root` up to date (see the module doc), save it, and return it.
pub(crate) fn refresh(root: &Path) -> Refresh {
    refresh_with(root, true)
}

fn found(f: &FileRec) -> Found {
    Found {
        path: f.path.clone(),
        size: f.size,
        mtime: f.mtime,
    }
}

/// [`refresh`], saving the cache only when `save` (a dry run writes nothing).
pub(crate) fn refresh_with(root: &Path, save: bool) -> Refresh {
    let Some(old) = store::load(root) else {
        return rebuilt(root, save);
    };
    let history = History::of(root, &old);
    refresh_alone(root, old, history, save)
}

/// The refresh of `old` with nothing read of it beside.
fn refresh_alone(root: &Path, old: Index, history: History, save: bool) -> Refresh {
    let walked = walk_again(root, &old);
    refresh_over(root, old, walked, history, save).0
}

/// [`refresh_with`] of the index `loaded` (as [`store::load`] gave it), with `read` of it done
/// on another core while the project's files are stat'd: most of the time no file changed,
/// and the read is then what it would be after the refresh (`Some`); `None` when the files or
/// HEAD changed (the read would be of an old index; when HEAD moved it is not even tried), or
/// there was no index to read.
pub(crate) fn refresh_reading<T: Send>(
    root: &Path,
    loaded: Option<Index>,
    save: bool,
    read: impl FnOnce(&Index) -> T + Send,
) -> (Refresh, Option<T>) {
    let Some(old) = loaded else {
        return (rebuilt(root, save), None);
    };
    let history = History::of(root, &old);
    if !history.kept {
        return (refresh_alone(root, old, history, save), None);
    }
    let (early, walked) = crate::par::beside(|| read(&old), || walk_again(root, &old));
    let (refreshed, same_files) = refresh_over(root, old, walked, history, save);
    (refreshed, same_files.then_some(early))
}

/// HEAD now, and whether the history an index holds is the one at it.
struct History {
    head: Option<String>,
    /// The index read the history at this HEAD.
    same: bool,
    /// The index's history needs no change: read at this HEAD, or none and no HEAD.
    kept: bool,
}

impl History {
    fn of(root: &Path, old: &Index) -> History {
        let head = cochange::head(root);
        let same = head.is_some() && old.cochange().map(|c| &c.head) == head.as_ref();
        let kept = same || (head.is_none() && old.cochange().is_none());
        History { head, same, kept }
    }
}

/// The refresh of `old` to what `walked` found (`None`: the files and folders `old` knows, as
/// it knows them; see [`refresh_with`]) and to `history`, and whether the result holds the
/// files and history `old` holds, as it holds them: what is read of `old` is then what would
/// be read of it (only the folders' times in the walk's cache may be new, and saved).
fn refresh_over(
    root: &Path,
    old: Index,
    walked: Option<Walked>,
    history: History,
    save: bool,
) -> (Refresh, bool) {
    let walked = match walked {
        None if history.kept => {
            let manifests = old.state().walk.manifests().to_vec();
            return (as_is(old, manifests, None), true);
        }
        None => as_known(&old),
        Some(walked) => walked,
    };
    let kept = Slots {
        files: unchanged_slots(&walked.sources, old.files(), old.built_at()),
        docs: unchanged_slots(&walked.docs, old.docs(), old.built_at()),
    };
    let same_files = kept.all(&old) && history.kept;
    if same_files && walked.cache == old.state().walk {
        return (as_is(old, walked.manifests, walked.error), true);
    }
    let state = State {
        cochange: match history.same {
            true => old.cochange().cloned(),
            false => read_history(root, old.cochange(), history.head),
        },
        built_at: now(),
        walk: walked.cache.clone(),
    };
    let index = updated(root, old, &walked, &kept, state);
    (finish(root, index, walked, save), same_files)
}

/// `index` kept as it is, with what the walk found besides.
fn as_is(index: Index, manifests: Vec<String>, walk_error: Option<ignore::Error>) -> Refresh {
    Refresh {
        index,
        warning: None,
        manifests,
        walk_error,
    }
}

/// What `root` holds now, or `None` when it is what `old` knows, as it knows it (nothing to
/// list or read: the common case, decided from the stats alone); else from the walk's cache
/// and the stats ([`rewalk_looked`]) when they tell, else walked whole.
fn walk_again(root: &Path, old: &Index) -> Option<Walked> {
    let cache = &old.state().walk;
    let known = || old.files().chain(old.docs()).map(|(_, f)| f);
    let paths: Vec<&str> = known().map(|f| f.path.as_str()).collect();
    let Some(looked) = look(root, cache, &paths) else {
        return Some(walk(root));
    };
    drop(paths);
    let stamps = known().map(|f| (f.size, f.mtime));
    if looked.same(root, cache, stamps, old.built_at()) {
        return None;
    }
    let (sources, docs) = known_lists(old);
    let walked = rewalk_looked(root, cache, looked, sources, docs, old.built_at());
    Some(walked.unwrap_or_else(|| walk(root)))
}

/// The files and docs `old` knows, as it last saw them.
fn known_lists(old: &Index) -> (Vec<Found>, Vec<Found>) {
    // Sized once (the live files are at most the index's slots).
    let known = |files: &mut dyn Iterator<Item = (usize, &FileRec)>, n: usize| -> Vec<Found> {
        let mut out = Vec::with_capacity(n);
        out.extend(files.map(|(_, f)| found(f)));
        out
    };
    (
        known(&mut old.files(), old.len()),
        known(&mut old.docs(), 0),
    )
}

/// What a walk finds when the project is what `old` knows.
fn as_known(old: &Index) -> Walked {
    let (sources, docs) = known_lists(old);
    let cache = old.state().walk.clone();
    Walked {
        sources,
        docs,
        manifests: cache.manifests().to_vec(),
        error: None,
        cache,
    }
}

/// Per walked file and doc, its slot in the old index when it is unchanged there.
struct Slots {
    files: Vec<Option<usize>>,
    docs: Vec<Option<usize>>,
}

impl Slots {
    /// Whether every file and doc of `old` is kept as it is (and nothing was added).
    fn all(&self, old: &Index) -> bool {
        let all =
            |kept: &[Option<usize>], n: usize| kept.len() == n && kept.iter().all(Option::is_some);
        all(&self.files, old.len()) && all(&self.docs, old.docs().count())
    }
}

/// Per walked file (sorted by path), the slot of the same file in `old` (its live files, sorted
/// by path) when it is unchanged there: same size and modification time, and modified before
/// the second the index was built (`built_at`: a file modified in it or later may have changed
/// after it was read). Both sorted: one pass, no search.
fn unchanged_slots<'a>(
    walked: &[Found],
    old: impl Iterator<Item = (usize, &'a FileRec)>,
    built_at: i64,
) -> Vec<Option<usize>> {
    let mut old = old.peekable();
    walked
        .iter()
        .map(|f| {
            while old.next_if(|(_, r)| r.path < f.path).is_some() {}
            old.next_if(|(_, r)| r.path == f.path)
                .filter(|(_, r)| r.size == f.size && r.mtime == f.mtime && f.mtime.0 < built_at)
                .map(|(i, _)| i)
        })
        .collect()
}

/// The index of the files `walked` found over `old`, those `kept` taken from it: a delta over
/// its base, or, when the delta would hold too many files, a new base. Built again from the
/// files alone (and no state: the next refresh starts over) when `old` turns out damaged.
fn updated(root: &Path, old: Index, walked: &Walked, kept: &Slots, state: State) -> Index {
    let stale = kept.files.iter().filter(|k| k.is_none()).count();
    let from_delta = kept
        .files
        .iter()
        .flatten()
        .filter(|&&k| k >= old.base_files())
        .count();
    let pair = (kept.files.as_slice(), kept.docs.as_slice());
    let index = if stale + from_delta > MIN_DELTA.max(old.len() / DELTA_SHARE) {
        merged(root, &old, walked, pair, state)
    } else {
        delta(root, old, walked, pair, state)
    };
    index.unwrap_or_else(|| build(root, walked).finish_base(State::default()))
}

/// [`refresh_with`], and `read` of the refresh done on this core while the index is saved
/// (when `save`) on another: a cold build writes tens of megabytes that its caller need not
/// wait for before reading the index.
pub(crate) fn refresh_while<T>(
    root: &Path,
    save: bool,
    read: impl FnOnce(&Refresh) -> T,
) -> (Refresh, T) {
    let mut refreshed = refresh_with(root, false);
    let (index, fresh) = (&refreshed.index, &refreshed);
    let (written, out) =
        crate::par::beside(|| save.then(|| store::write(root, index)), || read(fresh));
    match written {
        Some(Ok(check)) => refreshed.index.saved(check),
        Some(Err(e)) => refreshed.warning = Some(unsaved(&e)),
        None => {}
    }
    (refreshed, out)
}

/// The warning when the index could not be saved.
fn unsaved(e: &crate::fsutil::FsError) -> String {
    format!("the code index could not be saved ({e}); it is rebuilt on every run until it can")
}

/// The index `index`, saved when `save`, with what else the walk found.
fn finish(root: &Path, mut index: Index, walked: Walked, save: bool) -> Refresh {
    let warning = save
        .then(|| store::save(root, &mut index))
        .and_then(|r| r.err().map(|e| unsaved(&e)));
    Refresh {
        index,
        warning,
        manifests: walked.manifests,
        walk_error: walked.error,
    }
}

/// The history at `head`, from the one `old` read before when there is one (see
/// [`cochange::advance`]). When git cannot read it, an empty history at that commit: no
/// evidence, and not asked again until HEAD moves.
fn read_history(
    root: &Path,
    old: Option<&cochange::CoChange>,
    head: Option<String>,
) -> Option<cochange::CoChange> {
    let head = head?;
    let read = match old {
        Some(old) => cochange::advance(root, old, &head),
        None => cochange::read(root, &head),
    };
    Some(read.unwrap_or_else(|| cochange::CoChange {
        head,
        ..cochange::CoChange::default()
    }))
}

/// The best `limit` files for `query` ([`super::rank::rank`]) in `index`. When the cache
/// behind `index` turns out damaged while it is read, the index is built again from the
/// project's files alone (saved when `save`; why it could not be is the second value), put in
/// `index`, and the ranking done again.
pub(crate) fn rank_or_rebuild(
    root: &Path,
    index: &mut Index,
    save: bool,
    query: &[QueryTerm],
    ev: &Evidence,
    limit: usize,
) -> (Vec<Ranked>, Option<String>) {
    if let Ok(ranked) = super::rank::rank(index, query, ev, limit) {
        return (ranked, None);
    }
    let fresh = rebuilt(root, save);
    *index = fresh.index;
    let warning = fresh.warning;
    // An index just built holds its body in memory, as written: it reads back whole.
    let ranked = super::rank::rank(index, query, ev, limit).unwrap_or_default();
    (ranked, warning)
}

/// The signatures of the definitions `ranked` shows ([`super::sigs`]; the ranking leaves
/// them empty): each file showing one read once, as far as the index reads a file. For a
/// caller that shows the files, not one that only orders them.
pub(crate) fn read_sigs(root: &Path, ranked: &mut [Ranked]) {
    let mut buf = Vec::new();
    for r in ranked {
        if r.symbols.is_empty() && r.outline.is_empty() {
            continue;
        }
        read_head_into(&root.join(&r.path), 0, &mut buf);
        let text = String::from_utf8_lossy(&buf);
        let lang = super::lang::Lang::of(&r.path);
        super::sigs::fill(
            lang,
            &text,
            r.symbols.iter_mut().chain(r.outline.iter_mut()),
        );
    }
}

/// The index of `root` built from its files alone, whatever the cache holds (none, or one
/// found damaged while it was read), saved when `save`.
pub(crate) fn rebuilt(root: &Path, save: bool) -> Refresh {
    // The git history is read (a `git log` to wait for) while the files are.
    let (cochange, (walked, built_at, b)) = crate::par::beside(
        || read_history(root, None, cochange::head(root)),
        || {
            let walked = walk(root);
            let built_at = now();
            let b = build(root, &walked);
            (walked, built_at, b)
        },
    );
    let state = State {
        cochange,
        built_at,
        walk: walked.cache.clone(),
    };
    finish(root, b.finish_base(state), walked, save)
}

/// A builder of a new base holding every walked file, each read.
fn build(root: &Path, walked: &Walked) -> Builder {
    let mut b = Builder::new();
    let none = |n: usize| (0..n).map(|_| None).collect::<Vec<_>>();
    let (files, docs) = (none(walked.sources.len()), none(walked.docs.len()));
    add_in_order(root, &mut b, walked, Plan::default(), files, docs);
    b
}

/// A new base: the files `kept` (slots of `old`, base or delta) taken as they are, the others
/// read. `None` when `old` turns out damaged.
fn merged(
    root: &Path,
    old: &Index,
    walked: &Walked,
    kept: (&[Option<usize>], &[Option<usize>]),
    state: State,
) -> Option<Index> {
    let mut b = Builder::for_base(old);
    let files = old.kept(kept.0, &mut b).ok()?;
    let docs = old.kept_docs(kept.1).ok()?;
    add_in_order(root, &mut b, walked, Plan::default(), files, docs);
    Some(b.finish_base(state))
}

/// A new delta over `old`'s base: the files the base still has stay there (the others are
/// dead in it), the old delta's unchanged files are taken as they are, the rest read. `None`
/// when `old` turns out damaged.
fn delta(
    root: &Path,
    old: Index,
    walked: &Walked,
    kept: (&[Option<usize>], &[Option<usize>]),
    state: State,
) -> Option<Index> {
    let (nb, nd) = (old.base_files(), old.base_docs());
    // A walked file kept at a slot of the base stays there; every other base slot is dead.
    let stays = |k: &[Option<usize>], n: usize| -> Vec<bool> {
        k.iter().map(|k| k.is_some_and(|i| i < n)).collect()
    };
    let dead = |k: &[Option<usize>], n: usize| -> Vec<u32> {
        let mut alive = vec![false; n];
        for i in k.iter().flatten().filter(|&&i| i < n) {
            alive[*i] = true;
        }
        (0..n)
            .filter(|&i| !alive[i])
            .filter_map(|i| u32::try_from(i).ok())
            .collect()
    };
    let plan = Plan {
        files_stay: stays(kept.0, nb),
        docs_stay: stays(kept.1, nd),
    };
    let (dead_files, dead_docs) = (dead(kept.0, nb), dead(kept.1, nd));
    let from_delta = |k: &[Option<usize>], n: usize| -> Vec<Option<usize>> {
        k.iter().map(|k| k.filter(|&i| i >= n)).collect()
    };
    let mut b = Builder::for_delta(&old);
    let files = old.kept(&from_delta(kept.0, nb), &mut b).ok()?;
    let docs = old.kept_docs(&from_delta(kept.1, nd)).ok()?;
    add_in_order(root, &mut b, walked, plan, files, docs);
    Some(b.finish_delta(old, dead_files, dead_docs, state))
}

/// Which walked files stay where they are (in the base a delta is made over) and are not
/// added; none by default.
#[derive(Default)]
struct Plan {
    files_stay: Vec<bool>,
    docs_stay: Vec<bool>,
}

/// Add `walked`'s files to `b` in path order, but those the plan leaves where they are: file
/// `i` as `files[i]` holds it when it is kept, else read (all of them on all cores, see
/// [`read_stale`]); docs alike.
fn add_in_order(
    root: &Path,
    b: &mut Builder,
    walked: &Walked,
    plan: Plan,
    mut files: Vec<Option<store::Kept>>,
    mut docs: Vec<Option<store::Kept>>,
) {
    let stale = |n: usize, stay: &[bool], kept: &[Option<store::Kept>]| -> Vec<usize> {
        (0..n)
            .filter(|&i| !stay.get(i).copied().unwrap_or(false) && kept[i].is_none())
            .collect()
    };
    let stale_files = stale(walked.sources.len(), &plan.files_stay, &files);
    let stale_docs = stale(walked.docs.len(), &plan.docs_stay, &docs);
    let (mut read, mut read_docs) = read_stale(root, b, walked, &stale_files, &stale_docs);
    for (i, f) in walked.sources.iter().enumerate() {
        if let Some(k) = files[i].take() {
            b.keep(k);
        } else if let Some(a) = read[i].take() {
            b.add(f.path.clone(), f.size, f.mtime, a);
        }
    }
    for (i, f) in walked.docs.iter().enumerate() {
        if let Some(k) = docs[i].take() {
            b.keep_doc(k);
        } else if let Some(fx) = read_docs[i].take() {
            b.add_doc(f.path.clone(), f.size, f.mtime, fx);
        }
    }
}

/// One file to read: a source (admitted into the builder) or a doc (its facts only), by its
/// index in the walk.
#[derive(Clone, Copy)]
enum Job {
    Source(usize),
    Doc(usize),
}

/// What reading a [`Job`] gives, for the same file.
enum Done {
    Source(usize, store::Prepared),
    Doc(usize, Facts),
}

/// The sources `stale_files` and docs `stale_docs` (indexes into the walk) read, the sources
/// admitted into `b`: per source and per doc of the walk, what was read of it. Read on all
/// cores, largest first ([`crate::par::on_all_cores`]), each thread with its own [`Lexicon`].
fn read_stale(
    root: &Path,
    b: &mut Builder,
    walked: &Walked,
    stale_files: &[usize],
    stale_docs: &[usize],
) -> (Vec<Option<Admitted>>, Vec<Option<Facts>>) {
    let mut files: Vec<Option<Admitted>> = std::iter::repeat_with(|| None)
        .take(walked.sources.len())
        .collect();
    let mut docs: Vec<Option<Facts>> = std::iter::repeat_with(|| None)
        .take(walked.docs.len())
        .collect();
    let found = |job: Job| match job {
        Job::Source(i) => &walked.sources[i],
        Job::Doc(i) => &walked.docs[i],
    };
    let mut order: Vec<Job> = stale_files.iter().map(|&i| Job::Source(i)).collect();
    order.extend(stale_docs.iter().map(|&i| Job::Doc(i)));
    order.sort_by_key(|&job| std::cmp::Reverse(found(job).size));
    // Each thread's lexicon, and its read buffer (kept: fresh pages cost more than the read).
    let read = |job: Job, (words, buf): &mut (Lexicon, Vec<u8>)| {
        let f = found(job);
        read_head_into(&root.join(&f.path), f.size, buf);
        match job {
            Job::Source(i) => Done::Source(i, store::prepare(facts(&f.path, buf, words), words)),
            Job::Doc(i) => Done::Doc(i, doc_facts(buf)),
        }
    };
    let words: Vec<(Lexicon, Vec<u8>)> = (0..crate::par::threads_for(order.len()))
        .map(|_| (b.lexicon(), Vec::new()))
        .collect();
    crate::par::on_all_cores(&order, words, read, |_, done| match done {
        Done::Source(i, p) => files[i] = Some(b.admit(p)),
        Done::Doc(i, fx) => docs[i] = Some(fx),
    });
    (files, docs)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The first [`MAX_READ`] bytes of a file (none when it cannot be read), into `buf` (emptied
/// first; its memory is reused from file to file: fresh pages cost more than the read).
/// `size`, what the walk saw, sizes it: read in one go, not grown as it fills.
fn read_head_into(path: &Path, size: u64, buf: &mut Vec<u8>) {
    buf.clear();
    buf.reserve(usize::try_from(size.min(MAX_READ)).unwrap_or(0));
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(MAX_READ).read_to_end(buf);
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::time::Duration;

    use super::*;
    use crate::index::store::{CACHE_PATH, DELTA_PATH};

    /// A project of `n` Rust files, all made a long time ago (so the racy-second rule does not
    /// read them again).
    fn project(n: usize) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("src")).unwrap();
        for i in 0..n {
            fs::write(
                d.path().join(format!("src/f{i:03}.rs")),
                format!("fn word{i}() {{}}\n"),
            )
            .unwrap();
        }
        age(d.path(), &(0..n).collect::<Vec<_>>());
        d
    }

    /// Files `which` (and every folder) made old.
    fn age(root: &Path, which: &[usize]) {
        let old = std::time::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        let set = |p: &Path| {
            fs::File::open(p)
                .unwrap()
                .set_times(fs::FileTimes::new().set_modified(old))
                .unwrap();
        };
        for i in which {
            set(&root.join(format!("src/f{i:03}.rs")));
        }
        set(&root.join("src"));
        set(root);
    }

    fn edit(root: &Path, which: impl Iterator<Item = usize>) {
        for i in which {
            fs::write(
                root.join(format!("src/f{i:03}.rs")),
                format!("fn changed{i}() {{}}\n"),
            )
            .unwrap();
        }
    }

    /// What the index says: each live file and the files of a few terms, by path.
    fn content(ix: &Index) -> (Vec<String>, Vec<Vec<String>>) {
        let files = ix.files().map(|(_, f)| f.path.clone()).collect();
        let terms = ["word1", "chang", "word70", "src"]
            .iter()
            .map(|t| {
                let mut paths: Vec<String> = ix
                    .postings(t)
                    .unwrap()
                    .into_iter()
                    .map(|(fi, _)| ix.rec(fi).path.clone())
                    .collect();
                paths.sort();
                paths
            })
            .collect();
        (files, terms)
    }

    #[test]
    fn a_few_changes_go_to_a_delta_and_many_to_a_new_base() {
        let d = project(120);
        let r = d.path();
        let cold = refresh(r).index;
        assert_eq!(cold.len(), 120);
        assert!(r.join(CACHE_PATH).is_file() && !r.join(DELTA_PATH).exists());
        let base = fs::read(r.join(CACHE_PATH)).unwrap();

        edit(r, 0..3);
        fs::remove_file(r.join("src/f100.rs")).unwrap();
        fs::write(r.join("src/new.rs"), "fn changed_new() {}\n").unwrap();
        let warm = refresh(r).index;
        assert_eq!(warm.delta_files(), 4, "three edited, one added");
        assert!(r.join(DELTA_PATH).is_file());
        assert_eq!(
            fs::read(r.join(CACHE_PATH)).unwrap(),
            base,
            "the base is not rewritten"
        );
        assert_eq!(content(&warm), content(&rebuilt(r, false).index));
        assert_eq!(content(&store::load(r).unwrap()), content(&warm));

        edit(r, 3..100);
        let merged = refresh(r).index;
        assert_eq!(merged.delta_files(), 0);
        assert!(!r.join(DELTA_PATH).exists());
        assert_eq!(content(&merged), content(&rebuilt(r, false).index));
    }

    #[test]
    fn a_read_beside_the_stat_is_kept_only_when_no_file_changed() {
        let d = project(40);
        let r = d.path();
        let (cold, early) = refresh_reading(r, store::load(r), true, |ix| ix.len());
        assert_eq!(
            (cold.index.len(), early),
            (40, None),
            "no index: nothing read"
        );
        // Writing the cache changed the project folder's time, not the files: the read
        // stands, and the walk's cache is saved with the new time.
        let (first, early) = refresh_reading(r, store::load(r), true, content);
        assert_eq!(early, Some(content(&cold.index)), "only a folder's time");
        assert_eq!(content(&first.index), content(&cold.index));
        assert_ne!(first.index.state().walk, cold.index.state().walk);
        let (warm, early) = refresh_reading(r, store::load(r), true, content);
        assert_eq!(
            early,
            Some(content(&warm.index)),
            "nothing changed: it stands"
        );
        assert_eq!(warm.index.state().walk, first.index.state().walk);
        fs::write(r.join("src/notes.txt"), "not a source\n").unwrap();
        let (noted, early) = refresh_reading(r, store::load(r), true, content);
        assert_eq!(
            early,
            Some(content(&noted.index)),
            "a file not kept: it stands"
        );
        edit(r, 0..1);
        let (edited, early) = refresh_reading(r, store::load(r), true, content);
        assert_eq!(early, None, "edited in place: dropped");
        assert_eq!(edited.index.delta_files(), 1, "and read again");
        fs::write(r.join("src/new.rs"), "fn changed_new() {}\n").unwrap();
        let (added, early) = refresh_reading(r, store::load(r), true, |ix| ix.len());
        assert_eq!(
            (added.index.len(), early),
            (41, None),
            "a file added: dropped"
        );
    }

    #[test]
    fn when_head_moved_nothing_is_read_beside_the_stat() {
        let d = project(3);
        let r = d.path();
        let git = |args: &[&str]| cochange::tests::git_in(r, args);
        git(&["init", "-q"]);
        git(&["add", "src"]);
        git(&["commit", "-qm", "one"]);
        refresh(r);
        let (_, early) = refresh_reading(r, store::load(r), true, |_| ());
        assert_eq!(early, Some(()), "same HEAD, same files");
        git(&["commit", "-q", "--allow-empty", "-m", "two"]);
        let (moved, early) = refresh_reading(r, store::load(r), true, |_| panic!("not read"));
        assert_eq!(early, None);
        let (_, early) = refresh_reading(r, store::load(r), true, |_| ());
        assert_eq!(early, Some(()), "the history read at the new HEAD");
        assert_eq!(moved.index.len(), 3);
    }

    #[test]
    fn the_index_is_read_while_it_is_saved() {
        let d = project(12);
        let r = d.path();
        let (dry, n) = refresh_while(r, false, |f| f.index.len());
        assert_eq!((n, dry.warning), (12, None));
        assert!(!r.join(CACHE_PATH).exists(), "a dry run writes nothing");

        let (cold, n) = refresh_while(r, true, |f| content(&f.index));
        assert_eq!(n, content(&cold.index), "read what is returned");
        assert_eq!(cold.warning, None);
        let base = fs::read(r.join(CACHE_PATH)).unwrap();
        let warm = refresh(r).index;
        assert_eq!(content(&warm), n, "the saved index loads as it was");
        assert_eq!(
            fs::read(r.join(CACHE_PATH)).unwrap(),
            base,
            "and is not written again"
        );

        edit(r, 0..2);
        refresh(r);
        assert!(
            r.join(DELTA_PATH).is_file(),
            "a delta over the base written while read"
        );
        assert_eq!(fs::read(r.join(CACHE_PATH)).unwrap(), base);
    }

    #[test]
    fn an_index_that_cannot_be_saved_is_still_read() {
        let d = project(3);
        let r = d.path();
        fs::write(r.join(".ralph"), "a file where the folder goes").unwrap();
        let (refreshed, n) = refresh_while(r, true, |f| f.index.len());
        assert_eq!(n, 3);
        let warning = refreshed.warning.unwrap();
        assert!(
            warning.starts_with("the code index could not be saved ("),
            "{warning}"
        );
    }

    #[test]
    fn a_file_edited_in_place_is_read_again() {
        let d = project(10);
        let r = d.path();
        refresh(r);
        // Same size, same inode, its folder untouched: only its time tells.
        let path = r.join("src/f005.rs");
        fs::write(&path, "fn zebr5() {}\n").unwrap();
        let later = std::time::UNIX_EPOCH + Duration::from_secs(1_600_000_100);
        let f = fs::File::options().write(true).open(&path).unwrap();
        f.set_times(fs::FileTimes::new().set_modified(later))
            .unwrap();
        age(r, &[]);
        let warm = refresh(r).index;
        assert_eq!(warm.postings("zebr5").unwrap().len(), 1);
        assert!(warm.postings("word5").unwrap().is_empty());
        assert_eq!(content(&warm), content(&rebuilt(r, false).index));
    }

    #[test]
    fn the_walked_files_are_matched_to_the_old_ones_in_one_pass() {
        let rec = |path: &str, size: u64| {
            // A record as the store makes it (its details' place is the store's own).
            let ix = store::from_texts(&[(path, "x")]);
            let mut r = ix.rec(0).clone();
            r.size = size;
            r.mtime = (5, 0);
            r
        };
        let old = [
            rec("a.rs", 1),
            rec("b/c.rs", 1),
            rec("b/d.rs", 2),
            rec("e.rs", 1),
        ];
        let slots = [0, 1, 7, 9];
        let walked = |list: &[(&str, u64, i64)]| -> Vec<Found> {
            list.iter()
                .map(|&(p, size, t)| Found {
                    path: p.to_string(),
                    size,
                    mtime: (t, 0),
                })
                .collect()
        };
        let now = walked(&[
            ("a.rs", 1, 5),   // unchanged
            ("a0.rs", 1, 5),  // added
            ("b/d.rs", 3, 5), // grew (b/c.rs went)
            ("e.rs", 1, 6),   // touched
            ("f.rs", 1, 5),   // added at the end
        ]);
        let old_iter = || slots.iter().copied().zip(old.iter());
        assert_eq!(
            unchanged_slots(&now, old_iter(), 10),
            [Some(0), None, None, None, None]
        );
        let same = walked(&[
            ("a.rs", 1, 5),
            ("b/c.rs", 1, 5),
            ("b/d.rs", 2, 5),
            ("e.rs", 1, 5),
        ]);
        assert_eq!(
            unchanged_slots(&same, old_iter(), 10),
            [Some(0), Some(1), Some(7), Some(9)]
        );
        assert_eq!(
            unchanged_slots(&same, old_iter(), 5),
            [None; 4],
            "modified in the second of the build: read again"
        );
        assert_eq!(unchanged_slots(&same, std::iter::empty(), 10), [None; 4]);
    }
}
