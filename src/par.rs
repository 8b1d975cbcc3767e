//! Spreading pure, CPU-bound work over the cores: a slice is cut into contiguous chunks, each
//! chunk is mapped on its own thread, and the results come back in input order, so the outcome
//! is the same as a sequential map. Owns only the threading; callers own the work.

/// At most this many threads, however many cores there are.
const MAX_THREADS: usize = 8;

/// Map `f(offset, chunk)` over contiguous chunks of `items` (`offset`: the index of the chunk's
/// first item), one chunk per available core, results in order. Small inputs (fewer than
/// `min_chunk` items per chunk) use fewer chunks; a single chunk runs on the calling thread. A
/// thread that cannot be started runs its chunk on the calling thread instead.
pub fn map_chunks<T, R, F>(items: &[T], min_chunk: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &[T]) -> R + Sync,
{
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn small_and_empty_inputs_use_one_chunk() {
        assert_eq!(map_chunks(&[1, 2, 3], 100, |_, c| c.len()), [3]);
        assert_eq!(map_chunks(&[] as &[u8], 100, |_, c| c.len()), [0]);
    }
}
