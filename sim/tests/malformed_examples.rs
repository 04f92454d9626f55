//! Every router error code of docs/router.md triggered on a running network
//! by an example scenario (`examples/malformed-*.toml`, raw flits from
//! `[[traffic.raw]]`). Per example: the router counts exactly one error of
//! that code (`router_errors`, `router_errors_by_kind`, the `err_count` and
//! `err_code` registers), the VCD shows `err_code` and `err_count` change at
//! that router, the truncated worm ends are counted (`truncated_messages`),
//! nothing wedges (every input idle, every output released), and the regular
//! messages before and after it are all delivered with a clean scoreboard.

use std::collections::HashMap;
use std::path::PathBuf;
use wormcast_sim::network::Network;
use wormcast_sim::router::{InState, RouterError, NO_OWNER};
use wormcast_sim::scenario::Scenario;
use wormcast_sim::waves::{VcdWriter, Window};

/// (example, error, router "X,Y" that raises it, truncated worm ends, raw
/// TAILs that reach an NI). The truncation figures follow from each
/// example's flits (see the comments in the files): a worm discarded at an
/// input holding nothing ends there (1, no TAIL reaches an NI); one whose
/// TAIL goes on ends at every NI it reaches.
type Case = (&'static str, RouterError, (u32, u32), u64, u64);

const CASES: &[Case] = &[
    ("body-at-idle", RouterError::BodyAtIdle, (1, 0), 1, 0),
    (
        "head-for-me-after-split",
        RouterError::HeadForMeAfterSplit,
        (1, 0),
        1,
        1,
    ),
    ("down-phase-up", RouterError::DownPhaseUp, (1, 0), 1, 0),
    ("back-to-arrival", RouterError::BackToArrival, (0, 0), 1, 0),
    ("no-output", RouterError::NoOutput, (1, 0), 1, 0),
    ("bad-link", RouterError::BadLink, (1, 0), 1, 0),
    (
        "trailing-at-consumer",
        RouterError::TrailingAtConsumer,
        (1, 0),
        1,
        1,
    ),
    ("below-no-branch", RouterError::BelowNoBranch, (1, 0), 2, 2),
    (
        "node-out-of-range",
        RouterError::NodeOutOfRange,
        (1, 0),
        1,
        0,
    ),
    ("bad-class", RouterError::BadClass, (1, 0), 1, 0),
    ("reserved-kind", RouterError::ReservedKind, (1, 0), 1, 0),
];

fn example(slug: &str) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(format!("malformed-{slug}.toml"));
    let text = std::fs::read_to_string(&path).expect("example file");
    Scenario::from_toml(&text, &[], &path.display().to_string()).expect("valid example")
}

/// Value changes of `scope.var` in a VCD text: (time, value).
fn changes(vcd: &str, scope: &str, var: &str) -> Vec<(u64, u64)> {
    let mut stack: Vec<String> = Vec::new();
    let mut id = None;
    let mut lines = vcd.lines();
    for l in lines.by_ref() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.first().copied() {
            Some("$scope") => stack.push(w[2].to_string()),
            Some("$upscope") => {
                stack.pop();
            }
            Some("$var") if stack.last().map(String::as_str) == Some(scope) && w[4] == var => {
                id = Some(w[3].to_string())
            }
            Some("$enddefinitions") => break,
            _ => {}
        }
    }
    let id = id.unwrap_or_else(|| panic!("{scope}.{var} in the VCD"));
    let mut t = 0;
    let mut out = Vec::new();
    for l in lines {
        if let Some(s) = l.strip_prefix('#') {
            t = s.parse().expect("time");
        } else if let Some(v) = l.strip_prefix('b') {
            let (bits, who) = v.split_once(' ').expect("vector change");
            if who == id {
                out.push((t, u64::from_str_radix(bits, 2).expect("binary")));
            }
        }
    }
    out
}

#[test]
fn every_error_code_has_an_example_that_counts_it_exactly() {
    // One example per code, no code left out.
    let mut codes: Vec<u8> = CASES.iter().map(|c| c.1.code()).collect();
    codes.sort_unstable();
    let all: Vec<u8> = RouterError::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(codes, all);
    for &(slug, err, (x, y), truncated, raw_tails) in CASES {
        let sc = example(slug);
        let raw_cycle = sc.traffic.raw[0].cycle;
        let mut net = Network::new(&sc).unwrap();
        let node = net.v.topo.id(x, y);
        let mut vcd = Vec::new();
        let report = {
            let mut w =
                VcdWriter::new(&net.fabric, &[node], Window::ALL, &mut vcd).expect("vcd header");
            w.sample(&net.fabric).unwrap();
            let r = net.run(&mut |n| {
                w.sample(&n.fabric).unwrap();
                true
            });
            w.finish().unwrap();
            r
        };
        // Exactly one error, of this code, at this router.
        assert_eq!(report.router_errors, 1, "{slug}");
        let want: std::collections::BTreeMap<String, u64> =
            [(err.name().to_string(), 1)].into_iter().collect();
        assert_eq!(report.router_errors_by_kind, want, "{slug}");
        for (u, s) in net.fabric.state.iter().enumerate() {
            if u as u32 == node {
                assert_eq!((s.err_count, s.err_code), (1, err.code()), "{slug}");
            } else {
                assert_eq!(s.err_count, 0, "{slug}: router {u}");
            }
        }
        assert_eq!(report.truncated_messages, truncated, "{slug}: truncated");
        assert_eq!(report.raw_worms_sent, 1, "{slug}");
        assert_eq!(report.raw_tails_consumed, raw_tails, "{slug}");
        // Nothing wedged: every input idle and empty, every output free.
        for (u, s) in net.fabric.state.iter().enumerate() {
            for (i, inp) in s.inp.iter().enumerate() {
                assert_eq!(inp.state, InState::Idle, "{slug}: router {u} input {i}");
                assert_eq!(inp.reserved, 0, "{slug}: router {u} input {i}");
                assert!(inp.fifo.is_empty(), "{slug}: router {u} input {i}");
            }
            for (o, out) in s.out.iter().enumerate() {
                assert_eq!(out.owner, NO_OWNER, "{slug}: router {u} output {o}");
                assert!(!out.valid, "{slug}: router {u} output {o}");
            }
        }
        // Regular traffic before and after the raw worm is delivered.
        assert!(report.scoreboard_clean(), "{slug}: {report:?}");
        assert!(!report.deadlock, "{slug}");
        assert_eq!(report.stop_reason, "drained", "{slug}");
        assert_eq!(report.delivered_messages, net.msgs.len() as u64, "{slug}");
        assert!(
            net.msgs.iter().filter(|m| m.created > raw_cycle).count() >= 3,
            "{slug}: traffic after the raw worm"
        );
        assert!(net.msgs.iter().all(|m| m.complete()), "{slug}");
        // The VCD shows the error registers change at this router, once.
        let text = String::from_utf8(vcd).unwrap();
        let scope = format!("r_{x}_{y}");
        let code: HashMap<u64, u64> = changes(&text, &scope, "err_code").into_iter().collect();
        let count = changes(&text, &scope, "err_count");
        let after: Vec<_> = count.iter().filter(|c| c.1 != 0).collect();
        assert_eq!(after.len(), 1, "{slug}: err_count {count:?}");
        let (t, v) = *after[0];
        assert!(t > raw_cycle, "{slug}");
        assert_eq!(v, 1, "{slug}");
        assert_eq!(code.get(&t), Some(&(err.code() as u64)), "{slug}: err_code");
    }
}

#[test]
fn raw_flit_errors_name_the_field() {
    let base = "[network]\ntopology = \"torus:4x4\"\n[traffic]\npattern = \"none\"\n";
    let err = |raw: &str| {
        let sc = Scenario::from_toml(&format!("{base}{raw}"), &[], "t.toml")
            .and_then(|sc| Network::new(&sc).map(|_| ()));
        sc.expect_err(raw)
    };
    let cases: &[(&str, &str, &str)] = &[
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"9,0\"\nflits = [{kind = \"tail\"}]",
            "traffic.raw[0].node",
            "9,0",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nport = \"inj1\"\nflits = [{kind = \"tail\"}]",
            "traffic.raw[0].port",
            "inj1",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = []",
            "traffic.raw[0].flits",
            "0",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"tial\"}]",
            "traffic.raw[0].flits[0].kind",
            "tial",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"body\", c = true}]",
            "traffic.raw[0].flits[0].c",
            "body",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"head\", node = \"1,0\", o = [\"+z\"]}]",
            "traffic.raw[0].flits[0].o",
            "+z",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"head\", node = \"1,0\", class = 4}]",
            "traffic.raw[0].flits[0].class",
            "4",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"head\", node = 4194304}]",
            "traffic.raw[0].flits[0].node",
            "4194304",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"head\"}]",
            "traffic.raw[0].flits[0].node",
            "(missing)",
        ),
        (
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"tail\", payload = 1073741824}]",
            "traffic.raw[0].flits[0].payload",
            "1073741824",
        ),
        (
            // Class 2 names no tree, so a node cannot be numbered on it.
            "[[traffic.raw]]\ncycle = 1\nnode = \"1,0\"\nflits = [{kind = \"head\", node = \"0,0\", class = 2}]",
            "traffic.raw[0].flits[0].node",
            "0,0",
        ),
        (
            // 2,2 has no +y link input on DSTM-1 4x4: V(2,2) is on no tree.
            "[[traffic.raw]]\ncycle = 1\nnode = \"2,2\"\nport = \"+y\"\nflits = [{kind = \"tail\"}]",
            "traffic.raw[0].port",
            "+y",
        ),
    ];
    for (raw, field, value) in cases {
        let e = err(raw);
        assert_eq!(&e.field, field, "{raw}: {e}");
        assert!(e.value.contains(value), "{raw}: {e}");
        assert!(!e.allowed.is_empty());
    }
}

#[test]
fn raw_flits_round_trip_through_the_dumped_scenario() {
    // `wormcast run --dump-scenario` prints `toml::to_string` of the
    // scenario; reading it back gives the same raw worms.
    for &(slug, ..) in CASES {
        let sc = example(slug);
        let text = toml::to_string(&sc).unwrap();
        let back = Scenario::from_toml(&text, &[], "dump").unwrap();
        assert_eq!(back, sc, "{slug}");
    }
}
