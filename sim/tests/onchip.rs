//! The on-chip generator and checker in the native model (issue 13): a
//! finite run delivers every message and passes; the checker catches
//! corruption; the LFSR is maximal.

use wormcast_sim::onchip::{lfsr_next, step_chk, Chk, GenOptions, OnChip, Plan, STRIDE};
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
        assert!(o.done && o.pass, "{sets:?}: {o:?} after {c} cycles");
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
