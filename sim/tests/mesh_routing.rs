//! Mesh routing functions (`router::mesh`): every first hop on all
//! node pairs of small meshes against the functions' definitions, the
//! address spaces, the channel classes, agreement with the paths the
//! path-based source algorithms assume, and the malformed cases at a router.

mod common;

use common::*;
use wormcast_sim::config::{RouterConfig, RouterParams, RoutingKind};
use wormcast_sim::flit::Flit;
use wormcast_sim::pathbased::worm::{CLASS_HIGH, CLASS_LOW};
use wormcast_sim::pathbased::{brcp, hamiltonian};
use wormcast_sim::router::mesh::{address, address_space, node_of_address, MeshConsts};
use wormcast_sim::router::{InState, RouterError};
use wormcast_sim::topology::{Dir, NodeId, Topology};

const KINDS: [RoutingKind; 3] = [
    RoutingKind::Hamiltonian,
    RoutingKind::Dor,
    RoutingKind::NegativeFirst,
];

fn meshes() -> Vec<Topology> {
    [(2, 2), (3, 3), (4, 5), (5, 4), (6, 3), (7, 7)]
        .into_iter()
        .map(|(k, m)| Topology::mesh(k, m).unwrap())
        .collect()
}

fn dir_to(topo: &Topology, u: NodeId, w: NodeId) -> Dir {
    Dir::ALL
        .into_iter()
        .find(|&d| topo.neighbor(u, d) == Some(w))
        .expect("adjacent")
}

/// The definitions, written from the papers independently of `router::mesh`.
fn expected(kind: RoutingKind, topo: &Topology, u: NodeId, v: NodeId) -> Dir {
    let (x, y) = topo.coord(u);
    let (tx, ty) = topo.coord(v);
    match kind {
        // XY: correct x first.
        RoutingKind::Dor => {
            if tx != x {
                if tx > x {
                    Dir::XPlus
                } else {
                    Dir::XMinus
                }
            } else if ty > y {
                Dir::YPlus
            } else {
                Dir::YMinus
            }
        }
        // [BRCP] §3.1: negative subnetwork (west, south) first.
        RoutingKind::NegativeFirst => {
            if tx < x {
                Dir::XMinus
            } else if ty < y {
                Dir::YMinus
            } else if tx > x {
                Dir::XPlus
            } else {
                Dir::YPlus
            }
        }
        // [PATHOPT] §2.1 R, as the source algorithms implement it.
        RoutingKind::Hamiltonian => dir_to(topo, u, hamiltonian::r_next(topo, u, v)),
        _ => unreachable!(),
    }
}

#[test]
fn first_hop_matches_definition_on_all_pairs() {
    for topo in meshes() {
        for kind in KINDS {
            for u in 0..topo.nodes() {
                let c = MeshConsts::new(kind, &topo, u);
                assert_eq!(c.route(kind, address(kind, &topo, u)), Ok(None));
                for v in (0..topo.nodes()).filter(|&v| v != u) {
                    let got = c.route(kind, address(kind, &topo, v)).unwrap();
                    assert_eq!(
                        got,
                        Some(expected(kind, &topo, u, v)),
                        "{kind:?} {topo} {:?}->{:?}",
                        topo.coord(u),
                        topo.coord(v)
                    );
                }
            }
        }
    }
}

/// Routes of the router's functions are the segments the path-based
/// algorithms build their worms from: `nf_segment` (BRCP), `xy_segment`
/// (column-path) and R (Hamiltonian schemes), and they are minimal.
#[test]
fn routes_agree_with_source_algorithms() {
    use wormcast_sim::pathbased::scheme::route;
    for topo in meshes() {
        for u in 0..topo.nodes() {
            for v in (0..topo.nodes()).filter(|&v| v != u) {
                let nf = route(RoutingKind::NegativeFirst, &topo, u, v);
                assert_eq!(nf, brcp::nf_segment(&topo, u, v));
                let xy = route(RoutingKind::Dor, &topo, u, v);
                assert_eq!(xy, brcp::xy_segment(&topo, u, v));
                let r = route(RoutingKind::Hamiltonian, &topo, u, v);
                assert_eq!(r, hamiltonian::r_route(&topo, u, v));
                let (a, b) = (topo.coord(u), topo.coord(v));
                let dist = a.0.abs_diff(b.0) + a.1.abs_diff(b.1);
                for p in [&nf, &xy, &r] {
                    assert_eq!(p.len() as u32, dist);
                }
            }
        }
    }
}

#[test]
fn addresses_round_trip_and_out_of_range() {
    for topo in meshes() {
        for kind in KINDS {
            let space = address_space(kind, &topo);
            let mut hit = vec![false; topo.nodes() as usize];
            // Every value the Node field could carry up to the next power of two.
            let top = space.next_power_of_two() * 2;
            for a in 0..top {
                let n = node_of_address(kind, &topo, a);
                let c = MeshConsts::new(kind, &topo, 0);
                match n {
                    Some(n) => {
                        assert!(a < space);
                        assert_eq!(address(kind, &topo, n), a);
                        assert!(!hit[n as usize], "one address per node");
                        hit[n as usize] = true;
                        assert!(c.route(kind, a).is_ok());
                    }
                    None => assert_eq!(c.route(kind, a), Err(RouterError::NodeOutOfRange)),
                }
            }
            assert!(
                hit.iter().all(|&h| h),
                "{kind:?} {topo}: every node addressed"
            );
        }
    }
    // Packed addresses: (y << xb) | x with xb = bits of K-1.
    let t = Topology::mesh(5, 3).unwrap();
    assert_eq!(address(RoutingKind::Dor, &t, t.id(4, 2)), (2 << 3) | 4);
    assert_eq!(address(RoutingKind::Hamiltonian, &t, t.id(4, 1)), 5);
}

#[test]
fn hamiltonian_classes() {
    for topo in meshes() {
        let p = RouterParams {
            routing: RoutingKind::Hamiltonian,
            classes: 2,
            ..RouterParams::default()
        };
        let cfg = RouterConfig::for_mesh(&topo, &p).unwrap();
        for u in 0..topo.nodes() {
            for d in Dir::ALL {
                match topo.neighbor(u, d) {
                    None => {
                        assert_eq!(cfg[u as usize].out_class[d.index()], None);
                        assert_eq!(cfg[u as usize].in_class[d.index()], None);
                    }
                    Some(w) => {
                        let up = hamiltonian::label(&topo, w) > hamiltonian::label(&topo, u);
                        let want = if up { CLASS_HIGH } else { CLASS_LOW };
                        assert_eq!(cfg[u as usize].out_class[d.index()], Some(want));
                        // The input is the neighbour's output toward us.
                        assert_eq!(
                            cfg[u as usize].in_class[d.index()],
                            cfg[w as usize].out_class[d.opposite().index()]
                        );
                    }
                }
            }
        }
        // One class for the others, on every existing link.
        for kind in [RoutingKind::Dor, RoutingKind::NegativeFirst] {
            let p = RouterParams {
                routing: kind,
                classes: 1,
                ..p
            };
            let cfg = RouterConfig::for_mesh(&topo, &p).unwrap();
            for u in 0..topo.nodes() {
                for d in Dir::ALL {
                    let want = topo.neighbor(u, d).map(|_| 0);
                    assert_eq!(cfg[u as usize].out_class[d.index()], want);
                    assert_eq!(cfg[u as usize].in_class[d.index()], want);
                }
            }
        }
    }
}

/// Consumption groups by arrival port: per class for R, per phase for
/// negative-first, per port for DOR; disjoint pools with 4 channels.
#[test]
fn consumption_groups_by_arrival() {
    for kind in KINDS {
        let r = mesh_router(kind, 4, 4);
        for u in 0..r.topo.nodes() {
            let cfg = &r.cfg[u as usize];
            let c = cfg.mesh.unwrap();
            for d in Dir::ALL {
                let g = c.cons_group[d.index()];
                let want = match kind {
                    RoutingKind::Hamiltonian => cfg.in_class[d.index()].unwrap_or(0),
                    // Arrivals from the +X/+Y neighbour moved negatively.
                    RoutingKind::NegativeFirst => (d == Dir::XMinus || d == Dir::YMinus) as u8,
                    _ => d.index() as u8,
                };
                assert_eq!(g, want, "{kind:?}");
            }
            let pools: Vec<u8> = (0..c.groups)
                .map(|g| r.p.pool_of(g, c.groups as usize))
                .collect();
            for (i, a) in pools.iter().enumerate() {
                assert_ne!(*a, 0);
                for b in &pools[i + 1..] {
                    assert_eq!(a & b, 0, "{kind:?}: disjoint pools");
                }
            }
        }
    }
}

#[test]
fn config_rejects_torus_and_wrong_classes() {
    let p = RouterParams {
        routing: RoutingKind::Dor,
        classes: 1,
        ..RouterParams::default()
    };
    let e = RouterConfig::for_mesh(&Topology::torus(4, 4).unwrap(), &p).unwrap_err();
    assert_eq!(e.field, "network.routing");
    let p2 = RouterParams { classes: 2, ..p };
    let e = RouterConfig::for_mesh(&Topology::mesh(4, 4).unwrap(), &p2).unwrap_err();
    assert_eq!(e.field, "classes");
    // Packed 64x64 needs 12 bits of Node: a 16-bit flit has 6.
    let p3 = RouterParams {
        flit: wormcast_sim::flit::FlitFormat::new(16).unwrap(),
        ..p
    };
    let e = RouterConfig::for_mesh(&Topology::mesh(9, 8).unwrap(), &p3).unwrap_err();
    assert_eq!(e.field, "flit_width");
}

// ---- the router with a mesh routing function ----

struct MeshRouter {
    topo: Topology,
    kind: RoutingKind,
    p: RouterParams,
    cfg: Vec<RouterConfig>,
}

fn mesh_router(kind: RoutingKind, k: u32, m: u32) -> MeshRouter {
    let topo = Topology::mesh(k, m).unwrap();
    let p = RouterParams {
        routing: kind,
        classes: kind.mesh_classes(),
        consumption: 4,
        injection: 4,
        ..RouterParams::default()
    };
    let cfg = RouterConfig::for_mesh(&topo, &p).unwrap();
    MeshRouter { topo, kind, p, cfg }
}

impl MeshRouter {
    fn h(&self, x: u32, y: u32) -> Harness {
        Harness::new(self.cfg[self.topo.id(x, y) as usize].clone(), self.p)
    }
    fn a(&self, x: u32, y: u32) -> u32 {
        address(self.kind, &self.topo, self.topo.id(x, y))
    }
    /// The first consumption output a worm absorbed at (x,y) after arriving
    /// on `inp` takes when all are free.
    fn cons_at(&self, x: u32, y: u32, inp: usize) -> usize {
        let c = self.cfg[self.topo.id(x, y) as usize].mesh.unwrap();
        let g = if inp < 4 { c.cons_group[inp] } else { 0 };
        4 + self.p.pool_of(g, c.groups as usize).trailing_zeros() as usize
    }
}

fn one_error(h: &Harness, inp: usize, e: RouterError) {
    assert_eq!(h.st.err_count, 1, "{e:?}");
    assert_eq!(h.st.err_code, e.code(), "{e:?}");
    assert_eq!(h.state(inp), InState::Idle, "{e:?}: recovered at the TAIL");
    assert!(h.idle(), "{e:?}: released");
}

/// A worm through every router position: the first HEAD leaves by the
/// routing function's port, at the target it is stripped onto the
/// consumption pool.
#[test]
fn router_forwards_by_routing_function() {
    for kind in KINDS {
        let r = mesh_router(kind, 4, 3);
        for u in 0..r.topo.nodes() {
            for v in 0..r.topo.nodes() {
                let (x, y) = r.topo.coord(u);
                let mut h = r.h(x, y);
                let class = if kind == RoutingKind::Hamiltonian
                    && hamiltonian::label(&r.topo, v) < hamiltonian::label(&r.topo, u)
                {
                    CLASS_LOW
                } else {
                    CLASS_HIGH
                };
                let hd = head(address(kind, &r.topo, v), true, 0, false, class);
                let mut w = vec![hd];
                w.extend(data(1, 3));
                h.offer(INJ, &w);
                h.drain(100);
                assert_eq!(h.st.err_count, 0);
                if u == v {
                    let o = r.cons_at(x, y, INJ);
                    assert_eq!(h.used_outputs(), vec![o]);
                    assert_eq!(h.on(o), data(1, 3), "HEAD stripped");
                } else {
                    let d = expected(kind, &r.topo, u, v).index();
                    assert_eq!(h.used_outputs(), vec![d]);
                    assert_eq!(h.on(d), w, "HEAD forwarded unchanged");
                }
            }
        }
    }
}

/// Split point: `{d1, C=1, O}` then a trailing HEAD for d2 whose route from
/// d1 takes O: stripped onto the pool and O; the trailing HEAD leaves by O
/// with S=1; data on both.
#[test]
fn split_point_and_trailing_head() {
    for kind in KINDS {
        let r = mesh_router(kind, 4, 4);
        let (x, y) = (1, 1);
        let mut h = r.h(x, y);
        let u = r.topo.id(x, y);
        // d2 = (3,1): every function goes +X from (1,1) (same row; labels
        // of row 1 decrease to the right, so it is LOW for R).
        let d2 = r.a(3, 1);
        let class = if kind == RoutingKind::Hamiltonian {
            CLASS_LOW
        } else {
            0
        };
        // Arrival on a link of the worm's class: R's LOW channels into
        // (1,1) come from (0,1)'s... pick any input of that class.
        let inp = (0..4)
            .find(|&i| r.cfg[u as usize].in_class[i] == Some(class) && i != Dir::XPlus.index())
            .expect("an input of the class");
        let first = head(r.a(x, y), true, bit(Dir::XPlus), false, class);
        let second = head(d2, true, 0, false, class);
        let mut w = vec![first, second];
        w.extend(data(5, 2));
        h.offer(inp, &w);
        h.drain(100);
        assert_eq!(h.st.err_count, 0, "{kind:?}");
        let c = r.cons_at(x, y, inp);
        assert_eq!(h.used_outputs(), vec![Dir::XPlus.index(), c]);
        assert_eq!(h.on(c), data(5, 2));
        let mut on_link = vec![wormcast_sim::flit::set_s(second)];
        on_link.extend(data(5, 2));
        assert_eq!(h.on(Dir::XPlus.index()), on_link, "{kind:?}");
    }
}

/// Malformed: a trailing HEAD at a split point with two reserved links
/// whose route takes neither → BelowNoBranch; the TAIL releases all three
/// outputs. With one reserved link, a trailing HEAD follows it whatever its
/// Node (a path worm's HEAD for a later destination).
#[test]
fn trailing_head_at_split_points() {
    for kind in KINDS {
        let r = mesh_router(kind, 4, 4);
        // (1,2), label 9 on a 4x4 mesh: +X (label 10) and +Y (row 3,
        // label 14) are HIGH channels for R.
        let (x, y) = (1, 2);
        let class = if kind == RoutingKind::Hamiltonian {
            CLASS_HIGH
        } else {
            0
        };
        let two = bit(Dir::XPlus) | bit(Dir::YPlus);
        let mut h = r.h(x, y);
        // The trailing HEAD is for (1,0): −Y for every function.
        let bad = head(r.a(1, 0), true, 0, false, class);
        let mut w: Vec<Flit> = vec![head(r.a(x, y), true, two, false, class), bad];
        w.extend(data(9, 2));
        h.offer(INJ, &w);
        h.drain(100);
        one_error(&h, INJ, RouterError::BelowNoBranch);
        let c = r.cons_at(x, y, INJ);
        assert_eq!(
            h.used_outputs(),
            vec![Dir::XPlus.index(), Dir::YPlus.index(), c],
            "{kind:?}: the TAIL releases every reserved output"
        );
        // Two links, a HEAD for (3,2) (+X for every function): sent on +X only.
        let mut h = r.h(x, y);
        let ok = head(r.a(3, 2), true, 0, false, class);
        let mut w: Vec<Flit> = vec![head(r.a(x, y), true, two, false, class), ok];
        w.extend(data(9, 2));
        h.offer(INJ, &w);
        h.drain(100);
        assert_eq!(h.st.err_count, 0, "{kind:?}");
        let mut px = vec![wormcast_sim::flit::set_s(ok)];
        px.extend(data(9, 2));
        assert_eq!(h.on(Dir::XPlus.index()), px);
        assert_eq!(h.on(Dir::YPlus.index()), data(9, 2));
        // One link (+Y): a HEAD whose own route would take −Y still goes +Y.
        let mut h = r.h(x, y);
        let later = head(r.a(1, 0), true, 0, false, class);
        let mut w: Vec<Flit> = vec![head(r.a(x, y), true, bit(Dir::YPlus), false, class), later];
        w.extend(data(9, 2));
        h.offer(INJ, &w);
        h.drain(100);
        assert_eq!(h.st.err_count, 0, "{kind:?}");
        let mut py = vec![wormcast_sim::flit::set_s(later)];
        py.extend(data(9, 2));
        assert_eq!(h.on(Dir::YPlus.index()), py);
        // Consumption only: a trailing HEAD has nowhere to go.
        let mut h = r.h(x, y);
        let mut w: Vec<Flit> = vec![head(r.a(x, y), true, 0, false, class), later];
        w.extend(data(9, 2));
        h.offer(INJ, &w);
        h.drain(100);
        one_error(&h, INJ, RouterError::TrailingAtConsumer);
    }
}

/// Malformed first HEADs at a mesh router.
#[test]
fn malformed_first_heads() {
    let r = mesh_router(RoutingKind::Hamiltonian, 4, 4);
    let u = r.topo.id(1, 1);
    let cfg = &r.cfg[u as usize];
    let high_in = (0..4)
        .find(|&i| cfg.in_class[i] == Some(CLASS_HIGH))
        .unwrap();
    let low_in = (0..4)
        .find(|&i| cfg.in_class[i] == Some(CLASS_LOW))
        .unwrap();
    let lab = |x, y| r.a(x, y);
    let l11 = lab(1, 1);
    let worm = |hd: Flit| {
        let mut w = vec![hd];
        w.extend(data(3, 2));
        w
    };
    // (input, header, error)
    let higher = (0..16).find(|&l| l > l11 + 2).unwrap();
    let cases: Vec<(usize, Flit, RouterError)> = vec![
        // A HIGH worm arriving on a LOW channel.
        (
            low_in,
            head(higher, true, 0, false, CLASS_HIGH),
            RouterError::BadClass,
        ),
        // A LOW worm arriving on a HIGH channel.
        (
            high_in,
            head(0, true, 0, false, CLASS_LOW),
            RouterError::BadClass,
        ),
        // Class 2 does not exist with two classes.
        (INJ, head(higher, true, 0, false, 2), RouterError::BadClass),
        // A HIGH worm whose target has a lower label: R takes a LOW channel.
        (
            INJ,
            head(0, true, 0, false, CLASS_HIGH),
            RouterError::BadLink,
        ),
        // Out of range: label 16 on a 4x4 mesh.
        (
            INJ,
            head(16, true, 0, false, CLASS_HIGH),
            RouterError::NodeOutOfRange,
        ),
        // At its target with neither C nor O.
        (
            INJ,
            head(l11, false, 0, false, CLASS_HIGH),
            RouterError::NoOutput,
        ),
        // An O bit toward a lower label on a HIGH worm.
        (
            INJ,
            head(l11, true, bit(Dir::YMinus), false, CLASS_HIGH),
            RouterError::BadLink,
        ),
    ];
    for (inp, hd, err) in cases {
        let mut h = r.h(1, 1);
        h.offer(inp, &worm(hd));
        h.drain(100);
        one_error(&h, inp, err);
    }
    // Back to arrival: a LOW worm for (0,1) arriving from (0,1) on −X.
    let d = r.a(0, 1);
    let cls = cfg.in_class[Dir::XMinus.index()].unwrap();
    assert_eq!(cls, CLASS_LOW);
    let mut h = r.h(1, 1);
    h.offer(Dir::XMinus.index(), &worm(head(d, true, 0, false, cls)));
    h.drain(100);
    one_error(&h, Dir::XMinus.index(), RouterError::BackToArrival);

    // DOR / NF: back to arrival, packed out-of-range.
    for kind in [RoutingKind::Dor, RoutingKind::NegativeFirst] {
        let r = mesh_router(kind, 3, 3);
        let mut h = r.h(1, 1);
        h.offer(
            Dir::XMinus.index(),
            &worm(head(r.a(0, 1), true, 0, false, 0)),
        );
        h.drain(100);
        one_error(&h, Dir::XMinus.index(), RouterError::BackToArrival);
        // x = 3 on a 3-wide mesh: (0 << 2) | 3.
        let mut h = r.h(1, 1);
        h.offer(INJ, &worm(head(3, true, 0, false, 0)));
        h.drain(100);
        one_error(&h, INJ, RouterError::NodeOutOfRange);
        // A trailing HEAD for this node, S=1, passes through (a route that
        // returns here later): no error, it follows the reserved output.
        let mut h = r.h(1, 1);
        let mine = head(r.a(1, 1), true, 0, true, 0);
        let mut w = vec![head(r.a(0, 1), true, 0, false, 0), mine];
        w.extend(data(1, 2));
        h.offer(INJ, &w);
        h.drain(100);
        assert_eq!(h.st.err_count, 0);
        assert_eq!(h.used_outputs(), vec![Dir::XMinus.index()]);
        assert_eq!(h.on(Dir::XMinus.index())[1], mine);
    }
}

/// The encoders' cheap constants (`MeshConsts::for_routing`) route every
/// address, in range or not, exactly as a router's full constants do.
#[test]
fn encoder_constants_route_like_the_router() {
    for topo in meshes() {
        for kind in KINDS {
            for u in 0..topo.nodes() {
                let full = MeshConsts::new(kind, &topo, u);
                let cheap = MeshConsts::for_routing(kind, &topo, u);
                for a in 0..address_space(kind, &topo) + 2 {
                    assert_eq!(
                        cheap.route(kind, a),
                        full.route(kind, a),
                        "{kind:?} on {}x{} at {u}, address {a}",
                        topo.k,
                        topo.m
                    );
                }
            }
        }
    }
}
