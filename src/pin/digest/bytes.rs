//! A digest's bytes (the layout is in the parent module's doc): writing them, and reading them
//! back only when they are whole, of this version and of the Pin text at hand.

use super::{Digest, ENTRY, EntryStat, FIELDS, HEADER, MAGIC, VERSION, check, text_hash};

/// Little-endian numbers read from the front of a byte slice.
struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let out = *self.b.get(self.at..)?.first_chunk::<N>()?;
        self.at += N;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }

    fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
}

/// The counts the header gives.
struct Counts {
    entries: usize,
    terms: usize,
    words: usize,
    lists: usize,
    totals: [u64; FIELDS],
}

impl Digest {
    /// The bytes that [`Digest::from_bytes`] reads back with the Pin `text` it was built from.
    pub(crate) fn to_bytes(&self, text: &str) -> Vec<u8> {
        let (words, lists) = self.kept();
        let mut body = Vec::with_capacity(
            self.entries.len() * ENTRY + self.word_ends.len() * 8 + words.len() + lists.len(),
        );
        for e in &self.entries {
            body.extend_from_slice(&(e.start as u64).to_le_bytes());
            body.extend_from_slice(&(e.line as u64).to_le_bytes());
            for l in e.len {
                body.extend_from_slice(&l.to_le_bytes());
            }
            body.extend_from_slice(&u32::from(e.aside).to_le_bytes());
        }
        for end in self.word_ends.iter().chain(&self.list_ends) {
            body.extend_from_slice(&end.to_le_bytes());
        }
        body.extend_from_slice(words);
        body.extend_from_slice(lists);
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        let numbers = [
            text.len() as u64,
            text_hash(text),
            self.entries.len() as u64,
            self.word_ends.len() as u64,
            words.len() as u64,
            lists.len() as u64,
        ];
        for v in numbers.into_iter().chain(self.totals) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&check(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// The digest `bytes` hold, when they are whole, of this version and of the Pin `text`.
    pub(crate) fn from_bytes(bytes: Vec<u8>, text: &str) -> Option<Digest> {
        let mut r = Reader { b: &bytes, at: 0 };
        let fits = r.take::<8>()? == *MAGIC
            && r.u32()? == VERSION
            && r.u64()? == text.len() as u64
            && r.u64()? == text_hash(text);
        let counts = Counts {
            entries: r.usize()?,
            terms: r.usize()?,
            words: r.usize()?,
            lists: r.usize()?,
            totals: [r.u64()?, r.u64()?, r.u64()?],
        };
        let sum = r.u64()?;
        let body = counts
            .entries
            .checked_mul(ENTRY)?
            .checked_add(counts.terms.checked_mul(8)?)?
            .checked_add(counts.words)?
            .checked_add(counts.lists)?;
        if !fits || HEADER.checked_add(body)? != bytes.len() || check(&bytes[HEADER..]) != sum {
            return None;
        }
        // Each list sized once (the counts fit the bytes): a list grown step by step lands in
        // fresh memory at every step, which the allocator and the kernel pay for.
        let mut entries = Vec::with_capacity(counts.entries);
        for _ in 0..counts.entries {
            entries.push(read_entry(&mut r)?);
        }
        let mut ends = |n: usize| {
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(r.u32()?);
            }
            Some(out)
        };
        let (word_ends, list_ends) = (ends(counts.terms)?, ends(counts.terms)?);
        let words_at = HEADER + counts.entries * ENTRY + counts.terms * 8;
        let d = Digest {
            entries,
            totals: counts.totals,
            word_ends,
            list_ends,
            bytes,
            words_at,
            lists_at: words_at + counts.words,
        };
        d.is_sound(&counts).then_some(d)
    }

    /// Whether what was read holds together: the ends ascend to the lengths the header gives,
    /// the terms ascend, and the totals are the entries' sums.
    fn is_sound(&self, c: &Counts) -> bool {
        let ascending = |ends: &[u32], len: usize| {
            ends.windows(2).all(|w| w[0] < w[1])
                && ends.last().map_or(0, |&e| e as usize) == len
                && ends.first().is_none_or(|&e| e > 0)
        };
        let mut totals = [0u64; FIELDS];
        for e in &self.entries {
            for (t, l) in totals.iter_mut().zip(e.len) {
                *t += u64::from(l);
            }
        }
        ascending(&self.word_ends, c.words)
            && ascending(&self.list_ends, c.lists)
            && (1..self.word_ends.len()).all(|i| self.word(i - 1) < self.word(i))
            && totals == self.totals
    }
}

fn read_entry(r: &mut Reader<'_>) -> Option<EntryStat> {
    let start = r.usize()?;
    let line = r.usize()?;
    let len = [r.u32()?, r.u32()?, r.u32()?];
    let aside = match r.u32()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    Some(EntryStat {
        start,
        line,
        len,
        aside,
    })
}
