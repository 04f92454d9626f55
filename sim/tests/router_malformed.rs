//! One test per malformed-input case of docs/architecture.md §3 / `RouterError`.
//! Each checks the one recovery rule: `err_count` goes up by one and
//! `err_code` names the case; HEAD and BODY flits up to the TAIL are
//! discarded; the TAIL is forwarded to the outputs the input had reserved
//! (releasing them) or discarded at an idle input; afterwards the same input
//! carries a normal worm correctly, so the router is never wedged.

mod common;

use common::*;
use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::flit::Flit;
use wormcast_sim::router::{InState, RouterError};
use wormcast_sim::topology::{Dir, Topology};
use wormcast_sim::trees::SpanningTree;

const JUNK_TAIL: u64 = 0xCC;

/// Flits following the malformed one: a well-formed-looking HEAD and two
/// BODYs that must all be discarded.
fn junk() -> Vec<Flit> {
    vec![head(0, true, 0, false, 0), body(0xAA), body(0xBB)]
}

/// Feeds `before` (valid flits), `bad`, junk and a TAIL into `inp`; checks
/// the error and that exactly `expect` reached the outputs; then sends the
/// `normal` worm on the same input and checks it arrives on `normal_out`.
#[allow(clippy::too_many_arguments)]
fn check(
    h: &mut Harness,
    inp: usize,
    before: &[Flit],
    bad: Flit,
    follow: bool,
    err: RouterError,
    expect: &[(usize, Vec<Flit>)],
    normal: &[Flit],
    normal_out: usize,
) {
    h.offer(inp, before);
    h.offer(inp, &[bad]);
    if follow {
        h.offer(inp, &junk());
        h.offer(inp, &[tail(JUNK_TAIL)]);
    }
    h.drain(200);
    assert_eq!(h.st.err_count, 1, "{err:?}: one error counted");
    assert_eq!(h.st.err_code, err.code(), "{err:?}");
    let raised: Vec<_> = h
        .acts
        .iter()
        .filter(|a| a.errors != 0)
        .map(|a| (a.errors, a.err_codes[inp]))
        .collect();
    assert_eq!(raised, vec![(1u8 << inp, err.code())], "{err:?}");
    let mut used: Vec<usize> = expect.iter().map(|e| e.0).collect();
    used.sort_unstable();
    assert_eq!(h.used_outputs(), used, "{err:?}: outputs used");
    for (o, want) in expect {
        assert_eq!(&h.on(*o), want, "{err:?}: output {o}");
    }
    assert_eq!(h.state(inp), InState::Idle, "{err:?}: input back to idle");
    assert_eq!(h.st.inp[inp].reserved, 0);
    assert!(h.idle(), "{err:?}: every output released");
    // Never wedged: the same input carries a normal worm.
    h.clear_sent();
    h.offer(inp, normal);
    h.drain(200);
    assert_eq!(
        h.st.err_count, 1,
        "{err:?}: the normal worm is not an error"
    );
    let stripped: Vec<Flit> = normal
        .iter()
        .copied()
        .skip_while(|&f| f & 3 == 0 && normal_out >= 4)
        .collect();
    assert_eq!(h.used_outputs(), vec![normal_out], "{err:?}: normal worm");
    assert_eq!(h.on(normal_out), stripped, "{err:?}: normal worm");
}

struct Site {
    pair: Pair,
    u: u32,
    /// Parent port and two child ports of `u` in tree 0.
    p: Dir,
    a: Dir,
    b: Dir,
}

fn site() -> Site {
    site_with(dstm1_4x4())
}

fn site_with(pair: Pair) -> Site {
    let t = &pair.trees[0];
    let u = split_node(t);
    let kids: Vec<Dir> = t.children(u).map(|(d, _)| d).collect();
    let p = t.parent_port[u as usize].unwrap();
    Site {
        u,
        p,
        a: kids[0],
        b: kids[1],
        pair,
    }
}

impl Site {
    fn t(&self) -> &SpanningTree {
        &self.pair.trees[0]
    }
    fn own(&self) -> u32 {
        self.t().number[self.u as usize]
    }
    fn h(&self) -> Harness {
        Harness::at(&self.pair, self.u)
    }
    /// A normal passerby worm arriving on the parent port, down child b.
    fn down_b(&self) -> Vec<Flit> {
        let mut v = vec![head(below(self.t(), self.u, self.b), true, 0, false, 0)];
        v.extend(data(500, 3));
        v
    }
    /// A normal passerby worm arriving on child a, up to the parent.
    fn up(&self) -> Vec<Flit> {
        let mut v = vec![head(outside(self.t(), self.u), true, 0, false, 0)];
        v.extend(data(600, 3));
        v
    }
}

#[test]
fn body_at_idle_body() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    check(
        &mut h,
        p,
        &[],
        body(1),
        true,
        RouterError::BodyAtIdle,
        &[],
        &s.down_b(),
        b,
    );
}

#[test]
fn body_at_idle_tail() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    // A lone TAIL at an idle input: counted and discarded, input stays idle.
    check(
        &mut h,
        p,
        &[],
        tail(1),
        false,
        RouterError::BodyAtIdle,
        &[],
        &s.down_b(),
        b,
    );
}

#[test]
fn head_for_me_after_split() {
    let s = site();
    let mut h = s.h();
    let (p, a, b) = (s.p.index(), s.a.index(), s.b.index());
    let first = head(below(s.t(), s.u, s.a), true, 0, false, 0);
    check(
        &mut h,
        p,
        &[first],
        head(s.own(), true, 0, true, 0),
        true,
        RouterError::HeadForMeAfterSplit,
        &[(a, vec![first, tail(JUNK_TAIL)])],
        &s.down_b(),
        b,
    );
}

#[test]
fn down_phase_up() {
    let s = site();
    let mut h = s.h();
    let (a, p) = (s.a.index(), s.p.index());
    // S = 1 arriving from a child, Node outside the subtree: would go up.
    check(
        &mut h,
        a,
        &[],
        head(outside(s.t(), s.u), true, 0, true, 0),
        true,
        RouterError::DownPhaseUp,
        &[],
        &s.up(),
        p,
    );
}

#[test]
fn back_to_arrival() {
    let s = site();
    let mut h = s.h();
    let (a, p) = (s.a.index(), s.p.index());
    // A first HEAD from child a whose Node lies below a.
    check(
        &mut h,
        a,
        &[],
        head(below(s.t(), s.u, s.a), true, 0, false, 0),
        true,
        RouterError::BackToArrival,
        &[],
        &s.up(),
        p,
    );
}

#[test]
fn no_output() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    check(
        &mut h,
        p,
        &[],
        head(s.own(), false, 0, false, 0),
        true,
        RouterError::NoOutput,
        &[],
        &s.down_b(),
        b,
    );
}

/// O bit to a link of the other class.
#[test]
fn bad_link_wrong_class() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    let w = (0..4)
        .find(|&d| h.cfg.out_class[d] == Some(1))
        .expect("a class-1 link at the split node");
    check(
        &mut h,
        p,
        &[],
        head(s.own(), true, 1 << w, false, 0),
        true,
        RouterError::BadLink,
        &[],
        &s.down_b(),
        b,
    );
}

/// O bit to a link that does not exist (mesh edge), on a one-class mesh
/// router configured from a comb tree.
#[test]
fn bad_link_missing() {
    let topo = Topology::mesh(3, 3).unwrap();
    let mut e = vec![topo.h_edge(0, 0), topo.h_edge(1, 0)];
    for x in 0..3 {
        e.push(topo.v_edge(x, 0));
        e.push(topo.v_edge(x, 1));
    }
    let t = SpanningTree::from_edges(topo, topo.id(1, 0), &e, "comb").unwrap();
    let params = RouterParams {
        classes: 1,
        ..RouterParams::default()
    };
    let cfg = RouterConfig::for_trees(&topo, std::slice::from_ref(&t), &params, &[]).unwrap();
    let u = topo.id(0, 0);
    assert_eq!(topo.edge(u, Dir::XMinus), None, "corner: no -x link");
    let mut h = Harness::new(cfg[u as usize].clone(), params);
    let p = t.parent_port[u as usize].unwrap().index();
    let own = t.number[u as usize];
    let mut normal = vec![head(own, true, 0, false, 0)];
    normal.extend(data(1, 2));
    check(
        &mut h,
        p,
        &[],
        head(own, true, bit(Dir::XMinus), false, 0),
        true,
        RouterError::BadLink,
        &[],
        &normal,
        4,
    );
}

/// O bit to a faulty link (a tree link marked faulty has no class).
#[test]
fn bad_link_faulty_o_bit() {
    let probe = site();
    let e = probe.pair.topo.edge(probe.u, probe.a).unwrap();
    let s = site_with(dstm1_4x4_with(RouterParams::default(), &[e]));
    let mut h = s.h();
    assert_eq!(h.cfg.out_class[s.a.index()], None);
    let (p, b) = (s.p.index(), s.b.index());
    check(
        &mut h,
        p,
        &[],
        head(s.own(), false, bit(s.a) | bit(s.b), false, 0),
        true,
        RouterError::BadLink,
        &[],
        &s.down_b(),
        b,
    );
}

/// Tree routing that would send a passerby onto a faulty link.
#[test]
fn bad_link_routing_to_faulty() {
    let probe = site();
    let e = probe.pair.topo.edge(probe.u, probe.a).unwrap();
    let s = site_with(dstm1_4x4_with(RouterParams::default(), &[e]));
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    check(
        &mut h,
        p,
        &[],
        head(below(s.t(), s.u, s.a), true, 0, false, 0),
        true,
        RouterError::BadLink,
        &[],
        &s.down_b(),
        b,
    );
}

#[test]
fn trailing_at_consumer() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    let c = cons(&h.p, 0);
    check(
        &mut h,
        p,
        &[head(s.own(), true, 0, false, 0)],
        head(below(s.t(), s.u, s.a), true, 0, false, 0),
        true,
        RouterError::TrailingAtConsumer,
        // Only the TAIL reaches the reserved consumption channel (the NI
        // counts the message truncated).
        &[(c, vec![tail(JUNK_TAIL)])],
        &s.down_b(),
        b,
    );
}

#[test]
fn below_no_branch() {
    let s = site();
    let mut h = s.h();
    let (p, a, b) = (s.p.index(), s.a.index(), s.b.index());
    check(
        &mut h,
        p,
        &[head(s.own(), false, bit(s.a) | bit(s.b), false, 0)],
        head(outside(s.t(), s.u), true, 0, false, 0),
        true,
        RouterError::BelowNoBranch,
        &[(a, vec![tail(JUNK_TAIL)]), (b, vec![tail(JUNK_TAIL)])],
        &s.down_b(),
        b,
    );
}

#[test]
fn node_out_of_range_first_head() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    let n = s.pair.topo.nodes();
    check(
        &mut h,
        p,
        &[],
        head(n, true, 0, false, 0),
        true,
        RouterError::NodeOutOfRange,
        &[],
        &s.down_b(),
        b,
    );
}

#[test]
fn node_out_of_range_trailing_head() {
    let s = site();
    let mut h = s.h();
    let (p, a, b) = (s.p.index(), s.a.index(), s.b.index());
    let first = head(below(s.t(), s.u, s.a), true, 0, false, 0);
    check(
        &mut h,
        p,
        &[first],
        head(1000, true, 0, false, 0),
        true,
        RouterError::NodeOutOfRange,
        &[(a, vec![first, tail(JUNK_TAIL)])],
        &s.down_b(),
        b,
    );
}

/// Class field naming no class (2 of 2 classes).
#[test]
fn bad_class_no_such_class() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    check(
        &mut h,
        p,
        &[],
        head(s.own(), true, 0, false, 2),
        true,
        RouterError::BadClass,
        &[],
        &s.down_b(),
        b,
    );
}

/// A class-1 worm arriving on a class-0 link.
#[test]
fn bad_class_wrong_link() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    let own1 = s.pair.trees[1].number[s.u as usize];
    check(
        &mut h,
        p,
        &[],
        head(own1, true, 0, false, 1),
        true,
        RouterError::BadClass,
        &[],
        &s.down_b(),
        b,
    );
}

/// A trailing HEAD of another class than its worm.
#[test]
fn bad_class_trailing_head() {
    let s = site();
    let mut h = s.h();
    let (p, a, b) = (s.p.index(), s.a.index(), s.b.index());
    let first = head(below(s.t(), s.u, s.a), true, 0, false, 0);
    check(
        &mut h,
        p,
        &[first],
        head(below(s.t(), s.u, s.a), true, 0, false, 1),
        true,
        RouterError::BadClass,
        &[(a, vec![first, tail(JUNK_TAIL)])],
        &s.down_b(),
        b,
    );
}

#[test]
fn reserved_kind_at_idle() {
    let s = site();
    let mut h = s.h();
    let (p, b) = (s.p.index(), s.b.index());
    check(
        &mut h,
        p,
        &[],
        0b11 | 0xABC0,
        true,
        RouterError::ReservedKind,
        &[],
        &s.down_b(),
        b,
    );
}

#[test]
fn reserved_kind_in_active_worm() {
    let s = site();
    let mut h = s.h();
    let (p, a, b) = (s.p.index(), s.a.index(), s.b.index());
    let first = head(below(s.t(), s.u, s.a), true, 0, false, 0);
    check(
        &mut h,
        p,
        &[first, body(5)],
        0b11,
        true,
        RouterError::ReservedKind,
        &[(a, vec![first, body(5), tail(JUNK_TAIL)])],
        &s.down_b(),
        b,
    );
}

/// Every `RouterError` has at least one test above; this guards the list
/// against a new code being added without one.
#[test]
fn every_error_code_is_covered() {
    assert_eq!(RouterError::ALL.len(), 11);
    for (k, e) in RouterError::ALL.iter().enumerate() {
        assert_eq!(e.code() as usize, k + 1);
        assert_eq!(RouterError::from_code(e.code()), Some(*e));
    }
}
