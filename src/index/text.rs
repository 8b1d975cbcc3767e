//! Words: splitting identifiers and text into lowercase parts, light stemming, stop words.
//!
//! Owns THE tokenizer, [`for_each_term`] (and [`terms`], its list): the search terms of any
//! text, each with the word as written that gave it. The index (files' facts, a story's query,
//! the ranking) and the Pin (its search and keywords) all read text through it, so a story's
//! words, a Pin's keywords and a file's names meet on the same terms. The pieces it is made of
//! are exposed for the keyword generator, which wants words, not terms: [`split_words`]
//! (lowercase words before stop words and stemming), [`is_stop`], [`stem`]; `for_each_word`
//! and `scan_terms` are the same passes without allocating per word. Does not own ranking.

/// A hash map with a fast, fixed-seed hasher (deterministic; keys here are short words).
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
/// A hash set with the same hasher.
pub(crate) type FastSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

/// English stop words and words too common in code to say anything about a module.
const STOP: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "else", "etc",
    "every", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
    "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
    "let", "like", "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now",
    "of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own",
    "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their",
    "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too",
    "under", "until", "up", "upon", "us", "very", "via", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "within", "without", "would",
    "yet", "you", "your", "yours",
];

/// A word of at most 8 ASCII bytes packed into a `u64` (zero padded), for cheap comparison.
const fn pack(w: &[u8]) -> u64 {
    let mut k = 0u64;
    let mut i = 0;
    while i < w.len() && i < 8 {
        k |= (w[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// Slots in [`STOP_TABLE`] (a power of two, about four times the number of stop words).
const STOP_SLOTS: usize = 512;

/// The slot a packed word hashes to (multiplicative hashing: the top bits of a product).
const fn stop_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - STOP_SLOTS.trailing_zeros())) as usize
}

/// The stop words packed (see [`pack`]) in an open-addressing table (0 marks an empty slot),
/// built at compile time: a lookup is a multiply and, rarely, a short probe.
static STOP_TABLE: [u64; STOP_SLOTS] = {
    let mut t = [0u64; STOP_SLOTS];
    let mut i = 0;
    while i < STOP.len() {
        let key = pack(STOP[i].as_bytes());
        let mut s = stop_slot(key);
        while t[s] != 0 {
            s = (s + 1) % STOP_SLOTS;
        }
        t[s] = key;
        i += 1;
    }
    t
};

/// Whether `w` (lowercase) is an English stop word.
pub(crate) fn is_stop(w: &str) -> bool {
    let b = w.as_bytes();
    // No stop word is longer than 7 letters or holds anything but lowercase ASCII letters.
    b.len() <= 7 && b.iter().all(u8::is_ascii_lowercase) && is_stop_key(pack(b))
}

/// Whether a packed lowercase word of 1-7 letters (see [`pack`]) is a stop word.
fn is_stop_key(key: u64) -> bool {
    let mut s = stop_slot(key);
    loop {
        match STOP_TABLE[s] {
            0 => return false,
            k if k == key => return true,
            _ => s = (s + 1) % STOP_SLOTS,
        }
    }
}

/// Call `f` with each word of `text` as written: split on anything not alphanumeric, on
/// snake/kebab case and on camel case (`HTTPServerError` gives `HTTP`, `Server`, `Error`). Digits
/// stay with the letters before them (`utf8`, `v2`).
fn for_each_raw_word<'a>(text: &'a str, mut f: impl FnMut(&'a str)) {
    word_spans(text, |s, e| f(&text[s..e]));
}

/// [`for_each_raw_word`] as byte spans of `text`. The ASCII between non-ASCII characters goes
/// through [`ascii_words`] (a source file with one `é` in a comment is still mostly ASCII);
/// only a run of letters and digits holding a non-ASCII one is split char by char
/// ([`unicode_words`]).
#[inline(always)]
fn word_spans(text: &str, mut f: impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(p) = first_non_ascii(b, i) {
        let c = text[p..].chars().next().unwrap_or(' ');
        if !c.is_alphanumeric() {
            ascii_words(&text[i..p], |s, e| f(i + s, i + e));
            i = p + c.len_utf8();
            continue;
        }
        // The run of letters and digits around `p`, ASCII ones included.
        let a = p - b[i..p]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let e = text[p..]
            .find(|c: char| !c.is_alphanumeric())
            .map_or(text.len(), |k| p + k);
        ascii_words(&text[i..a], |s, e| f(i + s, i + e));
        unicode_words(&text[a..e], |s, e| f(a + s, a + e));
        i = e;
    }
    ascii_words(&text[i..], |s, e| f(i + s, i + e));
}

/// The first byte of `b` from `from` on that is not ASCII, eight bytes at a time.
fn first_non_ascii(b: &[u8], from: usize) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let rest = b.get(from..)?;
    let mut chunks = rest.chunks_exact(8);
    let mut at = from;
    for c in chunks.by_ref() {
        let x = c.first_chunk::<8>().map_or(0, |c| u64::from_le_bytes(*c)) & HIGH;
        if x != 0 {
            return Some(at + x.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = chunks.remainder().iter().position(|c| !c.is_ascii());
    tail.map(|k| at + k)
}

/// The words of a run of letters and digits that holds a non-ASCII one, as byte spans: split
/// on camel case by the chars' own case.
fn unicode_words(chunk: &str, mut f: impl FnMut(usize, usize)) {
    let mut start = 0;
    let mut prev: Option<char> = None;
    let mut iter = chunk.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if let Some(p) = prev {
            let next_lower = iter.peek().is_some_and(|(_, n)| n.is_lowercase());
            let boundary = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower)
                || (p.is_numeric() && c.is_uppercase());
            if boundary {
                f(start, i);
                start = i;
            }
        }
        prev = Some(c);
    }
    if !chunk.is_empty() {
        f(start, chunk.len());
    }
}

/// The key of an ASCII alphanumeric word of 1-7 bytes for [`is_stop_key`]: lowercased and
/// packed (see [`pack`]). `tail` is the text from the word's first byte on, so the common case is
/// one 8-byte load. A word holding a digit gives a key no stop word has.
fn stop_key(word: &[u8], tail: &[u8]) -> u64 {
    let raw = tail
        .first_chunk::<8>()
        .map_or_else(|| pack(word), |c| u64::from_le_bytes(*c));
    // `| 0x20` lowercases a letter and keeps a digit.
    (raw | 0x2020_2020_2020_2020) & (u64::MAX >> (64 - 8 * word.len()))
}

/// [`for_each_raw_word`] for ASCII text (the common case), in one pass over the bytes: runs of
/// alphanumerics, split where the case changes; `f(start, end)` for each word's byte span.
/// A word is a run of capitals then a run of lowercase letters and digits, either possibly
/// empty; when more than one capital comes before a lowercase letter, the last capital starts
/// the next word (`HTTPServer`: `HTTP`, `Server`). The bytes are classed 64 at a time into bit
/// masks ([`Classes`]), eight bytes per step, and the words' starts and ends found in the masks,
/// with no branch per byte: this is the hot loop of building the index (every word of every
/// file) and of search. Inlined into its callers, so `f` has one call site.
#[inline(always)]
fn ascii_words(text: &str, mut f: impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    // Classes of the block before, this one and the one after (64 bytes each): a word's start
    // and end depend on the bytes beside it.
    let mut prev = Classes::default();
    let mut cur = Classes::of(b, 0);
    let mut pending = 0;
    let mut base = 0;
    while base < b.len() {
        let next = Classes::of(b, base + 64);
        let starts = cur.starts(&prev, &next);
        let next_starts0 = next.starts(&cur, &Classes::default()) & 1;
        // The last byte of each word: a word byte before a separator or another word's start.
        let mut lasts = cur.word & (!((cur.word >> 1) | (next.word << 63)) | (starts >> 1))
            | (cur.word & (next_starts0 << 63));
        let mut firsts = starts;
        // Starts and ends alternate: the k-th end closes the word of the k-th start (or, first,
        // one that began in a block before).
        if pending_open(firsts, lasts) {
            f(pending, base + lasts.trailing_zeros() as usize + 1);
            lasts &= lasts - 1;
        }
        while firsts != 0 {
            let s = base + firsts.trailing_zeros() as usize;
            firsts &= firsts - 1;
            if lasts == 0 {
                pending = s;
                break;
            }
            f(s, base + lasts.trailing_zeros() as usize + 1);
            lasts &= lasts - 1;
        }
        (prev, cur) = (cur, next);
        base += 64;
    }
}

/// Whether the first end in a block comes before its first start: the word open at its
/// beginning ends there.
#[inline(always)]
fn pending_open(firsts: u64, lasts: u64) -> bool {
    lasts != 0 && (firsts == 0 || lasts.trailing_zeros() < firsts.trailing_zeros())
}

/// One bit per byte of a 64-byte block of ASCII text (bit `k`: byte `k`; past the text's end,
/// separators): word bytes (letters and digits), capitals, lowercase letters.
#[derive(Clone, Copy, Default)]
struct Classes {
    word: u64,
    upper: u64,
    lower: u64,
}

impl Classes {
    /// The classes of the block of `b` at `at` (none past its end), eight bytes at a time.
    #[inline(always)]
    fn of(b: &[u8], at: usize) -> Classes {
        let mut c = Classes::default();
        let block = b.get(at..).unwrap_or_default();
        let block = &block[..block.len().min(64)];
        for (k, chunk) in block.chunks(8).enumerate() {
            let x = match chunk.first_chunk::<8>() {
                Some(c) => u64::from_le_bytes(*c),
                None => pack(chunk),
            };
            let (lo, up) = (in_range(x, b'a', b'z'), in_range(x, b'A', b'Z'));
            let word = lo | up | in_range(x, b'0', b'9');
            c.lower |= bits(lo) << (8 * k);
            c.upper |= bits(up) << (8 * k);
            c.word |= bits(word) << (8 * k);
        }
        c
    }

    /// The bytes of this block that start a word ([`ascii_words`]), given the blocks beside
    /// it: a word byte after a separator; a capital after a lowercase letter or digit; the
    /// last capital of a run of two or more followed by a lowercase letter.
    #[inline(always)]
    fn starts(&self, prev: &Classes, next: &Classes) -> u64 {
        let before = |m: u64, p: u64| (m << 1) | (p >> 63);
        let lower_digit = self.word & !self.upper;
        let prev_lower_digit = prev.word & !prev.upper;
        let next_lower = (self.lower >> 1) | (next.lower << 63);
        self.word
            & (!before(self.word, prev.word)
                | (self.upper & before(lower_digit, prev_lower_digit))
                | (self.upper & before(self.upper, prev.upper) & next_lower))
    }
}

/// Per byte of `x` (eight ASCII bytes), its high bit when the byte is in `lo..=hi`: a byte
/// below 0x80 plus `0x80 - lo` reaches 0x80 exactly when it is at least `lo`, and no sum
/// carries into the next byte.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let at_least_lo = x.wrapping_add(ONES * u64::from(0x80 - lo));
    let above_hi = x.wrapping_add(ONES * u64::from(0x7f - hi));
    at_least_lo & !above_hi & HIGH
}

/// The high bits of `m`'s eight bytes gathered into eight bits (byte `k`: bit `k`).
#[inline(always)]
fn bits(m: u64) -> u64 {
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Lowercase `word` into `buf`; true when it is a number (all numeric).
fn lower_into(word: &str, buf: &mut String) -> bool {
    buf.clear();
    if word.is_ascii() {
        buf.push_str(word);
        buf.make_ascii_lowercase();
        let b = word.as_bytes();
        b.first().is_some_and(u8::is_ascii_digit) && b.iter().all(u8::is_ascii_digit)
    } else {
        buf.extend(word.chars().flat_map(char::to_lowercase));
        buf.chars().all(char::is_numeric)
    }
}

/// Call `f` with each word of `text` lowercased (see [`for_each_raw_word`]), in `buf`: no
/// allocation per word.
pub(crate) fn for_each_word(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    for_each_raw_word(text, |w| {
        lower_into(w, buf);
        f(buf);
    });
}

/// Split text into lowercase words: on anything not alphanumeric, on snake/kebab case and on
/// camel case (`HTTPServerError` gives `http`, `server`, `error`); digits stay with the letters
/// before them (`utf8`, `v2`).
pub(crate) fn split_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, &mut String::new(), |w| out.push(w.to_string()));
    out
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Remove a doubled final consonant (`runn` → `run`), except f, l, s and z, which English
/// words end in doubled (`diff`, `call`, `pass`, `buzz`: `diffing` gives `diff`, as `diff` does).
fn undouble(w: &mut String) {
    let b = w.as_bytes();
    let n = b.len();
    if n >= 3
        && b[n - 1] == b[n - 2]
        && !is_vowel(b[n - 1])
        && !matches!(b[n - 1], b'f' | b'l' | b's' | b'z')
    {
        w.pop();
    }
}

/// Light stemming: plurals, -ing, -ed and a final -e, so `parse`, `parses`, `parsed` and
/// `parsing` all give `pars`. Only ASCII words are stemmed; others are returned as they are.
pub(crate) fn stem(word: &str) -> String {
    let mut w = word.to_string();
    stem_in_place(&mut w);
    w
}

fn stem_in_place(w: &mut String) {
    if !w.is_ascii() || w.len() <= 3 {
        return;
    }
    if w.ends_with("ies") && w.len() > 4 {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    if w.ends_with("ing") && w.len() >= 6 {
        w.truncate(w.len() - 3);
        undouble(w);
    } else if w.ends_with("ed") && w.len() >= 5 {
        w.truncate(w.len() - 2);
        undouble(w);
    }
    if w.ends_with('e') && w.len() > 4 {
        w.pop();
    }
}

/// The search terms of free text: split words, stop words and pure numbers dropped, stemmed.
/// Order is kept and duplicates are kept (callers count them).
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t, _| out.push(t.to_string()));
    out
}

/// THE tokenizer: call `f(term, word)` with each term of `text`, exactly as [`terms`] lists
/// them, and the word as written that gave it (`Parsing` for `pars`), without allocating per
/// word (one buffer is reused). The Pin's search, the code index and a story's query all read
/// text through it, so they meet on the same terms.
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str, &str)) {
    scan_terms(text, &mut String::new(), &|_: &[u8]| true, |t, w| {
        if let Some(t) = t {
            f(t, w);
        }
    });
}

/// THE tokenizer in two steps, for counting the words of a large text: each word as written
/// ([`for_each_written`]), then once per distinct word its term ([`term_of`]). For any text,
/// `for_each_written` and `term_of` give exactly the terms of [`for_each_term`], in order.
#[cfg(test)]
pub(crate) fn for_each_written<'a>(text: &'a str, f: impl FnMut(&'a str)) {
    for_each_raw_word(text, f);
}

/// [`for_each_written`], with each word's hash ([`word_hash`]) worked out in the same pass over
/// the text, and where in `text` the word starts: what counting the words of a large text needs.
pub(crate) fn for_each_written_hashed<'a>(text: &'a str, mut f: impl FnMut(&'a str, u64, usize)) {
    let b = text.as_bytes();
    word_spans(text, |s, e| f(&text[s..e], word_hash(&b[s..e], &b[s..]), s));
}

/// A 64-bit hash of a word's bytes and length, never 0 (its top bit is set, so that its low
/// bits, which pick a word's slot in a table, stay as mixed as the rest). `tail` is the text
/// from the word's first byte on (the word itself will do): eight bytes are loaded at a time,
/// and the bytes past the word masked off, so a word hashes alike wherever it is.
pub(crate) fn word_hash(word: &[u8], tail: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (word.len() as u64).wrapping_mul(K);
    let (mut rest, mut t) = (word, tail);
    loop {
        let n = rest.len().min(8);
        let raw = t
            .first_chunk::<8>()
            .map_or_else(|| pack(rest), |c| u64::from_le_bytes(*c));
        let chunk = if n == 8 {
            raw
        } else {
            raw & ((1u64 << (8 * n)) - 1)
        };
        h = (h ^ chunk).wrapping_mul(K);
        h ^= h >> 32;
        if rest.len() <= 8 {
            return h | 1 << 63;
        }
        rest = &rest[8..];
        t = &t[8..];
    }
}

/// The term of one word as [`for_each_written`] gives it (`None`: a stop word or a number),
/// in `buf`.
pub(crate) fn term_of<'b>(word: &str, buf: &'b mut String) -> Option<&'b str> {
    let b = word.as_bytes();
    if word.is_ascii() {
        let number = b.first().is_some_and(u8::is_ascii_digit) && b.iter().all(u8::is_ascii_digit);
        if b.is_empty() || number || (b.len() <= 7 && is_stop_key(stop_key(b, b))) {
            return None;
        }
        buf.clear();
        buf.extend(b.iter().map(|&c| char::from(c.to_ascii_lowercase())));
    } else if lower_into(word, buf) || is_stop(buf) {
        return None;
    }
    stem_in_place(buf);
    Some(buf)
}

/// The term of one word of a name, a path or an identifier the story writes as code: what
/// [`term_of`] gives, and for a stop word the word itself, lowercased and not stemmed. A
/// function named `Where`, a file `once.rs`, a method `after` are found by their names; in
/// prose and in a file's text such words stay stop words.
pub(crate) fn name_term<'b>(word: &str, buf: &'b mut String) -> Option<&'b str> {
    if term_of(word, buf).is_some() {
        return Some(buf);
    }
    stop_term(word, buf)
}

/// A stop word as a name's term ([`name_term`]): lowercased in `buf`; `None` for any other
/// word.
pub(crate) fn stop_term<'b>(word: &str, buf: &'b mut String) -> Option<&'b str> {
    lower_into(word, buf);
    is_stop(buf).then_some(&**buf)
}

/// The terms of a name ([`name_term`]), in order: [`terms`] with its stop words kept.
pub(crate) fn name_terms(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_name_term(name, |t, _| out.push(t.to_string()));
    out
}

/// [`for_each_term`] for a name ([`name_term`]): stop words are terms too.
pub(crate) fn for_each_name_term(text: &str, mut f: impl FnMut(&str, &str)) {
    let mut buf = String::new();
    for_each_raw_word(text, |w| {
        if let Some(t) = name_term(w, &mut buf) {
            f(t, w);
        }
    });
}

/// Which words a caller of [`scan_terms`] wants stemmed, given a word's UTF-8 bytes (any
/// `Fn(&[u8]) -> bool` is one).
pub(crate) trait Want {
    fn want(&self, word: &[u8]) -> bool;
}

impl<F: Fn(&[u8]) -> bool> Want for F {
    #[inline(always)]
    fn want(&self, word: &[u8]) -> bool {
        self(word)
    }
}

/// The pass behind [`for_each_term`], for search: `f(Some(term), word)` for the words `want`
/// accepts, `f(None, word)` for the other terms (counted, not stemmed), with a caller's buffer
/// (reused across many short texts); `word` is the word as written. `want` gets the word before
/// lowercasing and stemming, with any non-ASCII letters already lowercased: compare it with
/// ASCII case folding. Stemming keeps a word's first letters (the term is a prefix of the word,
/// or that prefix plus `y`), so a caller looking for a few terms can reject most words before
/// they are copied or stemmed.
pub(crate) fn scan_terms(
    text: &str,
    buf: &mut String,
    want: &impl Want,
    mut f: impl FnMut(Option<&str>, &str),
) {
    if text.is_ascii() {
        ascii_terms(text, buf, want, &mut f);
        return;
    }
    for_each_raw_word(text, |w| {
        if w.is_ascii() {
            ascii_term(w, w.as_bytes(), buf, want, &mut f);
            return;
        }
        if lower_into(w, buf) || is_stop(buf) {
            return;
        }
        if want.want(buf.as_bytes()) {
            stem_in_place(buf);
            f(Some(buf), w);
        } else {
            f(None, w);
        }
    });
}

/// [`scan_terms`] for ASCII text: [`ascii_words`] and the tests of [`ascii_term`].
fn ascii_terms(
    text: &str,
    buf: &mut String,
    want: &impl Want,
    f: &mut impl FnMut(Option<&str>, &str),
) {
    let b = text.as_bytes();
    ascii_words(text, |start, end| {
        ascii_term(&text[start..end], &b[start..], buf, want, f);
    });
}

/// One ASCII word of [`scan_terms`] (`tail`: see [`stop_key`]): numbers and stop
/// words are told from the word as written, and only a wanted word is copied, lowercased and
/// stemmed.
#[inline(always)]
fn ascii_term(
    word: &str,
    tail: &[u8],
    buf: &mut String,
    want: &impl Want,
    f: &mut impl FnMut(Option<&str>, &str),
) {
    let b = word.as_bytes();
    let number = b[0].is_ascii_digit() && b.iter().all(u8::is_ascii_digit);
    if number || (b.len() <= 7 && is_stop_key(stop_key(b, tail))) {
        return;
    }
    if !want.want(b) {
        f(None, word);
        return;
    }
    buf.clear();
    buf.extend(b.iter().map(|&c| char::from(c.to_ascii_lowercase())));
    stem_in_place(buf);
    f(Some(buf), word);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_list_is_sorted_and_short() {
        let mut s = STOP.to_vec();
        s.sort_unstable();
        assert_eq!(s, STOP);
        assert!(STOP.iter().all(|w| w.len() <= 7 && is_stop(w)));
        for w in [
            "", "ab", "thee", "yours1", "abouts", "Then", "ünd", "shallow", "x",
        ] {
            assert_eq!(is_stop(w), STOP.contains(&w), "{w}");
        }
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(split_words("HTTPServerError"), ["http", "server", "error"]);
        assert_eq!(split_words("atomic_write"), ["atomic", "write"]);
        assert_eq!(
            split_words("context-builder.sh"),
            ["context", "builder", "sh"]
        );
        assert_eq!(
            split_words("parseJSON utf8Decode"),
            ["parse", "json", "utf8", "decode"]
        );
        assert_eq!(split_words("  --  "), Vec::<String>::new());
        assert_eq!(
            split_words("ÜberCase naïveTest"),
            ["über", "case", "naïve", "test"]
        );
        assert_eq!(split_words("x86Ok"), ["x86", "ok"]);
    }

    #[test]
    fn stems_lightly_and_consistently() {
        for w in ["parse", "parses", "parsed", "parsing"] {
            assert_eq!(stem(w), "pars", "{w}");
        }
        assert_eq!(stem("entries"), "entry");
        assert_eq!(stem("classes"), "class");
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("calling"), stem("call"));
        for w in ["diff", "diffs", "diffing", "diffed"] {
            assert_eq!(stem(w), "diff", "{w}");
        }
        assert_eq!(stem("pinned"), "pin");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("keywords"), stem("keyword"));
        assert_eq!(stem("naïveté"), "naïveté");
    }

    #[test]
    fn terms_drop_stop_words_and_numbers() {
        assert_eq!(
            terms("Add the search to 2 Pin entries"),
            ["add", "search", "pin", "entry"]
        );
        assert_eq!(terms("The THE ONLY 42 then3 Whom"), ["then3"]);
        assert_eq!(terms("theirs_ABOUT AboutX"), ["x"]);
    }

    #[test]
    fn a_names_stop_words_are_its_terms_too() {
        assert_eq!(name_terms("Where"), ["where"]);
        assert_eq!(name_terms("isOnceAfter_42"), ["is", "once", "after"]);
        assert_eq!(name_terms("hasSuffix 42 THE"), ["has", "suffix", "the"]);
        // Words that are no stop words give what `terms` gives, stemmed.
        assert_eq!(name_terms("parsing_entries"), terms("parsing_entries"));
        let mut buf = String::new();
        assert_eq!(name_term("42", &mut buf), None);
        assert_eq!(name_term("Über", &mut buf), Some("über"));
    }

    proptest::proptest! {
        #[test]
        fn written_words_and_their_terms_are_the_tokenizer(
            text in "([a-zA-Z0-9]{1,9}|[ _./,:-]{1,2}|Über|naïve|ÉTÉ|42|the|THE){0,30}",
        ) {
            let mut want = Vec::new();
            for_each_term(&text, |t, w| want.push((t.to_string(), w.to_string())));
            let mut got = Vec::new();
            let mut buf = String::new();
            for_each_written(&text, |w| {
                if let Some(t) = term_of(w, &mut buf) {
                    got.push((t.to_string(), w.to_string()));
                }
            });
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_word_hashes_alike_wherever_it_is() {
        let text = "alpha beta_gamma alphabetically alpha alphabetically.";
        let mut seen: Vec<(String, u64)> = Vec::new();
        for_each_written_hashed(text, |w, h, _| seen.push((w.to_string(), h)));
        let of = |w: &str| -> Vec<u64> {
            seen.iter()
                .filter(|(x, _)| x == w)
                .map(|(_, h)| *h)
                .collect()
        };
        assert_eq!(of("alpha").len(), 2);
        assert_eq!(of("alpha")[0], of("alpha")[1]);
        assert_eq!(of("alphabetically")[0], of("alphabetically")[1]);
        assert_eq!(of("alpha")[0], word_hash(b"alpha", b"alpha"));
        assert_ne!(of("alpha")[0], of("beta")[0]);
        assert_ne!(word_hash(b"ab", b"ab"), word_hash(b"ab\0", b"ab\0"));
        // Never 0, and the low bits not fixed: half of many words' hashes are odd.
        let hashes: Vec<u64> = (0..64)
            .map(|i| format!("w{i}"))
            .map(|w| word_hash(w.as_bytes(), w.as_bytes()))
            .collect();
        assert!(hashes.iter().all(|&h| h != 0));
        let odd = hashes.iter().filter(|&&h| h & 1 == 1).count();
        assert!((16..=48).contains(&odd), "{odd} of 64 odd");
    }

    /// The words [`for_each_raw_word`] gives.
    fn raw_words(text: &str) -> Vec<String> {
        let mut got = Vec::new();
        for_each_raw_word(text, |w| got.push(w.to_string()));
        got
    }

    /// The char-by-char definition of word splitting, for comparison with the byte fast path.
    fn reference_words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for chunk in text.split(|c: char| !c.is_alphanumeric()) {
            let chars: Vec<(usize, char)> = chunk.char_indices().collect();
            let mut start = 0;
            for k in 1..chars.len() {
                let (p, (i, c)) = (chars[k - 1].1, chars[k]);
                let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
                if (p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase() && c.is_uppercase() && next_lower)
                    || (p.is_numeric() && c.is_uppercase())
                {
                    out.push(chunk[start..i].to_string());
                    start = i;
                }
            }
            if !chunk.is_empty() {
                out.push(chunk[start..].to_string());
            }
        }
        out
    }

    #[test]
    fn words_across_a_block_edge_split_as_anywhere_else() {
        let words = "HTTPServer aB2Cd XMLHttpRequest9 utf8Decoder ABc A1b";
        for pad in 0..140 {
            for sep in [" ", "_", "x"] {
                let text = format!("{}{words}", sep.repeat(pad));
                assert_eq!(raw_words(&text), reference_words(&text), "{pad} {sep:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn byte_splitting_matches_the_char_definition(text in "[a-zA-Z0-9_ ./-]{0,40}") {
            proptest::prop_assert_eq!(raw_words(&text), reference_words(&text));
        }

        #[test]
        fn splitting_across_blocks_matches_the_char_definition(text in "[ -~\t\n]{0,300}") {
            proptest::prop_assert_eq!(raw_words(&text), reference_words(&text));
        }

        #[test]
        fn mixed_text_splitting_matches_the_char_definition(
            text in "([a-zA-Z0-9]{0,6}|[ _./-]|[éÉßİ—©ǅ٣ⅷ😀\u{a0}]){0,40}",
        ) {
            proptest::prop_assert_eq!(raw_words(&text), reference_words(&text));
        }

        #[test]
        fn long_text_splitting_matches_the_char_definition(
            text in "([a-z0-9]{1,12}|[A-Z][a-z]{0,5}|[A-Z0-9]{1,4}|[ _./,:`@\\[{~-]{1,3}){0,40}",
        ) {
            proptest::prop_assert_eq!(raw_words(&text), reference_words(&text));
        }
    }
}
