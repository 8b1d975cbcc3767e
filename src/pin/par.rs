//! Data parallelism for generation: mapping over a slice and freeing large collections on all
//! cores with `std::thread::scope`, in order, so results do not depend on scheduling. Owns no
//! policy; used by [`super::discover`] and [`super::keywords`].

fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
}

/// `f` of every item, in order, spread over the available cores (a contiguous chunk each).
pub fn par_map<T: Sync, R: Send + Default>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunk = items.len().div_ceil(workers()).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| {
                (
                    c.len(),
                    s.spawn(move || c.iter().map(f).collect::<Vec<_>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(len, h)| match h.join() {
                Ok(v) => v,
                // The callers' functions do not panic; were one to, its chunk gets defaults.
                Err(_) => (0..len).map(|_| R::default()).collect(),
            })
            .collect()
    })
}

/// Drop `items` on all cores (for large collections of small allocations).
pub fn par_drop<T: Send>(mut items: Vec<T>) {
    let chunk = items.len().div_ceil(workers()).max(1);
    std::thread::scope(|s| {
        while items.len() > chunk {
            let tail = items.split_off(items.len() - chunk);
            s.spawn(move || drop(tail));
        }
        drop(items);
    });
}
