//! Fuzz harnesses on stable Rust (proptest): the scenario parser and
//! validator, the router's header decode and malformed-input handling on
//! one router, raw flits on a small running fabric, and trace files (text
//! and netrace) replayed on a small network.
//!
//! Invariants: never a panic, never a hang (every loop has a cycle bound
//! and a case that hits it fails); a router never wedges: once every stream
//! has ended with a TAIL, every input is idle and every output released;
//! and where the faults are known (one malformed case per worm), the error
//! count and codes match them exactly.
//!
//! `cargo test` runs 128 to 512 cases per harness (`WORMCAST_FUZZ_CASES`
//! overrides it); `scripts/fuzz.sh` runs many more. Figures in
//! docs/reliability.md.

mod common;

use common::Harness;
use proptest::prelude::*;
use wormcast_sim::flit::{Flit, FlitFormat, Head};
use wormcast_sim::network::Network;
use wormcast_sim::router::{InState, RouterError, NO_OWNER};
use wormcast_sim::scenario::Scenario;

fn cases(default: u32) -> u32 {
    std::env::var("WORMCAST_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(default),
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------- scenarios

const SECTIONS: &[&str] = &["network", "timing", "traffic", "run", "bogus"];
const KEYS: &[&str] = &[
    "topology",
    "construction",
    "r1",
    "routing",
    "header_setup_cycles",
    "strip_deferred",
    "hop",
    "buffer_depth",
    "flit_width",
    "injection_channels",
    "consumption_channels",
    "faulty_links",
    "faulty_nodes",
    "fault_info",
    "startup_cycles",
    "startup_serial",
    "pattern",
    "rate",
    "multicast_fraction",
    "destinations",
    "length",
    "length_max",
    "multicast_scheme",
    "seed",
    "messages",
    "raw",
    "multicast",
    "sharers",
    "collective",
    "root",
    "warmup",
    "cycles",
    "drain_cycles",
    "deadlock_threshold",
    "nonsense",
];

/// A TOML value, mostly of the shapes the scenario uses, sometimes odd.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        (0u64..80).prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
        (0.0f64..1.0).prop_map(|v| format!("{v}")),
        any::<bool>().prop_map(|v| v.to_string()),
        prop_oneof![
            Just("torus:4x4"),
            Just("mesh:4x3"),
            Just("torus:2x2"),
            Just("torus:3x5"),
            Just("mesh:2x2"),
            Just("torus:0x9"),
            Just("dstm1"),
            Just("dstm2"),
            Just("+x-y/-y+x"),
            Just("tarjan-best:1:2"),
            Just("bfs"),
            Just("tree"),
            Just("spam"),
            Just("dor"),
            Just("hamiltonian"),
            Just("negative_first"),
            Just("poisson"),
            Just("scripted"),
            Just("none"),
            Just("local"),
            Just("global"),
            Just("ft-s2"),
            Just("1,1"),
            Just("1,1,+x"),
            Just("9,9"),
        ]
        .prop_map(|s| format!("\"{s}\"")),
        "[a-z0-9,:+-]{0,12}".prop_map(|s| format!("\"{s}\"")),
        prop::collection::vec(0u32..20, 0..3).prop_map(|v| format!("{v:?}")),
        Just("[\"1,1,+x\", \"0,0,-y\"]".to_string()),
        Just("[\"1,1\"]".to_string()),
        Just(
            "[{cycle = 1, source = \"0,0\", destinations = [\"1,1\"], length = 4}]".to_string()
        ),
        Just(
            "[{cycle = 3, node = \"1,0\", port = \"+x\", flits = [{kind = \"head\", node = \"0,0\", c = true}, {kind = \"tail\"}]}]"
                .to_string()
        ),
        Just(
            "[{cycle = 0, node = \"0,0\", flits = [{kind = \"body\"}, {kind = \"reserved\", payload = 3}, {kind = \"tail\"}]}]"
                .to_string()
        ),
        Just("{".to_string()),
    ]
}

/// Keys by section (index into `SECTIONS`): the scenario's own, so most
/// generated files get past the key check and reach the value checks.
fn section_keys(sec: usize) -> &'static [&'static str] {
    match sec {
        0 => &KEYS[..13],
        1 => &KEYS[13..15],
        2 => &KEYS[15..29],
        3 => &KEYS[29..33],
        _ => &KEYS[33..],
    }
}

/// A value of the key's own type most of the time (so the validator, not
/// only the parser, sees it), at and around the edges of its range.
fn typed_value(key: &'static str) -> BoxedStrategy<String> {
    let int = |hi: u64| {
        prop_oneof![
            0..=hi.saturating_add(2),
            Just(hi + 1),
            Just(u32::MAX as u64)
        ]
        .prop_map(|v| v.to_string())
        .boxed()
    };
    let s = |opts: &'static [&'static str]| {
        prop::sample::select(opts)
            .prop_map(|v| format!("\"{v}\""))
            .boxed()
    };
    let typed = match key {
        "topology" => s(&[
            "torus:4x4",
            "torus:2x2",
            "torus:3x3",
            "torus:5x3",
            "mesh:4x4",
            "mesh:3x2",
            "mesh:2x2",
            "torus:257x2",
            "mesh:1x4",
            "torus:4x4x4",
            "ring:8",
        ]),
        "construction" => s(&[
            "dstm1",
            "dstm2",
            "+x-y/-y+x",
            "-x+y/+y-x",
            "bfs",
            "tarjan-path:1:1",
            "dstm3",
            "+x+x/-y+x",
        ]),
        "r1" => s(&["0,0", "1,2", "3,3", "4,0", "-1,0", "a,b"]),
        "routing" => s(&["tree", "spam", "hamiltonian", "dor", "negative_first", "xy"]),
        "header_setup_cycles" => int(255),
        "buffer_depth" => int(8),
        "flit_width" => prop_oneof![Just(16u64), Just(32), Just(64), 10u64..70]
            .prop_map(|v| v.to_string())
            .boxed(),
        "injection_channels" | "consumption_channels" => int(4),
        "faulty_links" => s(&[
            "[]",
            "[\"1,1,+x\"]",
            "[\"0,0,-y\", \"1,1,+y\"]",
            "[\"0,0,+z\"]",
        ])
        .prop_map(|v| v.trim_matches('"').to_string())
        .boxed(),
        "faulty_nodes" => s(&["[]", "[\"1,1\"]", "[\"1,1\", \"2,2\"]", "[\"9,9\"]"])
            .prop_map(|v| v.trim_matches('"').to_string())
            .boxed(),
        "fault_info" => s(&["global", "local", "psychic"]),
        "hop" => s(&["standard", "fast", "warp"]),
        "startup_cycles" => int(1_000_000),
        "startup_serial" | "strip_deferred" => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        "pattern" => s(&["poisson", "scripted", "none", "bursty"]),
        "rate" | "multicast_fraction" => prop_oneof![0.0f64..1.0, -1.0f64..2.0]
            .prop_map(|v| format!("{v:?}"))
            .boxed(),
        "destinations" => prop_oneof![
            (0u32..20).prop_map(|v| v.to_string()),
            (0u32..20, 0u32..20).prop_map(|(a, b)| format!("[{a}, {b}]")),
        ]
        .boxed(),
        "length" | "length_max" => int(1_000_000),
        "multicast_scheme" => s(&[
            "auto",
            "dual-path",
            "lin",
            "brcp-minimal",
            "column-path",
            "vh",
            "ft-s1",
            "ft-unicast",
            "bogus",
        ]),
        "seed" => int(1 << 40),
        "multicast" => s(&["uniform", "invalidation", "row", "broadcast", "bogus"]),
        "sharers" => prop_oneof![
            prop::collection::vec((0u32..70, -1.0f64..2.0), 0..4).prop_map(|v| {
                let bins: Vec<String> = v.iter().map(|(k, w)| format!("[{k}, {w:?}]")).collect();
                format!("[{}]", bins.join(", "))
            }),
            Just("[[2, 0.5], [8, 0.3], [64, 0.2]]".to_string()),
            Just("[2, 1]".to_string()),
        ]
        .boxed(),
        "collective" => s(&["none", "broadcast", "allgather", "scatter", "gather"]),
        "root" => s(&["0,0", "1,1", "3,2", "9,9", "x"]),
        "warmup" | "cycles" | "drain_cycles" | "deadlock_threshold" => int(3000),
        _ => value().boxed(),
    };
    prop_oneof![3 => typed, 1 => value()].boxed()
}

/// TOML-ish text: sections with `key = value` lines (each key once, as
/// TOML wants), now and then a foreign key or a line of noise.
fn toml_text() -> impl Strategy<Value = String> {
    let line = |sec: usize| {
        (0usize..16, any::<prop::sample::Index>()).prop_flat_map(move |(foreign, idx)| {
            let keys = if foreign == 0 {
                KEYS
            } else {
                section_keys(sec)
            };
            let k = keys[idx.index(keys.len())];
            typed_value(k).prop_map(move |v| format!("{k} = {v}"))
        })
    };
    let section = (0usize..SECTIONS.len())
        .prop_flat_map(move |sec| (Just(sec), prop::collection::vec(line(sec), 0..6)));
    let noise = prop::option::weighted(0.1, "\\PC{0,30}");
    (prop::collection::vec(section, 0..5), noise).prop_map(|(secs, noise)| {
        let mut text = String::new();
        let mut seen_sec = std::collections::HashSet::new();
        for (sec, lines) in secs {
            if !seen_sec.insert(sec) {
                continue;
            }
            text.push_str(&format!("[{}]\n", SECTIONS[sec]));
            let mut seen = std::collections::HashSet::new();
            for l in lines {
                let k = l.split(" = ").next().unwrap_or("").to_string();
                if seen.insert(k) {
                    text.push_str(&l);
                    text.push('\n');
                }
            }
        }
        if let Some(n) = noise {
            text.push_str(&n);
        }
        text
    })
}

/// `--set section.key=value` overrides, mostly of the section's own keys
/// with values of their type.
fn sets() -> impl Strategy<Value = Vec<String>> {
    let one = prop_oneof![
        4 => (0usize..SECTIONS.len(), any::<prop::sample::Index>()).prop_flat_map(|(sec, idx)| {
            let keys = section_keys(sec);
            let k = keys[idx.index(keys.len())];
            typed_value(k).prop_map(move |v| format!("{}.{k}={v}", SECTIONS[sec]))
        }),
        1 => (prop::sample::select(SECTIONS), prop::sample::select(KEYS), value())
            .prop_map(|(s, k, v)| format!("{s}.{k}={v}")),
        1 => "\\PC{0,20}",
    ];
    prop::collection::vec(one, 0..6)
}

/// Parses, validates and, for small networks, builds and runs a few
/// hundred cycles: bad input must come back as an `InputError`.
fn exercise(text: &str, sets: &[String]) {
    let Ok(sc) = Scenario::from_toml(text, sets, "fuzz.toml") else {
        return;
    };
    let Ok(v) = sc.validate() else { return };
    // Keep each case fast: small networks, cheap constructions.
    if v.topo.nodes() > 64 || sc.network.construction.starts_with("tarjan") {
        return;
    }
    let mut sc = sc;
    sc.run.warmup = sc.run.warmup.min(50);
    sc.run.cycles = sc.run.cycles.min(150);
    sc.run.drain_cycles = sc.run.drain_cycles.min(200);
    if let Ok(mut net) = Network::new(&sc) {
        let r = net.run(&mut |_| true);
        assert!(r.cycles <= 400, "{}", r.cycles);
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn scenario_text_never_panics(text in toml_text()) {
        exercise(&text, &[]);
    }

    #[test]
    fn scenario_sets_never_panic(text in toml_text(), sets in sets()) {
        exercise(&text, &sets);
    }
}

// ------------------------------------------------------------- one router

/// A flit: mostly of a legal kind with random fields, sometimes any bits.
fn any_flit(fmt: FlitFormat) -> impl Strategy<Value = Flit> {
    prop_oneof![
        3 => (0u32..40, any::<bool>(), 0u8..16, any::<bool>(), 0u8..4).prop_map(
            move |(node, c, o, s, class)| fmt.head(Head { node, c, o, s, class })
        ),
        3 => any::<u64>().prop_map(move |p| fmt.body(p)),
        1 => any::<u64>().prop_map(move |p| fmt.tail(p)),
        1 => any::<u64>().prop_map(move |b| b & fmt.mask()),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    /// Arbitrary flit streams into every input of one DSTM-1 4×4 router,
    /// with random downstream `ready`. After every stream ends with a TAIL
    /// the router drains: every input idle, every output released.
    #[test]
    fn one_router_never_wedges(
        node in 0u32..16,
        streams in prop::collection::vec(prop::collection::vec(any_flit(common::FMT), 0..12), 5),
        ready in prop::collection::vec(any::<u8>(), 1..40),
    ) {
        let pair = common::dstm1_4x4();
        let mut h = Harness::at(&pair, node);
        for (i, s) in streams.iter().enumerate() {
            h.offer(i, s);
            h.offer(i, &[common::tail(0)]);
        }
        // Random back-pressure first, then always ready: it must drain.
        for (k, r) in ready.iter().enumerate() {
            for o in 0..h.p.outputs() {
                h.ready[o] = (r >> (o % 8)) & 1 == 1 || k % 3 == 0;
            }
            h.tick();
        }
        h.ready = [true; wormcast_sim::config::MAX_OUTPUTS];
        h.drain(2_000);
        for i in 0..h.p.inputs() {
            prop_assert_eq!(h.st.inp[i].state, InState::Idle);
            prop_assert_eq!(h.st.inp[i].reserved, 0);
        }
        for o in 0..h.p.outputs() {
            prop_assert_eq!(h.st.out[o].owner, NO_OWNER);
        }
        let raised: u32 = h.acts.iter().map(|a| a.errors.count_ones()).sum();
        prop_assert_eq!(h.st.err_count as u32, raised);
    }
}

// --------------------------------------------------------- a small fabric

/// The malformed cases a worm from an injection channel can carry, one per
/// worm (`back_to_arrival` needs a link port and `below_no_branch` a split:
/// both have fixed examples in `malformed_examples.rs`).
const KINDS: &[RouterError] = &[
    RouterError::BodyAtIdle,
    RouterError::HeadForMeAfterSplit,
    RouterError::DownPhaseUp,
    RouterError::NoOutput,
    RouterError::BadLink,
    RouterError::TrailingAtConsumer,
    RouterError::NodeOutOfRange,
    RouterError::BadClass,
    RouterError::ReservedKind,
];

/// `[[traffic.raw]]` text for one worm at `node` carrying `kind`, built
/// from the network's trees, or `None` where the case cannot arise (no node
/// outside the subtree of a root). `pick` chooses among candidates.
fn faulty_worm(
    net: &Network,
    node: u32,
    class: usize,
    kind: RouterError,
    pick: u64,
) -> Option<String> {
    let t = &net.trees[class];
    let n = net.v.topo.nodes();
    let xy = |u: u32| {
        let (x, y) = net.v.topo.coord(u);
        format!("\"{x},{y}\"")
    };
    let own = xy(node);
    let other = (0..n)
        .filter(|&u| u != node)
        .nth((pick % (n as u64 - 1)) as usize)?;
    let h = |nd: String, extra: &str| {
        format!("{{kind = \"head\", node = {nd}, class = {class}{extra}}}")
    };
    let data = format!(
        "{{kind = \"body\", payload = {}}}, {{kind = \"tail\", payload = {}}}",
        pick % 1000,
        pick % 7
    );
    let flits = match kind {
        RouterError::BodyAtIdle => data,
        RouterError::ReservedKind => {
            format!("{{kind = \"reserved\", payload = {}}}, {data}", pick % 50)
        }
        RouterError::NodeOutOfRange => {
            format!(
                "{{kind = \"head\", node = {}, c = true, class = {class}}}, {data}",
                n as u64 + pick % 100
            )
        }
        RouterError::BadClass => format!(
            "{{kind = \"head\", node = 0, c = true, class = {}}}, {data}",
            2 + pick % 2
        ),
        RouterError::NoOutput => format!("{}, {data}", h(own, "")),
        RouterError::BadLink => {
            let cfg = &net.fabric.cfg[node as usize];
            let port = (0..4).find(|&d| cfg.out_class[d] != Some(class as u8))?;
            let name = wormcast_sim::topology::Dir::ALL[port].name();
            format!("{}, {data}", h(own, &format!(", o = [\"{name}\"]")))
        }
        RouterError::DownPhaseUp => {
            let up = (0..n)
                .filter(|&u| u != node && !t.is_ancestor(node, u))
                .collect::<Vec<_>>();
            let target = *up.get((pick % up.len().max(1) as u64) as usize)?;
            format!("{}, {data}", h(xy(target), ", s = true, c = true"))
        }
        RouterError::HeadForMeAfterSplit => {
            format!(
                "{}, {}, {data}",
                h(xy(other), ", c = true"),
                h(own, ", s = true")
            )
        }
        RouterError::TrailingAtConsumer => {
            format!(
                "{}, {}, {data}",
                h(own, ", c = true"),
                h(xy(other), ", c = true")
            )
        }
        _ => return None,
    };
    let (x, y) = net.v.topo.coord(node);
    Some(format!(
        "[[traffic.raw]]\ncycle = CYCLE\nnode = \"{x},{y}\"\nflits = [{flits}]\n"
    ))
}

proptest! {
    #![proptest_config(config(128))]

    /// Raw worms with one known fault each, at random nodes and times, on a
    /// small DSTM torus with regular traffic around them: exactly those
    /// errors are counted, nothing wedges, every message is delivered.
    #[test]
    fn fabric_counts_exactly_the_injected_faults(
        size in prop::sample::select(vec![(3u32, 3u32), (4, 4), (5, 4), (4, 6)]),
        dstm2 in any::<bool>(),
        faults in prop::collection::vec((any::<u32>(), 0usize..2, prop::sample::select(KINDS), any::<u64>()), 1..4),
        rate in 0.0f64..0.02,
        seed in 0u64..1_000_000_000,
    ) {
        let base = format!(
            "[network]\ntopology = \"torus:{}x{}\"\nconstruction = \"{}\"\n[traffic]\nrate = {rate}\nseed = {seed}\ndestinations = [1, 3]\nlength = 6\n[run]\nwarmup = 0\ncycles = 400\ndrain_cycles = 3000\n",
            size.0, size.1, if dstm2 { "dstm2" } else { "dstm1" }
        );
        let probe = Network::new(&Scenario::from_toml(&base, &[], "fuzz").unwrap()).unwrap();
        let n = probe.v.topo.nodes();
        let mut text = base.clone();
        let mut want: std::collections::BTreeMap<String, u64> = Default::default();
        for (i, &(node, class, kind, pick)) in faults.iter().enumerate() {
            if let Some(w) = faulty_worm(&probe, node % n, class, kind, pick) {
                text.push_str(&w.replace("CYCLE", &(20 + 90 * i).to_string()));
                *want.entry(kind.name().to_string()).or_default() += 1;
            }
        }
        let sc = Scenario::from_toml(&text, &[], "fuzz").unwrap();
        let mut net = Network::new(&sc).unwrap();
        let r = net.run(&mut |_| true);
        prop_assert!(!r.deadlock, "{}", text);
        prop_assert_eq!(&r.stop_reason, "drained", "{}", text);
        prop_assert_eq!(&r.router_errors_by_kind, &want, "{}", text);
        prop_assert_eq!(r.router_errors, want.values().sum::<u64>());
        prop_assert!(r.scoreboard_clean());
        prop_assert_eq!(r.delivered_messages, net.msgs.len() as u64);
        // One truncated end per faulty worm: it dies at its router or its
        // TAIL reaches exactly one NI.
        prop_assert_eq!(r.truncated_messages, want.values().sum::<u64>(), "{}", text);
        for s in &net.fabric.state {
            prop_assert!(s.inp.iter().all(|i| i.state == InState::Idle && i.reserved == 0));
            prop_assert!(s.out.iter().all(|o| o.owner == NO_OWNER && !o.valid));
        }
    }

    /// Arbitrary raw worms (any fields, on injection channels and link
    /// inputs) one at a time on a quiet 4×4 torus, each ending with a TAIL:
    /// the run ends (drained, or a worm that waits for itself is reported
    /// as a deadlock), and when it drains every reservation is released.
    #[test]
    fn fabric_survives_arbitrary_raw_worms(
        worms in prop::collection::vec(
            (0u32..16, 0usize..5, prop::collection::vec(any_flit(common::FMT), 0..8)),
            1..4,
        ),
        dstm2 in any::<bool>(),
    ) {
        let mut text = format!(
            "[network]\ntopology = \"torus:4x4\"\nconstruction = \"{}\"\n[traffic]\npattern = \"none\"\n[run]\nwarmup = 0\ncycles = 10\ndrain_cycles = 4000\ndeadlock_threshold = 200\n",
            if dstm2 { "dstm2" } else { "dstm1" }
        );
        let probe = Network::new(&Scenario::from_toml(&text, &[], "fuzz").unwrap()).unwrap();
        let ports = ["inj0", "+x", "-x", "+y", "-y"];
        for (i, (node, port, flits)) in worms.iter().enumerate() {
            let mut port = *port;
            if port > 0 && probe.fabric.upstream[*node as usize][port - 1].is_none() {
                port = 0;
            }
            let (x, y) = probe.v.topo.coord(*node);
            let fl: Vec<String> = flits
                .iter()
                .chain(std::iter::once(&common::tail(0)))
                .map(|&f| raw_flit(f))
                .collect();
            text.push_str(&format!(
                "[[traffic.raw]]\ncycle = {}\nnode = \"{x},{y}\"\nport = \"{}\"\nflits = [{}]\n",
                1 + 600 * i,
                ports[port],
                fl.join(", ")
            ));
        }
        let sc = Scenario::from_toml(&text, &[], "fuzz").unwrap();
        let mut net = Network::new(&sc).unwrap();
        let r = net.run(&mut |_| true);
        prop_assert!(r.stop_reason == "drained" || r.deadlock, "{} {}", r.stop_reason, text);
        if !r.deadlock {
            for s in &net.fabric.state {
                prop_assert!(s.inp.iter().all(|i| i.state == InState::Idle && i.reserved == 0), "{}", text);
                prop_assert!(s.out.iter().all(|o| o.owner == NO_OWNER), "{}", text);
            }
        }
        prop_assert!(r.scoreboard_clean());
    }
}

/// A flit as a `[[traffic.raw]]` table with the same bits.
fn raw_flit(f: Flit) -> String {
    let fmt = common::FMT;
    match f & 3 {
        0 => {
            let h = wormcast_sim::flit::decode_head(f);
            let o: Vec<String> = wormcast_sim::topology::Dir::ALL
                .iter()
                .filter(|d| h.o >> d.index() & 1 == 1)
                .map(|d| format!("\"{}\"", d.name()))
                .collect();
            format!(
                "{{kind = \"head\", node = {}, c = {}, s = {}, class = {}, o = [{}]}}",
                h.node & ((1 << fmt.node_bits()) - 1),
                h.c,
                h.s,
                h.class,
                o.join(", ")
            )
        }
        k => format!(
            "{{kind = \"{}\", payload = {}}}",
            ["", "body", "tail", "reserved"][k as usize],
            (f >> 2) & fmt.payload_mask()
        ),
    }
}

// ------------------------------------------------------------------ traces

/// One token of a text trace line: mostly of the shapes the format has
/// (cycles, `X,Y` nodes near and past a 4×4 network's edge, `;` lists,
/// ids and dependencies with delays), sometimes noise.
fn trace_token() -> impl Strategy<Value = String> {
    let node = (-1i32..6, -1i32..6).prop_map(|(x, y)| format!("{x},{y}"));
    prop_oneof![
        3 => (0u64..300).prop_map(|c| c.to_string()),
        3 => node.clone(),
        2 => prop::collection::vec(node, 1..4).prop_map(|v| v.join(";")),
        2 => (0u32..6).prop_map(|k| format!("id=m{k}")),
        2 => (0u32..6, prop::option::of(0u64..40)).prop_map(|(k, d)| match d {
            Some(d) => format!("dep=m{k}+{d}"),
            None => format!("dep=m{k}"),
        }),
        1 => prop::sample::select(vec![
            "#", "# comment", "", "dep=", "id=", "dep=m1+", "dep=m1+-3", "1e3", "-5",
            "99999999999999999999", "0,0;", ";", "+", "id=a b", "dom\u{e9}", "\t", "4294967297",
        ])
        .prop_map(str::to_string),
    ]
}

/// A text trace: mostly well formed (distinct ids `m0`, `m1`, ...,
/// dependencies on any line, cycles included, which the loader refuses),
/// one token sometimes swapped for another; or lines of any tokens.
fn trace_text() -> impl Strategy<Value = String> {
    let node = (0u32..4, 0u32..4);
    let line = (
        0u64..200,
        node.clone(),
        prop::collection::vec(node, 1..4),
        2u32..12,
        prop::collection::vec((0usize..8, prop::option::of(0u64..40)), 0..3),
    );
    let shaped = (
        prop::collection::vec(line, 1..8),
        prop::option::of((0usize..40, trace_token())),
    )
        .prop_map(|(lines, swap)| {
            let n = lines.len();
            let mut toks: Vec<Vec<String>> = Vec::new();
            for (i, (c, s, d, l, deps)) in lines.into_iter().enumerate() {
                let xy = |(x, y): (u32, u32)| format!("{x},{y}");
                let mut d: Vec<(u32, u32)> = d.into_iter().filter(|&u| u != s).collect();
                d.dedup();
                if d.is_empty() {
                    d.push(((s.0 + 1) % 4, s.1));
                }
                let mut t = vec![
                    c.to_string(),
                    xy(s),
                    d.iter().map(|&u| xy(u)).collect::<Vec<_>>().join(";"),
                    l.to_string(),
                    format!("id=m{i}"),
                ];
                for (j, delay) in deps {
                    let j = j % n;
                    if j != i {
                        t.push(match delay {
                            Some(dl) => format!("dep=m{j}+{dl}"),
                            None => format!("dep=m{j}"),
                        });
                    }
                }
                toks.push(t);
            }
            if let Some((k, tok)) = swap {
                let all: usize = toks.iter().map(|t| t.len()).sum();
                let mut k = k % all;
                for t in &mut toks {
                    if k < t.len() {
                        t[k] = tok;
                        break;
                    }
                    k -= t.len();
                }
            }
            toks.iter()
                .map(|t| t.join(" "))
                .collect::<Vec<_>>()
                .join("\n")
        });
    let noise = prop::collection::vec(prop::collection::vec(trace_token(), 0..7), 0..8)
        .prop_map(|l| l.iter().map(|t| t.join(" ")).collect::<Vec<_>>().join("\n"));
    prop_oneof![3 => shaped, 1 => noise]
}

fn trace_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wormcast-fuzz-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A 4×4 torus replaying `path` for at most 600 cycles.
fn trace_scenario(path: &std::path::Path, format: &str) -> Scenario {
    let sets = [
        "network.topology=\"torus:4x4\"".to_string(),
        "traffic.pattern=\"trace\"".into(),
        format!("traffic.trace=\"{}\"", path.display()),
        format!("traffic.trace_format=\"{format}\""),
        "run.warmup=0".into(),
        "run.cycles=300".into(),
        "run.drain_cycles=300".into(),
    ];
    Scenario::from_toml("", &sets, "fuzz").unwrap()
}

proptest! {
    #![proptest_config(config(128))]

    /// Any text trace: an `InputError` naming `traffic.trace`, or a run
    /// that ends in time with a clean scoreboard and every released
    /// message created no earlier than its cycle.
    #[test]
    fn trace_text_never_panics(text in trace_text()) {
        let p = trace_file("fuzz.txt", text.as_bytes());
        match Network::new(&trace_scenario(&p, "text")) {
            Err(e) => prop_assert!(e.field.starts_with("traffic.trace"), "{e}"),
            Ok(mut net) => {
                let r = net.run(&mut |_| true);
                prop_assert!(r.cycles <= 600, "{}", r.cycles);
                prop_assert!(r.scoreboard_clean());
                let t = net.trace.as_ref().unwrap();
                for (i, m) in t.trace.msgs.iter().enumerate() {
                    if let Some(at) = t.released_at[i] {
                        prop_assert!(at >= m.cycle);
                    }
                }
            }
        }
    }

    /// Any bytes, bzip2-compressed or not, as a netrace file: an
    /// `InputError`, never a panic; the netrace magic and version in front
    /// get the reader past the header now and then.
    #[test]
    fn netrace_bytes_never_panic(
        body in prop::collection::vec(any::<u8>(), 0..400),
        header in any::<bool>(),
        compress in any::<bool>(),
    ) {
        let mut raw = Vec::new();
        if header {
            raw.extend(0x484A_5455u32.to_le_bytes());
            raw.extend(1.0f32.to_le_bytes());
        }
        raw.extend(&body);
        let bytes = if compress {
            use std::io::Write;
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(&raw).unwrap();
            e.finish().unwrap()
        } else {
            raw
        };
        let p = trace_file("fuzz.tra.bz2", &bytes);
        if let Ok(mut net) = Network::new(&trace_scenario(&p, "netrace")) {
            let r = net.run(&mut |_| true);
            prop_assert!(r.cycles <= 600);
        }
    }
}
