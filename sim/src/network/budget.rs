//! The memory budget of a run (`run.max_messages`): a network keeps every
//! message it creates until the run ends (the scoreboard checks each
//! delivery against it; the per-message CSV and the statistics read it),
//! so memory grows with the messages created. An offered load past the
//! network's capacity makes the source queues, and with them this record,
//! grow by up to one message per node per cycle: an 8×8 torus at
//! `traffic.rate = 1` takes about 1 GB every 4 s. Without a bound such a
//! run ends killed by the kernel or an allocation failure under
//! `ulimit -v`, and its report is lost. The budget stops it instead, the
//! way an interrupt does, and the report is written.

/// The largest `run.max_messages`: message ids are 32 bits, and the run
/// may pass the budget by one cycle's messages before it stops.
pub const MAX_MESSAGES: u64 = 4_000_000_000;

/// Bytes one message costs, as budgeted: measured at about 240 for a
/// unicast on an 8×8 torus (`run --set traffic.rate=1`, 7.66 M messages
/// at 1.86 GB resident); a multicast's destination list and delivery
/// times add to that, so the budget counts twice as much.
pub const BUDGET_BYTES_PER_MESSAGE: u64 = 512;

/// The budget when nothing else says: the messages a quarter of the
/// memory this process may use holds ([`BUDGET_BYTES_PER_MESSAGE`] each),
/// the memory being the smallest of the memory available
/// (`MemAvailable`), the address-space limit and the data-size limit
/// (`ulimit -v`, `ulimit -d`). The rest is left for the fabric, the
/// statistics and the outputs. Without `/proc` (not Linux) 4 GiB is
/// assumed. At least 100 000 messages, at most [`MAX_MESSAGES`].
pub fn auto_max_messages() -> u64 {
    shared_max_messages(1)
}

/// The default budget of each of `ways` runs held in memory at once (the
/// parallel points of a sweep): [`auto_max_messages`]'s memory divided
/// between them, so that the points together stay within it. Each run
/// measuring the free memory for itself would let every point of a sweep
/// that starts at once count on all of it.
pub fn shared_max_messages(ways: usize) -> u64 {
    let bytes = [
        meminfo_available(),
        limit("Max address space"),
        limit("Max data size"),
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap_or(4 << 30);
    (bytes / 4 / BUDGET_BYTES_PER_MESSAGE / ways.max(1) as u64).clamp(100_000, MAX_MESSAGES)
}

/// `MemAvailable` of `/proc/meminfo` in bytes.
fn meminfo_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A soft limit of `/proc/self/limits` in bytes (`None`: unlimited or
/// unknown).
fn limit(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_budget_is_within_its_bounds() {
        let b = auto_max_messages();
        assert!((100_000..=MAX_MESSAGES).contains(&b), "{b}");
    }

    #[test]
    fn a_shared_budget_is_a_share() {
        let (one, four) = (shared_max_messages(1), shared_max_messages(4));
        // Free memory moves between the two readings; a quarter within 10 %.
        let want = (one / 4).max(100_000) as f64;
        assert!(
            (four as f64 - want).abs() <= 0.1 * want,
            "{one} / 4 vs {four}"
        );
        assert!(shared_max_messages(1 << 40) == 100_000);
    }
}
