//! Single-link fault tolerance in the cycle model (\[DSTM\] §7):
//! global fault information (sources route around the faulty link) and local
//! fault information (the router before the fault diverts the branch to its
//! node, whose NI re-injects it on the good tree).

use wormcast_sim::network::stats::Report;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;
use wormcast_sim::topology::Dir;
use wormcast_sim::trees::faults::SingleFault;

/// `X,Y,DIR` of link `e` of `net`'s torus, from its lower end.
fn link_name(net: &Network, e: u32) -> String {
    let topo = net.v.topo;
    for u in 0..topo.nodes() {
        for d in Dir::ALL {
            if topo.edge(u, d) == Some(e) {
                let (x, y) = topo.coord(u);
                return format!("{x},{y},{}", d.name());
            }
        }
    }
    panic!("link {e} does not exist")
}

/// Mixed traffic on an 8×8 DSTM-1 torus: short window, then drain.
fn scenario(link: Option<&str>, info: &str) -> Scenario {
    let mut s = Scenario::default();
    s.network.topology = "torus:8x8".parse().unwrap();
    s.network.construction = "dstm1".into();
    s.network.faulty_links = link.map(|l| vec![l.parse().unwrap()]).unwrap_or_default();
    s.network.fault_info = info.parse().unwrap();
    s.traffic.rate = 0.01;
    s.traffic.multicast_fraction = 0.2;
    s.traffic.destinations = wormcast_sim::scenario::DestCount::Range([2, 8]);
    s.traffic.length = 6;
    s.traffic.seed = 3;
    s.timing.startup_cycles = 10;
    s.run.warmup = 0;
    s.run.cycles = 250;
    s.run.drain_cycles = 20_000;
    s
}

fn run(s: &Scenario) -> (Network, Report) {
    let mut net = Network::new(s).unwrap();
    let r = net.run(&mut |_| true);
    (net, r)
}

/// Everything delivered exactly once, to exactly its destinations, nothing
/// lost, truncated or stuck, no router error.
fn assert_clean(net: &Network, r: &Report, what: &str) {
    assert!(!r.deadlock, "{what}: {}", r.summary());
    assert_eq!(r.stop_reason, "drained", "{what}: {}", r.summary());
    assert!(r.scoreboard_clean(), "{what}: {}", r.summary());
    assert_eq!(r.truncated_messages, 0, "{what}");
    assert_eq!(r.router_errors, 0, "{what}: {}", r.summary());
    assert_eq!(r.unfinished_messages, 0, "{what}");
    assert_eq!(r.delivered_messages, net.msgs.len() as u64, "{what}");
    assert!(net.msgs.iter().all(|m| m.complete()), "{what}");
    assert!(net.all_done(), "{what}");
}

/// Messages whose tree (as submitted) contains the faulty link: the set
/// {source} ∪ destinations has nodes on both sides of the cut.
fn crossing(net: &Network, f: &SingleFault) -> usize {
    net.msgs
        .iter()
        .filter(|m| {
            m.class as usize == f.tree
                && m.dests.iter().any(|&d| f.crosses(&net.trees, m.source, d))
        })
        .count()
}

/// Every one of the 128 links of an 8×8 DSTM-1 torus, faulty in turn, with
/// global and with local information.
#[test]
fn every_single_link_fault_of_8x8_global_and_local() {
    let (base_net, base) = run(&scenario(None, "global"));
    assert_clean(&base_net, &base, "fault-free");
    let topo = base_net.v.topo;
    let (mut tree_links, mut diverted_total, mut reinjected_total) = (0, 0, 0);
    let (mut multicast_diverted, mut diverting_dest) = (0, 0);
    for e in 0..topo.edge_slots() {
        let name = link_name(&base_net, e);
        for info in ["global", "local"] {
            let what = format!("{name} {info}");
            let mut net = Network::new(&scenario(Some(&name), info)).unwrap();
            // Two unicasts across the link itself (its own tree is their
            // shorter one), so every tree link is crossed by some traffic.
            let extra = match net.fault {
                Some(f) => {
                    net.submit(f.child, vec![f.parent], 6, None).unwrap();
                    net.submit(f.parent, vec![f.child], 6, None).unwrap();
                    2
                }
                None => 0,
            };
            let r = net.run(&mut |_| true);
            assert_clean(&net, &r, &what);
            // Same random traffic as without the fault (the multicast tree is
            // drawn even when global information overrides it).
            assert_eq!(net.msgs.len(), base_net.msgs.len() + extra, "{what}");
            match net.fault {
                None => {
                    // A link on neither tree: exactly the fault-free run.
                    assert_eq!(r.diverted_worms, 0);
                    assert_eq!(r.latency, base.latency, "{what}");
                    assert_eq!(r.cycles, base.cycles, "{what}");
                }
                Some(f) if info == "global" => {
                    assert_eq!(r.diverted_worms, 0, "{what}");
                    assert_eq!(r.reinjected_messages, 0, "{what}");
                    assert_eq!(crossing(&net, &f), 0, "{what}: a source used the link");
                    for m in net.msgs.iter().filter(|m| m.is_multicast()) {
                        assert_eq!(m.class as usize, f.good, "{what}: multicast tree");
                    }
                }
                Some(f) => {
                    tree_links += 1;
                    // Sources ignore the fault, so exactly the messages whose
                    // tree holds the link are diverted, once each (the good
                    // tree never diverts).
                    let need = crossing(&net, &f);
                    assert!(need > 0, "{what}: traffic does not cross the link");
                    assert_eq!(r.diverted_worms as usize, need, "{what}");
                    // A branch is diverted only when a destination lies
                    // beyond the link, so every diversion is re-injected.
                    assert_eq!(r.reinjected_messages, r.diverted_worms, "{what}");
                    for rel in &net.relays {
                        assert_eq!(rel.class as usize, f.good);
                        assert!(rel.node == f.child || rel.node == f.parent);
                        assert!(!rel.dests.contains(&rel.node));
                        // The diverting node delivered itself locally.
                        diverting_dest +=
                            net.msgs[rel.msg as usize].dests.contains(&rel.node) as u32;
                    }
                    multicast_diverted += net
                        .msgs
                        .iter()
                        .filter(|m| {
                            m.is_multicast()
                                && m.class as usize == f.tree
                                && m.dests.iter().any(|&d| f.crosses(&net.trees, m.source, d))
                        })
                        .count();
                    diverted_total += r.diverted_worms;
                    reinjected_total += r.reinjected_messages;
                }
            }
        }
    }
    // Two spanning trees of 63 links each: 126 of the 128 links.
    assert_eq!(tree_links, 126);
    assert!(reinjected_total > 0 && reinjected_total <= diverted_total);
    // Multicast branches are diverted too, not only unicasts.
    assert!(multicast_diverted > 0);
    // Some diverting nodes were destinations themselves (delivered by the
    // NI that re-injects the rest; the scoreboard saw it exactly once).
    assert!(diverting_dest > 0);
    eprintln!(
        "local: {diverted_total} diverted worms ({multicast_diverted} multicasts), \
         {reinjected_total} re-injected over {tree_links} tree links, \
         {diverting_dest} at a destination"
    );
}

/// A unicast whose tree path crosses the faulty link: with local
/// information it pays the start-up twice (source, then the diverting node),
/// with global information once; a unicast that does not cross pays it once.
#[test]
fn diverted_unicast_pays_a_second_startup() {
    // Find a faulty link and a pair whose fault-free tree crosses it.
    let probe = Network::new(&scenario(None, "global")).unwrap();
    let topo = probe.v.topo;
    let name = link_name(&probe, topo.h_edge(3, 2));
    let with = Network::new(&scenario(Some(&name), "local")).unwrap();
    let f = with.fault.expect("a tree link");
    let n = topo.nodes();
    let pick = |want: bool| {
        (0..n)
            .flat_map(|s| (0..n).map(move |d| (s, d)))
            .find(|&(s, d)| {
                s != d
                    && wormcast_sim::dstm::policy::unicast_tree(&with.trees, s, d) == f.tree
                    && f.crosses(&with.trees, s, d) == want
                    && s != f.child
                    && s != f.parent
            })
            .unwrap()
    };
    let latency = |info: &str, startup: u64, (s, d): (u32, u32)| {
        let mut sc = scenario(Some(&name), info);
        sc.traffic.pattern = "none".parse().unwrap();
        sc.timing.startup_cycles = startup;
        sc.run.cycles = 10;
        let mut net = Network::new(&sc).unwrap();
        let id = net.submit(s, vec![d], 6, None).unwrap();
        let r = net.run(&mut |_| true);
        assert_clean(&net, &r, info);
        let m = &net.msgs[id as usize];
        (m.finished().unwrap() - m.created, r.diverted_worms)
    };
    let cross = pick(true);
    let (l0, d0) = latency("local", 0, cross);
    let (l1, d1) = latency("local", 40, cross);
    assert_eq!((d0, d1), (1, 1));
    assert_eq!(l1 - l0, 80, "two start-ups of 40 cycles");
    let (g0, _) = latency("global", 0, cross);
    let (g1, gd) = latency("global", 40, cross);
    assert_eq!(gd, 0);
    assert_eq!(g1 - g0, 40, "one start-up");
    let straight = pick(false);
    let (s0, sd) = latency("local", 0, straight);
    let (s1, _) = latency("local", 40, straight);
    assert_eq!(sd, 0);
    assert_eq!(s1 - s0, 40);
}

/// Same scenario and seed, same report and same per-message timings.
#[test]
fn local_fault_runs_are_deterministic() {
    let go = || {
        let (net, mut r) = run(&scenario(Some("3,4,+x"), "local"));
        r.wall_seconds = 0.0;
        r.router_cycles_per_second = 0.0;
        let times: Vec<Vec<u64>> = net.msgs.iter().map(|m| m.delivered.clone()).collect();
        (serde_json::to_string(&r).unwrap(), times)
    };
    let (a, b) = (go(), go());
    assert_eq!(a, b);
    assert!(a.0.contains("\"fault_info\":\"local\""));
}

/// Bad values of the new key and more than one faulty link are input errors.
#[test]
fn fault_scenario_errors() {
    // A bad name fails at the parse (typed scenario), naming its key.
    let e = Scenario::from_toml("[network]\nfault_info = \"nearby\"\n", &[], "t.toml").unwrap_err();
    assert_eq!(e.field, "network.fault_info");
    let mut s = scenario(Some("3,4,+x"), "local");
    s.network.faulty_links = vec!["3,4,+x".parse().unwrap(), "1,1,-y".parse().unwrap()];
    let e = Network::new(&s).err().unwrap();
    assert_eq!(e.field, "network.faulty_links");
    // The same link named from both ends is one link.
    s.network.faulty_links = vec!["3,4,+x".parse().unwrap(), "4,4,-x".parse().unwrap()];
    assert!(Network::new(&s).is_ok());
}

/// Cross-check with the analytic model of Figs. 11/12
/// (`trees::faults::FaultModel`): one unicast of `LEN` data flits for every
/// ordered pair of an 8×8 DSTM-1 torus moves (1 + LEN) flits per hop, a
/// diverted one over both legs, so the flits counted on links divided by
/// (1 + LEN)·n(n−1) must equal the model's average distance exactly, for
/// every link faulty with global and local information.
#[test]
fn all_pairs_hops_equal_the_analytic_average_distance() {
    cross_check(9);
}

/// The same for all 128 links (about 15 s on a free core; run by
/// `docs/results/fault-tolerance.md`).
#[test]
#[ignore]
fn all_pairs_hops_equal_the_analytic_average_distance_every_link() {
    cross_check(1);
}

/// Every `step`-th link.
fn cross_check(step: usize) {
    use wormcast_sim::trees::faults::{FaultInfo, FaultModel};
    const LEN: u32 = 2;
    let probe = Network::new(&scenario(None, "global")).unwrap();
    let pair = [probe.trees[0].clone(), probe.trees[1].clone()];
    let model = FaultModel::new(&pair).unwrap();
    let topo = probe.v.topo;
    let n = topo.nodes();
    for e in (0..topo.edge_slots()).step_by(step) {
        let name = link_name(&probe, e);
        for (info, fi) in [("global", FaultInfo::Global), ("local", FaultInfo::Local)] {
            let mut sc = scenario(Some(&name), info);
            sc.traffic.pattern = "none".parse().unwrap();
            sc.run.cycles = 10;
            sc.run.drain_cycles = 200_000;
            let mut net = Network::new(&sc).unwrap();
            for a in 0..n {
                for b in (0..n).filter(|&b| b != a) {
                    net.submit(a, vec![b], LEN, None).unwrap();
                }
            }
            let r = net.run(&mut |_| true);
            assert_clean(&net, &r, &format!("{name} {info}"));
            let m = model.metrics(e, fi).unwrap();
            assert_eq!(
                r.flit_hops,
                (1 + LEN as u64) * m.distance_sum,
                "{name} {info}: simulated hops vs analytic (AD {})",
                m.average_distance
            );
        }
    }
}

mod common;

/// The router rule on its own: at the router before a faulty child link,
/// a first HEAD routed to it, or naming it in an O bit at its own node,
/// diverts the whole worm — HEADs unstripped and in order, then the data —
/// to the consumption channel of its class, with no error; the input passes
/// through `Diverted` and is idle again after the TAIL. Without
/// `divert_out` the same worms are `bad_link` errors (router_malformed.rs).
#[test]
fn router_diverts_the_whole_worm_to_its_consumption_channel() {
    use common::*;
    use wormcast_sim::config::{RouterConfig, RouterParams};
    use wormcast_sim::router::InState;
    let probe = dstm1_4x4();
    let t = &probe.trees[0];
    let u = inner_node(t);
    let a = Dir::ALL
        .into_iter()
        .find(|d| t.child_ports[u as usize][d.index()])
        .unwrap();
    let e = probe.topo.edge(u, a).unwrap();
    let mut pair = dstm1_4x4_with(RouterParams::default(), &[e]);
    RouterConfig::set_diversion(&mut pair.cfg, &pair.topo, e);
    assert_eq!(pair.cfg[u as usize].divert_out, bit(a));
    let from_parent = t.parent_port[u as usize].unwrap().index();
    let own = t.number[u as usize];
    let target = below(t, u, a);
    let worms = [
        // A passer-by whose route goes down the faulty link.
        vec![head(target, true, 0, true, 0), body(1), body(2), tail(3)],
        // A HEAD for this node, C = 1, O bit on the faulty link; a trailing
        // HEAD for the branch below it.
        vec![
            head(own, true, bit(a), false, 0),
            head(target, true, 0, false, 0),
            body(7),
            tail(8),
        ],
    ];
    for worm in worms {
        let mut h = Harness::at(&pair, u);
        h.offer(from_parent, &worm);
        let mut saw_diverted = false;
        for _ in 0..100 {
            h.tick();
            saw_diverted |= h.st.inp[from_parent].state == InState::Diverted;
            if h.idle() {
                break;
            }
        }
        assert!(h.idle(), "drained");
        assert!(saw_diverted);
        assert_eq!(h.st.err_count, 0);
        assert_eq!(h.on(cons(&pair.params, 0)), worm, "whole worm, unstripped");
        assert!((0..4).all(|o| h.on(o).is_empty()), "nothing on a link");
    }
}

/// \[DSTM\] §7 routes "the branch" that meets the faulty link to the local
/// processor, the rest "as normal": at a split point whose HEAD names the
/// faulty port among others, the healthy branches go on and only the faulty
/// branch's destinations are re-injected.
#[test]
fn only_the_faulty_branch_is_diverted_at_a_split_point() {
    let mut probe = scenario(None, "global");
    probe.traffic.pattern = "none".parse().unwrap();
    let net0 = Network::new(&probe).unwrap();
    let t = &net0.trees[0];
    // A node u with two children on tree 0 (not the root, so the worm
    // arrives from above); fault the link to its first child c.
    let (u, (d, c), other) = (0..64u32)
        .filter(|&u| t.parent[u as usize].is_some())
        .find_map(|u| {
            let kids: Vec<(Dir, u32)> = t.children(u).collect();
            (kids.len() >= 2).then(|| (u, kids[0], kids[1].1))
        })
        .expect("a node with two children");
    let topo = net0.v.topo;
    let (x, y) = topo.coord(u);
    let mut s = probe.clone();
    s.network.faulty_links = vec![format!("{x},{y},{}", d.name()).parse().unwrap()];
    s.network.fault_info = "local".parse().unwrap();
    let mut net = Network::new(&s).unwrap();
    // From the root of tree 0 to u itself, to c (behind the fault) and to
    // the healthy child: the worm splits at u into C, the faulty port and
    // the healthy port.
    let root = t.root;
    let dests = vec![u, c, other];
    net.submit(root, dests.clone(), 6, Some(0)).unwrap();
    let r = net.run(&mut |_| true);
    assert_clean(&net, &r, "split at the faulty link");
    assert_eq!(net.diverted_worms, 1);
    assert_eq!(net.relays.len(), 1);
    // Only c is re-injected; u is delivered by its own NI from the diverted
    // copy, the healthy child straight through the split.
    assert_eq!(net.relays[0].dests, vec![c]);
    assert_eq!(net.relays[0].node, u);
    let m = &net.msgs[0];
    let at = |v: u32| m.delivered[m.dests.binary_search(&v).unwrap()];
    assert!(
        at(other) < at(c),
        "the healthy branch does not wait for the re-injection: {} vs {}",
        at(other),
        at(c)
    );
}
