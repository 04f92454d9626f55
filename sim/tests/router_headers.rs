//! Single-router tests of every header case of docs/architecture.md §3, driving
//! `router::step` directly with a router configuration taken from a real
//! DSTM-1 tree pair on a 4×4 torus.

mod common;

use common::*;
use wormcast_sim::flit::{self, Kind};
use wormcast_sim::router::{InState, NO_OWNER};
use wormcast_sim::topology::Dir;

/// Destination only (C = 1, no O bit): the HEAD is stripped and the data
/// goes to the consumption channel of the worm's class, nowhere else.
#[test]
fn destination_goes_to_consumption_channel_of_its_class() {
    let pair = dstm1_4x4();
    let mut seen = Vec::new();
    for class in 0..2u8 {
        let t = &pair.trees[class as usize];
        let u = inner_node(t);
        let inp = t.parent_port[u as usize].unwrap().index();
        let mut h = Harness::at(&pair, u);
        assert_eq!(h.cfg.in_class[inp], Some(class));
        let d = data(10, 3);
        h.offer(inp, &[head(t.number[u as usize], true, 0, false, class)]);
        h.offer(inp, &d);
        h.drain(100);
        let c = cons(&h.p, class);
        assert_eq!(h.used_outputs(), vec![c], "class {class}");
        assert_eq!(h.on(c), d, "HEAD stripped, data intact, in order");
        assert_eq!(h.st.err_count, 0);
        seen.push(c);
    }
    assert_ne!(
        seen[0], seen[1],
        "each class has its own consumption channel"
    );
}

/// Split (two O bits): both links are reserved in the same cycle; trailing
/// HEADs go only toward their Node, with S set; BODY/TAIL are replicated.
#[test]
fn split_reserves_both_links_atomically_and_steers_trailing_heads() {
    let pair = dstm1_4x4();
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let (a, b) = (kids[0], kids[1]);
    let inp = t.parent_port[u as usize].unwrap().index();
    let mut h = Harness::at(&pair, u);
    let ha = head(below(t, u, a), true, 0, false, 0);
    let hb = head(below(t, u, b), true, 0, false, 0);
    let d = data(50, 4);
    h.offer(
        inp,
        &[head(t.number[u as usize], false, bit(a) | bit(b), false, 0)],
    );
    h.offer(inp, &[ha, hb]);
    h.offer(inp, &d);
    let mut grant_cycle = None;
    for _ in 0..100 {
        let act = h.tick();
        let (oa, ob) = (h.st.out[a.index()].owner, h.st.out[b.index()].owner);
        // Atomic: never one of the two without the other.
        assert_eq!(oa == inp as u8, ob == inp as u8, "cycle {}", h.cycle);
        if act.granted >> inp & 1 == 1 {
            assert!(grant_cycle.is_none(), "one grant per worm");
            grant_cycle = Some(h.cycle);
            assert_eq!(h.st.inp[inp].reserved, bit(a) | bit(b));
        }
        if h.idle() {
            break;
        }
    }
    assert!(grant_cycle.is_some());
    assert!(h.idle(), "TAIL released both outputs");
    let mut want_a = vec![flit::set_s(ha)];
    want_a.extend(&d);
    let mut want_b = vec![flit::set_s(hb)];
    want_b.extend(&d);
    assert_eq!(h.on(a.index()), want_a);
    assert_eq!(h.on(b.index()), want_b);
    assert_eq!(h.used_outputs().len(), 2);
}

/// Destination and split: consumption plus two links, all in one grant;
/// the consumption channel sees only the data.
#[test]
fn destination_and_split() {
    let pair = dstm1_4x4();
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let (a, b) = (kids[0], kids[1]);
    let inp = t.parent_port[u as usize].unwrap().index();
    let mut h = Harness::at(&pair, u);
    let c = cons(&h.p, 0);
    let ha = head(below(t, u, a), true, 0, false, 0);
    let hb = head(below(t, u, b), true, 0, false, 0);
    let d = data(7, 2);
    h.offer(
        inp,
        &[head(t.number[u as usize], true, bit(a) | bit(b), false, 0)],
    );
    // Trailing HEADs in the other port order, to show steering by Node.
    h.offer(inp, &[hb, ha]);
    h.offer(inp, &d);
    let mut granted = false;
    for _ in 0..100 {
        let act = h.tick();
        if act.granted >> inp & 1 == 1 {
            granted = true;
            for o in [a.index(), b.index(), c] {
                assert_eq!(h.st.out[o].owner, inp as u8);
            }
        }
        if h.idle() {
            break;
        }
    }
    assert!(granted && h.idle());
    assert_eq!(h.on(c), d);
    let mut want = vec![flit::set_s(ha)];
    want.extend(&d);
    assert_eq!(h.on(a.index()), want);
    let mut want = vec![flit::set_s(hb)];
    want.extend(&d);
    assert_eq!(h.on(b.index()), want);
    assert_eq!(h.st.err_count, 0);
}

/// Passerby down (arrives from the parent, Node below a child) and passerby
/// up (arrives from a child, Node outside the subtree): one output, chosen
/// by tree routing, HEAD forwarded unchanged.
#[test]
fn passerby_down_and_up() {
    let pair = dstm1_4x4();
    for class in 0..2u8 {
        let t = &pair.trees[class as usize];
        let u = inner_node(t);
        let (a, _) = t.children(u).next().unwrap();
        let up = t.parent_port[u as usize].unwrap();
        // Down.
        let mut h = Harness::at(&pair, u);
        let f = head(below(t, u, a), true, 0, false, class);
        let d = data(1, 3);
        h.offer(up.index(), &[f]);
        h.offer(up.index(), &d);
        h.drain(100);
        assert_eq!(h.used_outputs(), vec![a.index()]);
        let mut want = vec![f];
        want.extend(&d);
        assert_eq!(h.on(a.index()), want);
        // Up, with S = 0 (up phase).
        let mut h = Harness::at(&pair, u);
        let f = head(outside(t, u), true, 0, false, class);
        h.offer(a.index(), &[f]);
        h.offer(a.index(), &d);
        h.drain(100);
        assert_eq!(h.used_outputs(), vec![up.index()]);
        let mut want = vec![f];
        want.extend(&d);
        assert_eq!(h.on(up.index()), want);
        assert_eq!(h.st.err_count, 0);
    }
}

/// Trailing HEADs on a non-split input follow the single reservation, not
/// their Node, and are forwarded unchanged — including a HEAD for this very
/// node with S = 0 (the worm climbs through one of its destinations) and
/// HEADs whose Node would route elsewhere.
#[test]
fn trailing_heads_on_non_split_input_forwarded_unchanged() {
    let pair = dstm1_4x4();
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let (a, b) = (kids[0], kids[1]);
    let up = t.parent_port[u as usize].unwrap();
    let mut h = Harness::at(&pair, u);
    let first = head(outside(t, u), false, 0, false, 0);
    let trailing = [
        head(t.number[u as usize], true, 0, false, 0), // this node, S = 0
        head(below(t, u, b), true, 0, false, 0),       // would route down b
        head(below(t, u, a), true, 0, true, 0),        // S = 1, another node
    ];
    let d = data(30, 2);
    h.offer(a.index(), &[first]);
    h.offer(a.index(), &trailing);
    h.offer(a.index(), &d);
    h.drain(100);
    assert_eq!(h.used_outputs(), vec![up.index()]);
    let mut want = vec![first];
    want.extend(trailing);
    want.extend(&d);
    assert_eq!(h.on(up.index()), want, "unchanged, in order");
    assert_eq!(h.st.err_count, 0);
}

/// A unicast is one HEAD flit {d, C=1}: at the source router it leaves on
/// the tree route from the injection channel; at the destination it is
/// stripped and the data consumed.
#[test]
fn unicast_one_head_flit() {
    let pair = dstm1_4x4();
    let t = &pair.trees[1];
    let u = inner_node(t);
    // A destination outside u's subtree that is not the root (so it has a
    // parent link to arrive on).
    let v = (0..t.topo.nodes())
        .find(|&v| !t.is_ancestor(u, v) && t.parent[v as usize].is_some())
        .unwrap();
    let dst = t.number[v as usize];
    let hd = head(dst, true, 0, false, 1);
    let d = data(90, 5);
    let mut h = Harness::at(&pair, u);
    h.offer(INJ, &[hd]);
    h.offer(INJ, &d);
    h.drain(100);
    let o = t.table(u).route(dst).unwrap().index();
    assert_eq!(o, t.parent_port[u as usize].unwrap().index());
    assert_eq!(h.used_outputs(), vec![o]);
    let mut want = vec![hd];
    want.extend(&d);
    assert_eq!(h.on(o), want);
    // At the destination (arriving on its parent link).
    let p = t.parent_port[v as usize].unwrap().index();
    let mut h = Harness::at(&pair, v);
    h.offer(p, &[hd]);
    h.offer(p, &d);
    h.drain(100);
    assert_eq!(h.used_outputs(), vec![cons(&h.p, 1)]);
    assert_eq!(h.on(cons(&h.p, 1)), d);
}

/// Coordinated flow control: with one branch's downstream `ready` held low,
/// no flit leaves the input, the other branch sees idle cycles, and no
/// branch ever runs more than one flit ahead of the other.
#[test]
fn coordinated_flow_control_holds_all_branches() {
    let pair = dstm1_4x4();
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let (a, b) = (kids[0].index(), kids[1].index());
    let inp = t.parent_port[u as usize].unwrap().index();
    let mut h = Harness::at(&pair, u);
    let c = cons(&h.p, 0);
    let d = data(200, 12);
    h.offer(
        inp,
        &[head(
            t.number[u as usize],
            true,
            (1 << a) | (1 << b),
            false,
            0,
        )],
    );
    h.offer(
        inp,
        &[head(below(t, u, Dir::from_index(a)), true, 0, false, 0)],
    );
    h.offer(
        inp,
        &[head(below(t, u, Dir::from_index(b)), true, 0, false, 0)],
    );
    h.offer(inp, &d);
    // Let the data start streaming.
    while h.on(c).len() < 3 {
        h.tick();
    }
    let hold_from = h.cycle;
    h.ready[b] = false;
    let mut popped_during_hold = 0;
    for _ in 0..10 {
        let act = h.tick();
        if act.popped >> inp & 1 == 1 {
            popped_during_hold += 1;
        }
    }
    let hold_to = h.cycle;
    // At most the flit that was already loaded can be popped behind it.
    assert!(popped_during_hold <= 1, "{popped_during_hold}");
    let in_hold = |o: usize| {
        h.cycles_on(o)
            .iter()
            .filter(|&&cy| cy >= hold_from && cy < hold_to)
            .count()
    };
    assert_eq!(in_hold(b), 0, "the held branch sends nothing");
    assert!(in_hold(a) <= 1, "the free branch idles: {}", in_hold(a));
    assert!(in_hold(c) <= 1, "the consumption branch idles too");
    h.ready[b] = true;
    h.drain(200);
    // Same data on every branch, and lock-step: flit k+1 never leaves any
    // branch before flit k has left every branch.
    let data_cycles = |o: usize| -> Vec<u64> {
        h.sent
            .iter()
            .filter(|s| s.1 == o && flit::kind(s.2) != Kind::Head)
            .map(|s| s.0)
            .collect()
    };
    let (ca, cb, cc) = (data_cycles(a), data_cycles(b), data_cycles(c));
    assert_eq!(ca.len(), d.len());
    assert_eq!(cb.len(), d.len());
    assert_eq!(h.on(c), d);
    for k in 0..d.len() - 1 {
        let last_k = ca[k].max(cb[k]).max(cc[k]);
        assert!(ca[k + 1] > last_k && cb[k + 1] > last_k && cc[k + 1] > last_k);
    }
}

/// The TAIL releases every reserved output as it passes: a worm waiting on
/// another input for one of them is granted right after, not before.
#[test]
fn tail_releases_outputs() {
    let pair = dstm1_4x4();
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let (a, b) = (kids[0], kids[1]);
    let inp = t.parent_port[u as usize].unwrap().index();
    let mut h = Harness::at(&pair, u);
    let d = data(0, 6);
    h.offer(
        inp,
        &[head(t.number[u as usize], false, bit(a) | bit(b), false, 0)],
    );
    h.offer(inp, &[head(below(t, u, a), true, 0, false, 0)]);
    h.offer(inp, &[head(below(t, u, b), true, 0, false, 0)]);
    h.offer(inp, &d);
    // Second worm from the injection channel: a unicast down child a.
    let h2 = head(below(t, u, a), true, 0, false, 0);
    h.run(3);
    h.offer(INJ, &[h2]);
    h.offer(INJ, &data(1000, 1));
    let tail_f = *d.last().unwrap();
    let mut tail_popped = None;
    let mut granted2 = None;
    for _ in 0..100 {
        let cyc = h.cycle;
        let was_tail = h.st.inp[inp].fifo.peek() == Some(tail_f);
        let act = h.tick();
        if was_tail && act.popped >> inp & 1 == 1 {
            tail_popped = Some(cyc);
            assert_eq!(h.st.out[a.index()].owner, NO_OWNER);
            assert_eq!(h.st.out[b.index()].owner, NO_OWNER);
            assert_eq!(h.state(inp), InState::Idle);
            assert_eq!(h.st.inp[inp].reserved, 0);
        }
        if act.granted >> INJ & 1 == 1 {
            granted2 = Some(cyc);
        }
        if h.idle() {
            break;
        }
    }
    let (tp, g2) = (tail_popped.unwrap(), granted2.unwrap());
    assert_eq!(g2, tp + 1, "granted in the cycle after the TAIL released");
    assert!(h.idle());
    let on_a = h.on(a.index());
    assert_eq!(on_a.iter().filter(|&&f| f == h2).count(), 1);
    assert_eq!(*on_a.last().unwrap(), tail(1001));
}

/// Headers are never replicated: in a multicast through a split with a
/// consumption branch, each HEAD leaves on exactly one output and no HEAD
/// reaches the consumption channel.
#[test]
fn headers_never_replicated() {
    let pair = dstm1_4x4();
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let (a, b) = (kids[0], kids[1]);
    let inp = t.parent_port[u as usize].unwrap().index();
    let mut h = Harness::at(&pair, u);
    let va = t.topo.neighbor(u, a).unwrap();
    let vb = t.topo.neighbor(u, b).unwrap();
    let trailing = vec![
        head(t.number[va as usize], true, 0, false, 0),
        head(t.low[va as usize], true, 0, false, 0),
        head(t.number[vb as usize], true, 0, false, 0),
        head(t.low[vb as usize], true, 0, false, 0),
    ];
    h.offer(
        inp,
        &[head(t.number[u as usize], true, bit(a) | bit(b), false, 0)],
    );
    h.offer(inp, &trailing);
    h.offer(inp, &data(3, 3));
    h.drain(100);
    let heads: Vec<_> = h
        .sent
        .iter()
        .filter(|s| flit::kind(s.2) == Kind::Head)
        .collect();
    assert_eq!(heads.len(), trailing.len(), "{heads:?}");
    for (k, f) in trailing.iter().enumerate() {
        let n = heads.iter().filter(|s| s.2 == flit::set_s(*f)).count();
        assert_eq!(n, 1, "trailing HEAD {k}");
    }
    assert!(kinds(&h.on(cons(&h.p, 0))).iter().all(|&k| k != Kind::Head));
}
