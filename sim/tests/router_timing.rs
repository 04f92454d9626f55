//! Per-hop latency and streaming rate, measured on chains of routers inside
//! a whole Network (8×8 torus, DSTM-1, start-up latency 0), against the
//! figures documented in `sim/src/router/mod.rs`.
//!
//! What holds exactly (and is asserted here):
//! * a first HEAD takes 3 cycles per hop at every router that is not its
//!   target (one more than a data flit, for arbitration);
//! * any other flit (BODY, TAIL, trailing HEAD) takes 2 cycles per hop when
//!   its path is already reserved and nothing queues in front of it;
//! * but flits queued right behind a first HEAD cannot overtake it: they
//!   move at the HEAD's 3 cycles per hop until it is stripped, so a fresh
//!   worm on a free path arrives 3 cycles per hop after injection, then one
//!   flit per cycle (depth ≥ 2) — the claim "trailing HEADs take 2 cycles"
//!   only holds once the first HEAD is gone;
//! * depth ≥ 2 delivers one flit per cycle once the path is set up; depth 1
//!   one flit every 2 cycles, and each data hop then takes 3 cycles (the
//!   registered `ready` round trip), not 2.
//!
//! "Time at router v" = the first cycle a flit sits in one of v's output
//! registers (the link toward the next router, or the consumption channel).

// times[flit][router] tables read clearest with index loops.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;
use wormcast_sim::config::{Hop, RouterParams};
use wormcast_sim::flit::{self, Flit, Kind};
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;
use wormcast_sim::topology::NodeId;
use wormcast_sim::trees::SpanningTree;

fn network_with(depth: usize, strip_deferred: bool, hop: Hop) -> Network {
    let mut s = Scenario::default();
    s.network.strip_deferred = strip_deferred;
    s.network.hop = hop;
    s.network.topology = "torus:8x8".parse().unwrap();
    s.network.buffer_depth = depth;
    s.timing.startup_cycles = 0;
    s.traffic.pattern = "none".parse().unwrap();
    s.run.warmup = 0;
    s.run.cycles = 1000;
    Network::new(&s).unwrap()
}

/// A flit's identity across hops: S set at a split is ignored.
fn key(f: Flit) -> Flit {
    if flit::kind(f) == Kind::Head {
        f & !(1 << flit::S_BIT)
    } else {
        f
    }
}

/// Steps until the network is empty, recording for every (router, flit) the
/// first cycle the flit is in one of that router's output registers.
fn trace(net: &mut Network) -> HashMap<(NodeId, Flit), u64> {
    let mut seen = HashMap::new();
    let outs = net.v.params.outputs();
    for _ in 0..10_000 {
        net.step();
        let now = net.cycle();
        for r in 0..net.v.topo.nodes() {
            for o in 0..outs {
                let reg = net.fabric.state[r as usize].out[o];
                if reg.valid {
                    seen.entry((r, key(reg.flit))).or_insert(now);
                }
            }
        }
        if net.all_done() {
            return seen;
        }
    }
    panic!("network did not drain");
}

/// Tree path from `a` to `b` (both ends included).
fn path(t: &SpanningTree, a: NodeId, b: NodeId) -> Vec<NodeId> {
    let mut v = vec![a];
    let mut u = a;
    while let Some(d) = t.table(u).route(t.number[b as usize]) {
        u = t.topo.neighbor(u, d).unwrap();
        v.push(u);
    }
    assert_eq!(u, b);
    v
}

/// A unicast over the longest tree path from node 0, tree 0.
fn long_unicast(net: &Network) -> (NodeId, NodeId) {
    let t = &net.trees[0];
    let d = (1..t.topo.nodes())
        .max_by_key(|&d| t.distance(0, d))
        .unwrap();
    (0, d)
}

fn unicast_times(depth: usize, length: u32) -> (Vec<NodeId>, Vec<Flit>, Vec<Vec<u64>>) {
    unicast_times_hop(depth, length, Hop::Standard)
}

fn unicast_times_hop(
    depth: usize,
    length: u32,
    hop: Hop,
) -> (Vec<NodeId>, Vec<Flit>, Vec<Vec<u64>>) {
    let mut net = network_with(depth, false, hop);
    let (s, d) = long_unicast(&net);
    let id = net.submit(s, vec![d], length, Some(0)).unwrap();
    let m = net.msgs[id as usize].clone();
    let flits: Vec<Flit> = (0..m.total_flits(0))
        .map(|k| {
            wormcast_sim::network::ni::message_flit(
                &net.v.params.flit,
                &m.heads[0],
                m.length,
                id as u64,
                k,
            )
        })
        .collect();
    let p = path(&net.trees[0], s, d);
    let seen = trace(&mut net);
    let r = net
        .fabric
        .state
        .iter()
        .map(|s| s.err_count as u64)
        .sum::<u64>();
    assert_eq!(r, 0);
    // times[j][k]: flit j at router p[k] (the HEAD is stripped at the target).
    let times = flits
        .iter()
        .map(|&f| {
            p.iter()
                .filter_map(|&v| seen.get(&(v, key(f))).copied())
                .collect()
        })
        .collect();
    (p, flits, times)
}

fn hops(t: &[u64]) -> Vec<u64> {
    t.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn unicast_per_hop_latency_depth2() {
    let (p, flits, times) = unicast_times(2, 80);
    let h = p.len() - 1;
    assert!(h >= 5, "a long path: {h} hops");
    // The single HEAD: 3 cycles per hop at every router that is not its
    // target; it never reaches an output register of the target.
    assert_eq!(
        times[0].len(),
        h,
        "HEAD seen at every router but the target"
    );
    assert_eq!(hops(&times[0]), vec![3; h - 1], "first HEAD per hop");
    for (j, t) in times.iter().enumerate().skip(1) {
        assert_eq!(t.len(), h + 1, "flit {j} reaches every router");
        let hp = hops(t);
        // Every data hop is 2 (free) or 3 (queued behind the HEAD's
        // arbitration), and the last hop, after the HEAD was stripped, is 2.
        assert!(hp.iter().all(|&x| x == 2 || x == 3), "flit {j}: {hp:?}");
        assert_eq!(*hp.last().unwrap(), 2, "flit {j}: consumption hop");
        // Once a flit has a free path it keeps it: 3s first, then 2s.
        assert!(hp.windows(2).all(|w| w[0] >= w[1]), "flit {j}: {hp:?}");
    }
    // The first BODY sits right behind the HEAD: 3 cycles per hop until the
    // target strips the HEAD.
    let mut want = vec![3; h - 1];
    want.push(2);
    assert_eq!(hops(&times[1]), want, "first BODY");
    // The TAIL of an 80-flit worm travels on an established path: 2 per hop.
    assert_eq!(hops(times.last().unwrap()), vec![2; h], "TAIL");
    // Streaming: the destination consumes one flit per cycle, the whole worm.
    for j in 1..flits.len() - 1 {
        assert_eq!(times[j + 1][h] - times[j][h], 1, "consumption of flit {j}");
    }
    // Once the path is set up, every link carries one flit per cycle.
    let steady = flits.len() - 30;
    for k in 0..=h {
        for j in steady..flits.len() - 1 {
            assert_eq!(times[j + 1][k] - times[j][k], 1, "flit {j} router {k}");
        }
    }
    // End to end: HEAD at the source's output 4 cycles after submission
    // (NI register, injection FIFO, arbitration, output register), then
    // 3 per hop; the first BODY is consumed 3·h + 4 cycles after submission.
    assert_eq!(times[0][0], 4);
    assert_eq!(times[1][h], 3 * h as u64 + 4);
}

#[test]
fn depth1_halves_the_stream_rate() {
    let (p, flits, times) = unicast_times(1, 40);
    let h = p.len() - 1;
    for k in 0..=h {
        for j in 1..flits.len() - 1 {
            assert_eq!(
                times[j + 1][k] - times[j][k],
                2,
                "depth 1: flit {j} router {k}"
            );
        }
    }
    // The HEAD is as fast as at depth 2, but every data flit now takes 3
    // cycles per link hop (2 into the consumption channel).
    assert_eq!(hops(&times[0]), vec![3; h - 1]);
    let mut want = vec![3; h - 1];
    want.push(2);
    for (j, t) in times.iter().enumerate().skip(1) {
        assert_eq!(hops(t), want, "depth 1: flit {j}");
    }
}

/// Trailing HEADs: a multicast whose LCA lies 4 hops above the source
/// climbs with its first HEAD (for the LCA) in front and a trailing HEAD
/// right behind it. The first HEAD takes 3 cycles per hop; the trailing one
/// cannot overtake and also takes 3 per hop, but only 2 on the hop into the
/// LCA, where it follows a reservation whose first HEAD was stripped.
#[test]
fn trailing_head_latency() {
    let (first, second) = trailing_head_times(false);
    // First HEAD: 3 per hop up to the LCA, where it is stripped.
    assert_eq!(first.len(), 4);
    assert_eq!(hops(&first), vec![3; 3]);
    // Trailing HEAD: one cycle behind, 3 per hop, then 2 into the LCA.
    assert_eq!(second.len(), 5);
    assert_eq!(second[0], first[0] + 1);
    assert_eq!(hops(&second), vec![3, 3, 3, 2]);
}

/// The same worm with a deferred strip (`network.strip_deferred`): the
/// stripped first HEAD stays a cycle longer at the LCA, so the trailing
/// HEAD's hop into it takes 3 cycles instead of 2; nothing else moves.
#[test]
fn deferred_strip_latency() {
    let (first, second) = trailing_head_times(true);
    assert_eq!((first, second), {
        let (f, mut s) = trailing_head_times(false);
        s[4] += 1;
        (f, s)
    });
}

/// Times at the routers on the way up of a first HEAD and the trailing HEAD
/// right behind it (see [`trailing_head_latency`]).
fn trailing_head_times(strip_deferred: bool) -> (Vec<u64>, Vec<u64>) {
    trailing_head_times_hop(strip_deferred, Hop::Standard)
}

fn trailing_head_times_hop(strip_deferred: bool, hop: Hop) -> (Vec<u64>, Vec<u64>) {
    let mut net = network_with(2, strip_deferred, hop);
    let t = net.trees[0].clone();
    let anc = |mut u: NodeId, k: usize| {
        for _ in 0..k {
            u = t.parent[u as usize]?;
        }
        Some(u)
    };
    let (s, lca, other) = (0..t.topo.nodes())
        .filter_map(|s| {
            let lca = anc(s, 4)?;
            let other = (0..t.topo.nodes()).find(|&v| {
                v != lca && t.is_ancestor(lca, v) && !t.is_ancestor(v, s) && !t.is_ancestor(s, v)
            })?;
            Some((s, lca, other))
        })
        .next()
        .expect("a source with an ancestor 4 up that has another branch");
    let id = net.submit(s, vec![lca, other], 4, Some(0)).unwrap();
    let heads = net.msgs[id as usize].heads[0].clone();
    assert_eq!(flit::decode_head(heads[0]).node, t.number[lca as usize]);
    assert!(heads.len() >= 2);
    let up = path(&t, s, lca);
    assert_eq!(up.len(), 5);
    let seen = trace(&mut net);
    assert!(net.msgs[id as usize].complete());
    let at = |f: Flit| -> Vec<u64> {
        up.iter()
            .filter_map(|&v| seen.get(&(v, key(f))).copied())
            .collect()
    };
    (at(heads[0]), at(heads[1]))
}

/// The fast hop (`network.hop = "fast"`, docs/router.md): a first HEAD
/// takes 2 cycles per hop (its grant loads the output register), and the
/// flits right behind it move at its pace, so a fresh worm's first BODY is
/// consumed 2·h + 4 cycles after submission instead of 3·h + 4; the
/// stream is still one flit per cycle.
#[test]
fn fast_unicast_per_hop_latency_depth2() {
    let (p, flits, times) = unicast_times_hop(2, 40, Hop::Fast);
    let h = p.len() - 1;
    assert!(h >= 5, "a long path: {h} hops");
    assert_eq!(
        times[0].len(),
        h,
        "HEAD seen at every router but the target"
    );
    assert_eq!(hops(&times[0]), vec![2; h - 1], "first HEAD per hop");
    for (j, t) in times.iter().enumerate().skip(1) {
        assert_eq!(t.len(), h + 1, "flit {j} reaches every router");
        assert_eq!(hops(t), vec![2; h], "flit {j}: behind the HEAD's pace");
    }
    // One cycle less at the source too: NI register, injection FIFO, then
    // the grant loads the output register.
    assert_eq!(times[0][0], 3);
    assert_eq!(times[1][h], 2 * h as u64 + 4);
    for j in 1..flits.len() - 1 {
        assert_eq!(times[j + 1][h] - times[j][h], 1, "consumption of flit {j}");
    }
    // Against the default contract: h cycles less for every flit.
    let (_, _, slow) = unicast_times(2, 40);
    for j in 1..flits.len() {
        assert_eq!(slow[j][h] - times[j][h], h as u64, "flit {j}");
    }
}

/// The fast hop's FIFO bypass, at one router: a BODY arriving at the
/// empty FIFO of an input that holds its output is in that output
/// register after the same edge (1 cycle per hop), where the default
/// contract queues it for a cycle; a TAIL so bypassed also releases the
/// output. With the output busy it waits in the FIFO as before.
#[test]
fn fast_body_bypasses_an_empty_fifo() {
    use wormcast_sim::router::{self, InState, RouterInputs, RouterState};
    let net = network_with(2, false, Hop::Fast);
    let cfg = &net.fabric.cfg[0];
    let fast = net.v.params;
    let standard = RouterParams {
        hop: Hop::Standard,
        ..fast
    };
    let fmt = fast.flit;
    // Input 0 (a link) holds output 4 (a consumption channel, which every
    // input can reach).
    let mut held = RouterState::reset();
    held.inp[0].state = InState::Active;
    held.inp[0].reserved = 1 << 4;
    held.out[4].owner = 0;
    let offer = |f: Flit, ready: bool| {
        let mut io = RouterInputs::default();
        io.flit[0] = f;
        io.valid[0] = true;
        io.ready = [ready; 8];
        io
    };
    let body = fmt.body(5);
    let mut next = RouterState::reset();
    router::step(cfg, &fast, &held, &offer(body, true), &mut next);
    assert!(
        next.out[4].valid && next.out[4].flit == body,
        "fast: loaded at arrival"
    );
    assert!(next.inp[0].fifo.is_empty() && next.inp[0].ready);
    router::step(cfg, &standard, &held, &offer(body, true), &mut next);
    assert!(!next.out[4].valid, "standard: queued");
    assert_eq!(next.inp[0].fifo.len(), 1);
    // A TAIL bypasses and releases.
    let tail = fmt.tail(6);
    router::step(cfg, &fast, &held, &offer(tail, true), &mut next);
    assert!(next.out[4].valid && next.out[4].flit == tail);
    assert_eq!(next.out[4].owner, router::NO_OWNER);
    assert_eq!(next.inp[0].state, InState::Idle);
    // Output busy (holds a flit that does not leave): the BODY queues.
    let mut busy = held;
    busy.out[4].valid = true;
    busy.out[4].flit = fmt.body(1);
    router::step(cfg, &fast, &busy, &offer(body, false), &mut next);
    assert_eq!(next.out[4].flit, fmt.body(1));
    assert_eq!(
        next.inp[0].fifo.len(),
        1,
        "fast: queued behind a full output"
    );
    // A trailing HEAD never bypasses (its split rule is a decode).
    let head = fmt.head(flit::Head {
        node: 1,
        c: true,
        o: 0,
        s: false,
        class: 0,
    });
    router::step(cfg, &fast, &held, &offer(head, true), &mut next);
    assert!(!next.out[4].valid, "trailing HEAD: queued");
}

/// At depth 1 the source's injection FIFO passes one flit every 2 cycles
/// (the registered `ready` round trip; the bypass serves link inputs
/// only), so a stream has a gap behind every flit. With the fast hop each
/// BODY or TAIL then finds the next FIFO empty: once the flits queued
/// behind the HEAD have drained, every data hop takes exactly 1 cycle,
/// where the standard contract takes 3 (`depth1_halves_the_stream_rate`).
#[test]
fn fast_depth1_streams_through_the_bypass() {
    let (p, flits, times) = unicast_times_hop(1, 40, Hop::Fast);
    let h = p.len() - 1;
    assert_eq!(hops(&times[0]), vec![2; h - 1]);
    for (j, t) in times.iter().enumerate().skip(1) {
        assert!(hops(t).iter().all(|&x| x == 1 || x == 2), "flit {j}: {t:?}");
    }
    let last = flits.len() - 1;
    for j in last - 10..=last {
        assert_eq!(hops(&times[j]), vec![1; h], "flit {j}: 1 cycle a hop");
    }
    for j in last - 10..last {
        assert_eq!(times[j + 1][h] - times[j][h], 2, "consumption of flit {j}");
    }
}

/// A trailing HEAD right behind a first HEAD (see
/// [`trailing_head_latency`]) with the fast hop: 2 per hop for both.
#[test]
fn fast_trailing_head_latency() {
    let (first, second) = trailing_head_times_hop(false, Hop::Fast);
    assert_eq!(hops(&first), vec![2; 3]);
    assert_eq!(second[0], first[0] + 1);
    assert_eq!(hops(&second), vec![2; 4]);
}
