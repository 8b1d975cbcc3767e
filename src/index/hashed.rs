//! [`HashedIds`]: a term id per word hash, for words met before (the [`super::facts::Lexicon`]'s
//! memory of the words it has turned into terms). Owns only the table; the hash is
//! [`super::text::word_hash`]'s, and what a word's term is, [`super::text::term_of`]'s.
//!
//! A project of 35,000 files writes millions of distinct words: the table is tens of
//! megabytes, so almost every lookup of a word not among the most common misses the cache.
//! One slot holds both the key and the id (one miss per lookup, not one for a control byte and
//! one for the entry), and [`HashedIds::prefetch`] lets a caller that knows its next keys ask
//! for their slots ahead, so the misses overlap.

/// Term ids by a nonzero 64-bit word hash: open addressing, linear probing, at most half full.
#[derive(Default)]
pub(crate) struct HashedIds {
    slots: Vec<Entry>,
    len: usize,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    /// 0: empty.
    hash: u64,
    id: u32,
}

impl HashedIds {
    /// The id kept for `hash` (nonzero), if any.
    #[inline]
    pub(crate) fn get(&self, hash: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let e = self.slots[i];
            if e.hash == hash {
                return Some(e.id);
            }
            if e.hash == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keep `id` for `hash` (nonzero; a hash already kept keeps its first id).
    pub(crate) fn insert(&mut self, hash: u64, id: u32) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].hash != 0 {
            if self.slots[i].hash == hash {
                return;
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = Entry { hash, id };
        self.len += 1;
    }

    /// Ask the processor to bring the slot `hash` is looked for first into the cache, without
    /// waiting for it: a later [`HashedIds::get`] of it then finds it there.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        let slot = &self.slots[hash as usize & (self.slots.len() - 1)];
        prefetch_read(slot);
    }

    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![Entry::default(); n]);
        self.len = 0;
        for e in old.into_iter().filter(|e| e.hash != 0) {
            self.insert(e.hash, e.id);
        }
    }
}

/// A hint that `value` will be read soon; no effect on the program's results.
#[inline(always)]
pub(crate) fn prefetch_read<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; the pointer comes
    // from a reference.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::HashedIds;

    #[test]
    fn keeps_the_first_id_of_each_hash_through_growth() {
        // Word hashes have their top bit set.
        let h = |k: u64| k | 1 << 63;
        let mut t = HashedIds::default();
        assert_eq!(t.get(h(3)), None);
        for k in 0..5000u64 {
            t.insert(h(k), k as u32);
        }
        t.insert(h(7), 99);
        for k in 0..5000u64 {
            t.prefetch(h(k));
            assert_eq!(t.get(h(k)), Some(k as u32));
        }
        assert_eq!(t.get(h(5000)), None);
        assert_eq!(t.get(h(7)), Some(7));
    }

    #[test]
    fn colliding_slots_are_told_apart() {
        let mut t = HashedIds::default();
        // Equal in their low ten bits, so they share a first slot in a 1024-slot table.
        let (a, b, c) = (5 | 1 << 63, 5 | 1 << 63 | 1 << 40, 5 | 1 << 63 | 1 << 41);
        t.insert(a, 1);
        t.insert(b, 2);
        t.insert(c, 3);
        assert_eq!((t.get(a), t.get(b), t.get(c)), (Some(1), Some(2), Some(3)));
        assert_eq!(t.get(5 | 1 << 63 | 1 << 42), None);
    }
}
