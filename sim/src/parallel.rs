//! Independent runs in parallel across threads (a sweep's points, golden
//! cases; one run's own threads are `fabric::stripes`). Each item is computed
//! by exactly one thread and results come back in item order, so the
//! output is the same for any thread count.

/// `f` of every item on up to `threads` threads, results in item order.
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                *slots[i].lock().expect("slot lock") = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().expect("slot lock").expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn order_and_results_do_not_depend_on_threads() {
        let items: Vec<u64> = (0..37).collect();
        let one = super::map(&items, 1, |&x| x * x + 1);
        for t in [2, 3, 8, 64] {
            assert_eq!(super::map(&items, t, |&x| x * x + 1), one);
        }
        assert_eq!(one[5], 26);
        assert!(super::map(&Vec::<u8>::new(), 4, |&x| x).is_empty());
    }
}
