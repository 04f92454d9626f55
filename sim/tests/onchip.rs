//! The on-chip generator and checker in the native model: a
//! finite run delivers every message and passes; the checker catches
//! corruption; the LFSR is maximal; `pass` waits for the first epoch
//! check, the drain window is far longer than any drain, and the epoch
//! check counts per node.

use wormcast_sim::onchip::{
    lfsr_next, step_chk, Chk, GenOptions, OnChip, Plan, EPOCH, EPOCH_DRAIN, EPOCH_SEND, STRIDE,
};
use wormcast_sim::scenario::Scenario;

fn scenario(sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml("", &sets, "test").unwrap()
}

fn run_to_done(top: &mut OnChip, limit: u64) -> u64 {
    for c in 0..limit {
        if top.outputs().done || top.outputs().stall {
            return c;
        }
        top.step();
    }
    limit
}

#[test]
fn lfsr_is_maximal() {
    let mut x = 1u16;
    let mut n = 0u32;
    loop {
        x = lfsr_next(x);
        n += 1;
        if x == 1 {
            break;
        }
        assert_ne!(x, 0);
    }
    assert_eq!(n, 65_535);
}

#[test]
fn finite_runs_deliver_everything_and_pass() {
    for sets in [
        &["network.topology=torus:2x2"][..],
        &["network.topology=torus:3x3", "network.construction=dstm2"][..],
        &["network.topology=torus:3x3", "network.routing=spam"][..],
        &["network.topology=mesh:3x3", "network.routing=hamiltonian"][..],
        &[
            "network.topology=mesh:3x3",
            "network.routing=negative_first",
        ][..],
    ] {
        let opts = GenOptions {
            messages: 40,
            rate: 64,
            ..GenOptions::default()
        };
        let plan = Plan::new(&scenario(sets), opts).unwrap();
        let multi: usize = plan.pop.iter().flatten().filter(|&&p| p > 1).count();
        assert!(multi > 0, "{sets:?}: no multicast entry");
        let n = plan.topo.nodes();
        let mut top = OnChip::new(plan);
        let c = run_to_done(&mut top, 200_000);
        let o = top.outputs();
        assert!(o.done && !o.stall, "{sets:?}: {o:?} after {c} cycles");
        // `pass` once the epoch check after `done` has found every node's
        // count right.
        let next_check = (c / EPOCH as u64 + 1) * EPOCH as u64;
        for _ in c..next_check {
            assert!(!top.outputs().pass, "{sets:?}: pass before its check");
            top.step();
        }
        let o = top.outputs();
        assert!(
            o.done && o.pass,
            "{sets:?}: {o:?} after {next_check} cycles"
        );
        assert_eq!(o.sent, 40 * n, "{sets:?}");
        assert!(
            o.received > o.sent,
            "{sets:?}: multicasts deliver more than one copy"
        );
    }
}

#[test]
fn the_checker_catches_a_corrupted_payload() {
    let plan = Plan::new(
        &scenario(&["network.topology=torus:2x2"]),
        GenOptions::default(),
    )
    .unwrap();
    let fmt = plan.params.flit;
    // Entry 0 of node 1, sent to one of its destinations.
    let d = plan.dests[1][0][0] as usize;
    let tag = plan.tag(1, 0, 5);
    let mut c = Chk::default();
    let seen: Vec<_> = [tag, tag + STRIDE, tag + 2 * STRIDE + 1]
        .iter()
        .map(|&p| step_chk(&plan, d, &mut c, fmt.body(p)))
        .collect();
    assert_eq!(
        seen.iter().map(|k| k.bad).collect::<Vec<_>>(),
        [false, false, true]
    );
    // The good message: identity, two payloads, TAIL.
    let mut c = Chk::default();
    let seen: Vec<_> = (0..4)
        .map(|i| {
            let p = tag + i * STRIDE;
            step_chk(
                &plan,
                d,
                &mut c,
                if i == 3 { fmt.tail(p) } else { fmt.body(p) },
            )
        })
        .collect();
    assert!(seen.iter().all(|k| !k.bad));
    assert_eq!(seen.iter().filter(|k| k.good).count(), 1);
    // A message for a node not among its destinations.
    let other = (0..4)
        .find(|x| plan.dests[1][0].binary_search(x).is_err())
        .unwrap() as usize;
    let mut c = Chk::default();
    assert!(step_chk(&plan, other, &mut c, fmt.body(tag)).bad);
}

fn torus_2x2_forever() -> OnChip {
    let plan = Plan::new(
        &scenario(&["network.topology=torus:2x2", "network.flit_width=16"]),
        GenOptions {
            rate: 48,
            seed: 7,
            ..GenOptions::default()
        },
    )
    .unwrap();
    OnChip::new(plan)
}

/// Sending for ever: `pass` is 0 until the first epoch check, then 1 for
/// ten epochs; no message starts in a drain window, and every node's
/// count is zero at the end of each.
#[test]
fn pass_rises_at_the_first_epoch_check_and_holds() {
    let mut top = torus_2x2_forever();
    let mut sent_at_drain = 0;
    for c in 0..10 * EPOCH as u64 + 1 {
        let o = top.outputs();
        assert_eq!(o.pass, c >= EPOCH as u64, "cycle {c}: {o:?}");
        assert!(
            !o.mismatch && !o.stall && o.err_count == 0,
            "cycle {c}: {o:?}"
        );
        let ep = (c % EPOCH as u64) as u32;
        // Starts reach `sent` two edges after the generator (its event
        // register, then the counter).
        if ep == EPOCH_SEND + 2 {
            sent_at_drain = o.sent;
        } else if ep > EPOCH_SEND + 2 {
            assert_eq!(
                o.sent, sent_at_drain,
                "cycle {c}: a start in the drain window"
            );
        }
        if ep == EPOCH - 1 {
            assert!(
                top.owed.iter().all(|&x| x == 0),
                "cycle {c}: {:?}",
                top.owed
            );
            assert_eq!(o.expected, o.received, "cycle {c}");
        }
        top.step();
    }
    let o = top.outputs();
    assert!(o.sent > 3_000 && o.expected > o.sent, "{o:?}");
    eprintln!("2x2 rate 48: {o:?}; longest drain {} cycles", top.drain_max);
}

/// The drain window is far longer than the time the network takes to
/// deliver everything once no message starts, at the generator's full
/// rate on larger fabrics too (the figures of `EPOCH_DRAIN`'s doc).
#[test]
fn every_drain_ends_far_inside_the_drain_window() {
    for (sets, rate) in [
        (
            &["network.topology=torus:2x2", "network.flit_width=16"][..],
            48,
        ),
        (
            &["network.topology=torus:2x2", "network.flit_width=16"][..],
            256,
        ),
        (&["network.topology=torus:4x4"][..], 256),
        (
            &["network.topology=mesh:3x3", "network.routing=hamiltonian"][..],
            256,
        ),
    ] {
        let opts = GenOptions {
            rate,
            multicast: 0.5,
            ..GenOptions::default()
        };
        let mut top = OnChip::new(Plan::new(&scenario(sets), opts).unwrap());
        for _ in 0..3 * EPOCH + 1 {
            top.step();
        }
        let o = top.outputs();
        eprintln!(
            "{sets:?} rate {rate}: longest drain {} cycles; {o:?}",
            top.drain_max
        );
        assert!(o.pass && !o.mismatch && !o.stall, "{sets:?}: {o:?}");
        assert!(top.drain_max > 0, "{sets:?}: no delivery in a drain window");
        assert!(
            top.drain_max < EPOCH_DRAIN / 8,
            "{sets:?}: a drain of {} cycles",
            top.drain_max
        );
    }
}

/// The epoch check counts per node: a delivery missing at one node and
/// one too many at another leave the global counters equal (what the top
/// compared before), and still fail the check; so does one missing alone.
#[test]
fn the_epoch_check_counts_per_node() {
    for (lost, extra) in [(Some(1usize), Some(2usize)), (Some(3), None)] {
        let mut top = torus_2x2_forever();
        for _ in 0..EPOCH + 10 {
            top.step();
        }
        assert!(top.outputs().pass);
        // Mid send window of the second epoch.
        for _ in 0..EPOCH_SEND / 2 {
            top.step();
        }
        let mask = (1u32 << top.plan.owed_bits()) - 1;
        if let Some(d) = lost {
            top.owed[d] = top.owed[d].wrapping_add(1) & mask;
        }
        if let Some(d) = extra {
            top.owed[d] = top.owed[d].wrapping_sub(1) & mask;
        }
        let mut fell = None;
        for c in 0..EPOCH {
            if !top.outputs().pass {
                fell = Some(c);
                break;
            }
            top.step();
        }
        let o = top.outputs();
        eprintln!("lost {lost:?}, extra {extra:?}: pass fell after {fell:?} cycles: {o:?}");
        assert!(o.mismatch && !o.pass, "{o:?}");
        assert!(o.err_count == 0 && !o.stall, "{o:?}");
        assert_eq!(o.expected, o.received, "the global counters agree");
        // At the epoch's end, not before.
        assert_eq!(fell, Some(EPOCH - EPOCH_SEND / 2 - 10), "{o:?}");
        // Sticky.
        for _ in 0..2 * EPOCH {
            top.step();
        }
        assert!(top.outputs().mismatch && !top.outputs().pass);
    }
}
