//! The VCD writer, checked by reading its files back with the `vcd` crate's
//! parser: hierarchy and widths, a multicast seen through the waveform, the
//! waveform agreeing with the model's registers cycle by cycle, windows,
//! router subsets, early stops, and option errors.

use std::collections::HashMap;
use std::io::BufReader;
use vcd::{Command, Header, IdCode, Value};
use wormcast_sim::network::Network;
use wormcast_sim::ports::{input_name, output_name};
use wormcast_sim::router::{InState, RouterState, NO_OWNER};
use wormcast_sim::scenario::{Scenario, ScriptedMessage};
use wormcast_sim::topology::Topology;
use wormcast_sim::waves::{parse_routers, parse_window, VcdWriter, Window};

const SOURCE: (u32, u32) = (0, 0);
const DESTS: [(u32, u32); 4] = [(2, 0), (1, 2), (3, 3), (2, 2)];
const LENGTH: u32 = 6;

/// examples/multicast-split.toml, built in code: one multicast on a 4×4 torus.
fn scenario() -> Scenario {
    let mut s = Scenario::default();
    s.network.topology = "torus:4x4".parse().unwrap();
    s.timing.startup_cycles = 2;
    s.traffic.pattern = "scripted".parse().unwrap();
    s.traffic.messages = vec![ScriptedMessage {
        cycle: 0,
        source: format!("{},{}", SOURCE.0, SOURCE.1),
        destinations: DESTS.iter().map(|(x, y)| format!("{x},{y}")).collect(),
        length: LENGTH,
        tree: Some(0),
    }];
    s.run.warmup = 0;
    s.run.cycles = 100;
    s.run.drain_cycles = 200;
    s
}

/// A parsed VCD: header, and per id the list of (time, value) changes, with
/// `None` for a value containing x/z.
struct Dump {
    header: Header,
    changes: HashMap<IdCode, Vec<(u64, Option<u64>)>>,
    times: Vec<u64>,
}

fn to_u64(bits: impl IntoIterator<Item = Value>) -> Option<u64> {
    let mut v = 0u64;
    for b in bits {
        v = v << 1
            | match b {
                Value::V0 => 0,
                Value::V1 => 1,
                _ => return None,
            };
    }
    Some(v)
}

fn parse(bytes: &[u8]) -> Dump {
    let mut p = vcd::Parser::new(BufReader::new(bytes));
    let header = p.parse_header().expect("header parses");
    let mut changes: HashMap<IdCode, Vec<(u64, Option<u64>)>> = HashMap::new();
    let mut times = Vec::new();
    let mut t = 0;
    for cmd in p {
        match cmd.expect("body parses") {
            Command::Timestamp(x) => {
                t = x;
                times.push(x);
            }
            Command::ChangeScalar(id, v) => changes.entry(id).or_default().push((t, to_u64([v]))),
            Command::ChangeVector(id, v) => {
                changes.entry(id).or_default().push((t, to_u64(v.iter())))
            }
            other => panic!("unexpected command {other:?}"),
        }
    }
    Dump {
        header,
        changes,
        times,
    }
}

impl Dump {
    fn var(&self, path: &[&str]) -> &vcd::Var {
        self.header
            .find_var(path)
            .unwrap_or_else(|| panic!("no variable {path:?}"))
    }

    fn width(&self, path: &[&str]) -> u32 {
        self.var(path).size
    }

    fn history(&self, path: &[&str]) -> &[(u64, Option<u64>)] {
        self.changes
            .get(&self.var(path).code)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Value of a variable at time `t` (the last change at or before `t`).
    fn at(&self, path: &[&str], t: u64) -> Option<u64> {
        self.history(path)
            .iter()
            .take_while(|(ct, _)| *ct <= t)
            .last()
            .and_then(|(_, v)| *v)
    }
}

fn rname(x: u32, y: u32) -> String {
    format!("r_{x}_{y}")
}

/// Runs the scenario with a VCD of `routers`/`window`, stopping after
/// `stop_after` cycles if given. Returns the dump, the registers of every
/// router at every cycle (index = time), and the network.
fn run(
    routers: Option<&str>,
    window: Window,
    stop_after: Option<u64>,
) -> (Dump, Vec<Vec<RouterState>>, Network) {
    let mut net = Network::new(&scenario()).unwrap();
    let nodes = parse_routers(&net.fabric.topo, routers).unwrap();
    let mut buf = Vec::new();
    let mut w = VcdWriter::new(&net.fabric, &nodes, window, &mut buf).unwrap();
    let mut states = vec![net.fabric.state.clone()];
    w.sample(&net.fabric).unwrap();
    net.run(&mut |n| {
        w.sample(&n.fabric).unwrap();
        states.push(n.fabric.state.clone());
        stop_after.is_none_or(|s| n.cycle() < s)
    });
    w.finish().unwrap();
    (parse(&buf), states, net)
}

#[test]
fn hierarchy_names_and_widths() {
    let (d, _, net) = run(None, Window::ALL, None);
    let p = net.fabric.params;
    // One time unit is one cycle of the Verilog testbench's 10 ns clock.
    assert_eq!(d.header.timescale, Some((10, vcd::TimescaleUnit::NS)));
    for y in 0..4 {
        for x in 0..4 {
            let r = rname(x, y);
            let r = r.as_str();
            for i in 0..p.inputs() {
                let n = input_name(i);
                assert_eq!(d.width(&["fabric", r, &format!("{n}_state")]), 2);
                assert_eq!(
                    d.width(&["fabric", r, &format!("{n}_reserved")]),
                    p.outputs() as u32
                );
                assert_eq!(d.width(&["fabric", r, &format!("{n}_count")]), 2);
                assert_eq!(d.width(&["fabric", r, &format!("{n}_ready")]), 1);
            }
            for o in 0..p.outputs() {
                let n = output_name(o);
                assert_eq!(d.width(&["fabric", r, &format!("{n}_flit")]), 32);
                assert_eq!(d.width(&["fabric", r, &format!("{n}_valid")]), 1);
                assert_eq!(d.width(&["fabric", r, &format!("{n}_owner")]), 4);
                assert_eq!(d.width(&["fabric", r, "shadow", &format!("{n}_msg")]), 32);
            }
            assert_eq!(d.width(&["fabric", r, "prio"]), 3);
            assert_eq!(d.width(&["fabric", r, "err_count"]), 16);
            assert_eq!(d.width(&["fabric", r, "err_code"]), 4);
        }
    }
    // The default configuration has 1 injection and 2 consumption channels:
    // no port beyond them.
    assert!(d
        .header
        .find_var(&["fabric", "r_0_0", "in_inj1_state"])
        .is_none());
    assert!(d
        .header
        .find_var(&["fabric", "r_0_0", "out_cons2_valid"])
        .is_none());
}

#[test]
fn multicast_is_visible_in_the_waveform() {
    let (d, _, net) = run(None, Window::ALL, None);
    assert_eq!(net.stop_reason, "drained");
    let src = rname(SOURCE.0, SOURCE.1);
    // The source's injection input goes Active once the first HEAD is granted.
    let active = d
        .history(&["fabric", &src, "in_inj0_state"])
        .iter()
        .find(|(_, v)| *v == Some(InState::Active as u64))
        .expect("injection input goes Active");
    assert!(active.0 > 0);
    // Somewhere the worm splits: an input reserves more than one output.
    let split = (0..16u32).any(|r| {
        let r = rname(r % 4, r / 4);
        (0..5).any(|i| {
            d.history(&["fabric", &r, &format!("{}_reserved", input_name(i))])
                .iter()
                .any(|(_, v)| v.is_some_and(|v| v.count_ones() >= 2))
        })
    });
    assert!(split, "no input reserved two outputs at once");

    let end = *d.times.last().unwrap();
    let nc = net.fabric.params.consumption;
    for &(x, y) in &DESTS {
        let r = rname(x, y);
        let mut valid_cycles = 0;
        let mut toggled = false;
        for c in 0..nc {
            let name = format!("{}_valid", output_name(4 + c));
            let path = ["fabric", r.as_str(), name.as_str()];
            let h = d.history(&path);
            if h.iter().any(|(_, v)| *v == Some(1)) {
                toggled = true;
                assert_eq!(h.last().unwrap().1, Some(0), "{r} {name} ends low");
            }
            valid_cycles += (0..end).filter(|&t| d.at(&path, t) == Some(1)).count() as u32;
            // While valid, the shadow names message 0.
            let msg = format!("{}_msg", output_name(4 + c));
            for t in (0..end).filter(|&t| d.at(&path, t) == Some(1)) {
                assert_eq!(d.at(&["fabric", &r, "shadow", &msg], t), Some(0));
            }
        }
        assert!(toggled, "{r}: no consumption output went valid");
        assert_eq!(valid_cycles, LENGTH, "{r}: data flits consumed");
    }
    // A non-destination (and non-source) router consumes nothing.
    let h = d.history(&["fabric", "r_3_1", "out_cons0_valid"]);
    assert!(h.iter().all(|(_, v)| *v == Some(0)));
}

#[test]
fn waveform_matches_the_registers_every_cycle() {
    let (d, states, net) = run(None, Window::ALL, None);
    let p = net.fabric.params;
    let topo = net.fabric.topo;
    for (t, st) in states.iter().enumerate() {
        let t = t as u64;
        for (node, s) in st.iter().enumerate() {
            let (x, y) = topo.coord(node as u32);
            let r = rname(x, y);
            for i in 0..p.inputs() {
                let n = input_name(i);
                let at = |f: &str| d.at(&["fabric", &r, &format!("{n}_{f}")], t);
                assert_eq!(at("state"), Some(s.inp[i].state as u64), "{r} {n} @{t}");
                assert_eq!(at("reserved"), Some(s.inp[i].reserved as u64));
                assert_eq!(at("count"), Some(s.inp[i].fifo.count as u64));
                assert_eq!(at("ready"), Some(s.inp[i].ready as u64));
            }
            for o in 0..p.outputs() {
                let n = output_name(o);
                let at = |f: &str| d.at(&["fabric", &r, &format!("{n}_{f}")], t);
                assert_eq!(at("flit"), Some(s.out[o].flit), "{r} {n} @{t}");
                assert_eq!(at("valid"), Some(s.out[o].valid as u64));
                let owner = s.out[o].owner;
                let want = if owner == NO_OWNER { 0xF } else { owner as u64 };
                assert_eq!(at("owner"), Some(want));
            }
            assert_eq!(d.at(&["fabric", &r, "prio"], t), Some(s.prio as u64));
        }
    }
}

#[test]
fn window_and_router_subset() {
    let (d, _, _) = run(Some("2,0; 1,0"), Window { start: 10, end: 20 }, None);
    let tops: Vec<&vcd::Scope> = d
        .header
        .items
        .iter()
        .filter_map(|i| match i {
            vcd::ScopeItem::Scope(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(tops.len(), 1, "one top scope");
    assert_eq!(tops[0].identifier, "fabric");
    let scopes: Vec<&str> = tops[0]
        .items
        .iter()
        .filter_map(|i| match i {
            vcd::ScopeItem::Scope(s) => Some(s.identifier.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(scopes, ["r_1_0", "r_2_0"]);
    // First sample of the window dumps everything at 10; the end marker is
    // one cycle after the last sample.
    assert_eq!(d.times.first(), Some(&10));
    assert_eq!(d.times.last(), Some(&20));
    assert!(d.times.iter().all(|t| (10..=20).contains(t)));
    let n_vars = d.changes.len();
    assert_eq!(
        d.changes.values().filter(|h| h[0].0 == 10).count(),
        n_vars,
        "every variable has a value at the window start"
    );
}

#[test]
fn early_stop_still_gives_a_complete_file() {
    // observe returning false is how a run is interrupted.
    let (d, _, net) = run(None, Window::ALL, Some(12));
    assert_eq!(net.stop_reason, "interrupted");
    assert_eq!(d.times.last(), Some(&13));
}

#[test]
fn only_changes_are_written() {
    let (d, _, _) = run(None, Window::ALL, None);
    for h in d.changes.values() {
        for w in h.windows(2) {
            assert_ne!(w[0].1, w[1].1, "repeated value");
            assert!(w[0].0 < w[1].0, "two changes at one time");
        }
    }
}

#[test]
fn bad_options_name_the_flag_value_and_what_is_allowed() {
    let t4 = Topology::torus(4, 4).unwrap();
    for bad in ["9,9", "0,0;4,0", "x", "0;0", ";", "0,0,0"] {
        let e = parse_routers(&t4, Some(bad)).unwrap_err();
        assert_eq!(e.field, "--vcd-routers");
        assert_eq!(e.value, bad);
        assert!(e.allowed.contains("`all`") && e.allowed.contains("X < 4"));
    }
    let t16 = Topology::torus(16, 16).unwrap();
    let e = parse_routers(&t16, None).unwrap_err();
    assert_eq!(e.field, "--vcd-routers");
    assert!(e.allowed.contains("256 routers"), "{}", e.allowed);
    assert_eq!(parse_routers(&t16, Some("all")).unwrap().len(), 256);
    assert_eq!(parse_routers(&t4, None).unwrap().len(), 16);
    assert_eq!(parse_routers(&t4, Some("1,0;0,0;1,0")).unwrap(), [0, 1]);

    for bad in ["5..5", "7..3", "a..b", "10", "..10", "-1..4", "1..2..3"] {
        let e = parse_window(Some(bad)).unwrap_err();
        assert_eq!(e.field, "--vcd-window");
        assert_eq!(e.value, bad);
        assert!(e.allowed.contains("A..B"));
    }
    assert_eq!(
        parse_window(Some("3..9")).unwrap(),
        Window { start: 3, end: 9 }
    );
    assert_eq!(parse_window(Some("3..")).unwrap().end, u64::MAX);
    assert_eq!(parse_window(None).unwrap(), Window::ALL);
}

/// With a header setup delay the per-input `setup` counter is dumped as
/// `in_P_setup` (8 bits) and follows the model's register every cycle;
/// without one it is absent (the hierarchy test above).
#[test]
fn setup_counter_is_dumped_with_a_setup_delay() {
    let mut sc = scenario();
    sc.network.header_setup_cycles = 2;
    let mut net = Network::new(&sc).unwrap();
    let nodes = parse_routers(&net.fabric.topo, None).unwrap();
    let mut buf = Vec::new();
    let mut w = VcdWriter::new(&net.fabric, &nodes, Window::ALL, &mut buf).unwrap();
    let mut states = vec![net.fabric.state.clone()];
    w.sample(&net.fabric).unwrap();
    net.run(&mut |n| {
        w.sample(&n.fabric).unwrap();
        states.push(n.fabric.state.clone());
        true
    });
    w.finish().unwrap();
    let d = parse(&buf);
    let src = rname(SOURCE.0, SOURCE.1);
    let path = ["fabric", src.as_str(), "in_inj0_setup"];
    assert_eq!(d.width(&path), 8);
    let mut max = 0;
    for (t, s) in states.iter().enumerate() {
        let v = s[0].inp[4].setup as u64;
        assert_eq!(d.at(&path, t as u64), Some(v), "cycle {t}");
        max = max.max(v);
    }
    assert_eq!(max, 2, "the source's first HEAD waits 2 cycles");
}
