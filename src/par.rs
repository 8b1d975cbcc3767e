//! Spreading pure, CPU-bound work over the cores: a slice is cut into contiguous chunks, each
//! chunk is mapped on its own thread, and the results come back in input order, so the outcome
//! is the same as a sequential map; for items of very uneven cost, [`map_balanced_by`] hands
//! them out one at a time instead, and [`on_all_cores`] streams their results back to the calling
//! thread as they come. Two independent jobs run side by side with [`beside`]; big drops go to
//! the background ([`drop_later`]). Owns only the threading; callers own the work.

/// At most this many threads, however many cores there are.
const MAX_THREADS: usize = 8;

/// The cores this process may use, asked once (`available_parallelism` reads cgroup files each
/// time: thousands of instructions, and small parses call this often).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How many threads `jobs` jobs handed out one at a time get: one per core, within
/// [`MAX_THREADS`], no more than the jobs, at least one.
pub(crate) fn threads_for(jobs: usize) -> usize {
    cores().min(MAX_THREADS).min(jobs).max(1)
}

/// Map `f(offset, chunk)` over contiguous chunks of `items` (`offset`: the index of the chunk's
/// first item), one chunk per available core, results in order. Small inputs (fewer than
/// `min_chunk` items per chunk) use fewer chunks; a single chunk runs on the calling thread. A
/// thread that cannot be started runs its chunk on the calling thread instead.
pub(crate) fn map_chunks<T, R, F>(items: &[T], min_chunk: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &[T]) -> R + Sync,
{
    let cores = cores();
    let chunks = (items.len() / min_chunk.max(1)).clamp(1, cores.min(MAX_THREADS));
    if chunks == 1 {
        return vec![f(0, items)];
    }
    let size = items.len().div_ceil(chunks);
    let f = &f;
    std::thread::scope(|s| {
        let started: Vec<_> = items
            .chunks(size)
            .enumerate()
            .map(|(k, chunk)| {
                let offset = k * size;
                let thread = std::thread::Builder::new().spawn_scoped(s, move || f(offset, chunk));
                (offset, chunk, thread)
            })
            .collect();
        started
            .into_iter()
            .map(|(offset, chunk, thread)| match thread {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => f(offset, chunk),
            })
            .collect()
    })
}

/// `f` of every item, in order, spread over the cores (see [`map_chunks`]; one item per chunk
/// at least).
pub(crate) fn map_each<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    map_chunks(items, 1, |_, chunk| {
        chunk.iter().map(&f).collect::<Vec<R>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `f` of every item, in input order, the items handed out one at a time to whichever thread
/// is free (the calling thread works too), costliest first (by `cost`, an estimate; equal costs
/// in input order): for items of very uneven cost, where [`map_each`]'s fixed chunks, or a big
/// item started last, would leave one core idle while another finishes. If a thread cannot be
/// started, the others (at least the calling one) take its share.
pub(crate) fn map_balanced_by<T, R, C, F>(items: &[T], cost: C, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    C: Fn(&T) -> usize,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads_for(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    on_all_cores(
        &order,
        vec![(); threads],
        |i, _| f(&items[i]),
        |i, r| {
            slots[i] = Some(r);
        },
    );
    slots.into_iter().flatten().collect()
}

/// `a` on a second thread while `b` runs on this one, and both results: two independent
/// reads or writes (of two parts of one buffer, say), each waiting for its own I/O. When no
/// thread can be started, `a` runs here after `b`; a panic in `a` goes on here.
pub(crate) fn beside<RA, RB>(a: impl FnOnce() -> RA + Send, b: impl FnOnce() -> RB) -> (RA, RB)
where
    RA: Send,
{
    // Whichever thread runs `a` takes it from here: the second one, or this one when the
    // second could not be started.
    let slot = std::sync::Mutex::new(Some(a));
    let run = || {
        let a = slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        a.map(|a| a())
    };
    std::thread::scope(|s| {
        let started = std::thread::Builder::new().spawn_scoped(s, run);
        let rb = b();
        let ra = match started {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => run(),
        };
        (
            ra.expect("`a` is taken once, by the thread that runs it"),
            rb,
        )
    })
}

/// Drop `value` on a background thread and return at once: freeing a large collection of
/// small allocations is work the caller need not wait for (the thread is not joined; if it
/// cannot be started, `value` is dropped here, with the closure that failed to start).
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    let _started = std::thread::Builder::new().spawn(move || drop(value));
}

/// `work` done for each of `jobs`, in order, one at a time by whichever thread is free: one
/// thread per entry of `states` (the first is the calling thread; none: nothing is done), each
/// keeping its state from job to job. `put` gets each result on the calling thread as it comes,
/// between jobs of its own: there is no barrier. A thread that cannot be started leaves its
/// share to the others; a panic in one goes on here once the others are done.
pub(crate) fn on_all_cores<J: Copy + Send + Sync, S: Send, R: Send>(
    jobs: &[J],
    states: Vec<S>,
    work: impl Fn(J, &mut S) -> R + Sync,
    mut put: impl FnMut(J, R),
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let take = || jobs.get(next.fetch_add(1, Ordering::Relaxed)).copied();
    let mut states = states.into_iter();
    let Some(mut mine) = states.next() else {
        return;
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for mut state in states {
            let (tx, take, work) = (tx.clone(), &take, &work);
            let _started = std::thread::Builder::new().spawn_scoped(s, move || {
                while let Some(job) = take() {
                    if tx.send((job, work(job, &mut state))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        while let Some(job) = take() {
            put(job, work(job, &mut mine));
            while let Ok((job, r)) = rx.try_recv() {
                put(job, r);
            }
        }
        for (job, r) in rx {
            put(job, r);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_is_done_once_and_put_on_the_calling_thread() {
        let jobs: Vec<usize> = (0..1000).collect();
        let caller = std::thread::current().id();
        for threads in [1, 3] {
            let mut got = Vec::new();
            on_all_cores(
                &jobs,
                vec![0usize; threads],
                |j, n| {
                    *n += 1;
                    j * 2
                },
                |j, r| {
                    assert_eq!(std::thread::current().id(), caller);
                    got.push((j, r));
                },
            );
            got.sort_unstable();
            assert_eq!(got, jobs.iter().map(|&j| (j, j * 2)).collect::<Vec<_>>());
        }
        on_all_cores(
            &jobs,
            Vec::<()>::new(),
            |_, _| 0,
            |_, _| panic!("no thread"),
        );
    }

    #[test]
    fn beside_gives_both_results_and_passes_a_panic_on() {
        let here = std::thread::current().id();
        let (a, b) = beside(
            || std::thread::current().id(),
            || std::thread::current().id(),
        );
        assert_eq!(b, here);
        assert_ne!(a, here, "a runs on another thread");
        let caught = std::panic::catch_unwind(|| beside(|| panic!("in a"), || 1));
        assert!(caught.is_err());
    }

    #[test]
    fn beside_writes_two_parts_of_one_buffer_and_takes_what_a_owns() {
        let mut buf = vec![0u8; 8];
        let (front, back) = buf.split_at_mut(3);
        let owned = vec![7u8; 5];
        let (n, ()) = beside(
            move || {
                back.copy_from_slice(&owned);
                owned.len()
            },
            || front.fill(1),
        );
        assert_eq!(n, 5);
        assert_eq!(buf, [1, 1, 1, 7, 7, 7, 7, 7]);
    }

    #[test]
    fn same_result_as_a_sequential_map_in_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let sums = map_chunks(&items, 100, |offset, c| {
            assert_eq!(c[0], offset as u64);
            c.iter().sum::<u64>()
        });
        assert_eq!(sums.iter().sum::<u64>(), items.iter().sum::<u64>());
        let flat: Vec<u64> = map_chunks(&items, 100, |_, c| c.to_vec())
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(flat, items);
    }

    #[test]
    fn map_each_keeps_order() {
        let items: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
        let lens = map_each(&items, |s| s.len());
        assert_eq!(lens, items.iter().map(String::len).collect::<Vec<_>>());
        assert!(map_each(&[] as &[u8], |b| *b).is_empty());
    }

    #[test]
    fn map_balanced_keeps_order_and_drop_later_drops() {
        let items: Vec<u64> = (0..3000).collect();
        // Uneven costs: the late items are far dearer than the early ones.
        let got = map_balanced_by(
            &items,
            |_| 0,
            |&i| (0..i).fold(i, |a, b| a ^ b.wrapping_mul(31)),
        );
        let want: Vec<u64> = items
            .iter()
            .map(|&i| (0..i).fold(i, |a, b| a ^ b.wrapping_mul(31)))
            .collect();
        assert_eq!(got, want);
        assert!(map_balanced_by(&[] as &[u8], |_| 0, |b| *b).is_empty());
        assert_eq!(map_balanced_by(&[7u8], |_| 0, |b| *b + 1), [8]);
        let by_cost = map_balanced_by(&items, |&i| (i % 7) as usize, |&i| i * 2);
        assert_eq!(by_cost, items.iter().map(|&i| i * 2).collect::<Vec<_>>());

        let (tx, rx) = std::sync::mpsc::channel();
        struct Signal(std::sync::mpsc::Sender<()>);
        impl Drop for Signal {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        drop_later(vec![Signal(tx.clone()), Signal(tx)]);
        for _ in 0..2 {
            rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
        }
    }

    #[test]
    fn small_and_empty_inputs_use_one_chunk() {
        assert_eq!(map_chunks(&[1, 2, 3], 100, |_, c| c.len()), [3]);
        assert_eq!(map_chunks(&[] as &[u8], 100, |_, c| c.len()), [0]);
    }
}
