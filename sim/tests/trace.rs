//! Trace replay (`traffic.pattern = "trace"`, docs/scenario.md "Trace
//! replay"): text traces and netrace files the tests write themselves,
//! replayed on the cycle model. Dependencies are checked from the delivery
//! records, never from the replay's own bookkeeping: a message is created
//! no earlier than its cycle, nor than `delay` cycles after each message
//! it depends on reached its last destination.

#[path = "common/netrace_file.rs"]
mod netrace_file;

use netrace_file::{NtHeader, NtPacket};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use wormcast_sim::network::records::records;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

/// A file of this test process holding `bytes`.
fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wormcast-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn scenario(path: &std::path::Path, format: &str, extra: &[&str]) -> Scenario {
    let mut sets = vec![
        "traffic.pattern=\"trace\"".to_string(),
        format!("traffic.trace=\"{}\"", path.display()),
        format!("traffic.trace_format=\"{format}\""),
        "run.warmup=0".into(),
        "run.cycles=200000".into(),
        "run.drain_cycles=1000".into(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    Scenario::from_toml("", &sets, "test").unwrap()
}

fn run(sc: &Scenario) -> (Network, wormcast_sim::network::stats::Report) {
    let mut net = Network::new(sc).unwrap_or_else(|e| panic!("{e}"));
    let r = net.run(&mut |_| true);
    (net, r)
}

fn refused(sc: &Scenario) -> String {
    match Network::new(sc) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted: {:?}", sc.traffic.trace),
    }
}

/// One line of a random text trace and what it promises.
struct Line {
    cycle: u64,
    dests: usize,
    deps: Vec<(usize, u64)>,
}

/// A random trace on an 8×8 network: unicasts and multicasts, each line
/// depending on up to three earlier ones (or, named later in the file, a
/// later one: order in the file is not order in time).
fn random_trace(seed: u64, n: usize) -> (String, Vec<Line>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::from("# random trace\n\n");
    let mut lines = Vec::new();
    // Message k depends only on messages of a smaller rank; ranks are
    // shuffled against file positions so dependencies point both ways.
    let mut rank: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        rank.swap(i, rng.gen_range(0..=i));
    }
    let by_rank: Vec<usize> = {
        let mut v = vec![0; n];
        for (pos, &r) in rank.iter().enumerate() {
            v[r] = pos;
        }
        v
    };
    for pos in 0..n {
        let src = rng.gen_range(0..64u32);
        let count = if rng.gen_bool(0.3) {
            rng.gen_range(2..6)
        } else {
            1
        };
        let mut dests = Vec::new();
        while dests.len() < count {
            let d = rng.gen_range(0..64u32);
            if d != src && !dests.contains(&d) {
                dests.push(d);
            }
        }
        let cycle = rng.gen_range(0..400u64);
        let mut deps = Vec::new();
        if rank[pos] > 0 {
            for _ in 0..rng.gen_range(0..4) {
                let up = by_rank[rng.gen_range(0..rank[pos])];
                if !deps.iter().any(|&(u, _)| u == up) {
                    deps.push((up, rng.gen_range(0..30u64)));
                }
            }
        }
        let node = |u: u32| format!("{},{}", u % 8, u / 8);
        let dl: Vec<String> = dests.iter().map(|&d| node(d)).collect();
        text += &format!(
            "{cycle} {} {} {} id=m{pos}",
            node(src),
            dl.join(";"),
            rng.gen_range(2..12)
        );
        for &(u, d) in &deps {
            text += &format!(" dep=m{u}+{d}");
        }
        text += "   # a comment\n";
        lines.push(Line {
            cycle,
            dests: dests.len(),
            deps,
        });
    }
    (text, lines)
}

/// From the delivery records: every message created no earlier than its
/// cycle and than its dependencies' last deliveries plus their delays,
/// and delivered to every destination.
fn check_order(net: &Network, lines: &[Line]) {
    let rec = records(net);
    let replay = net.trace.as_ref().unwrap();
    for (i, l) in lines.iter().enumerate() {
        let r = &rec[replay.msg[i].expect("created") as usize];
        assert_eq!(r.deliveries.len(), l.dests, "line {i}");
        assert!(r.deliveries.iter().all(|d| d.cycle.is_some()), "line {i}");
        assert!(
            r.created >= l.cycle,
            "line {i}: {} < {}",
            r.created,
            l.cycle
        );
        for &(u, delay) in &l.deps {
            let up = &rec[replay.msg[u].unwrap() as usize];
            let fin = up.finished.expect("dependency delivered");
            assert!(
                r.created >= fin + delay,
                "line {i} created at {} before its dependency {u} (delivered {fin}) + {delay}",
                r.created
            );
            let injected = r.injected.expect("injected");
            assert!(injected > fin + delay);
        }
    }
}

#[test]
fn text_trace_keeps_every_dependency_and_reaches_every_destination() {
    let (text, lines) = random_trace(7, 300);
    let p = write("random.txt", text.as_bytes());
    let (net, r) = run(&scenario(&p, "text", &[]));
    assert_eq!(r.stop_reason, "trace complete");
    let t = r.trace.as_ref().unwrap();
    assert_eq!((t.messages, t.delivered, t.unreleased), (300, 300, 0));
    let deps: usize = lines.iter().map(|l| l.deps.len()).sum();
    assert!(deps > 200, "{deps}");
    assert_eq!(t.dependencies, deps as u64);
    assert!(lines.iter().filter(|l| l.dests > 1).count() > 50);
    check_order(&net, &lines);
    assert_eq!(t.completion_cycle, Some(r.cycles));
    assert!(r.scoreboard_clean());
}

#[test]
fn dependencies_hold_on_a_mesh_with_path_based_multicasts_too() {
    let (text, lines) = random_trace(11, 120);
    let p = write("mesh.txt", text.as_bytes());
    let sc = scenario(
        &p,
        "text",
        &[
            "network.topology=\"mesh:8x8\"",
            "network.routing=\"hamiltonian\"",
        ],
    );
    let (net, r) = run(&sc);
    assert_eq!(r.stop_reason, "trace complete");
    check_order(&net, &lines);
}

#[test]
fn a_dependency_delay_is_waited_exactly_when_nothing_else_holds_the_message() {
    // b waits for a + 50: on an idle network it is created exactly then.
    let p = write(
        "delay.txt",
        b"0 0,0 3,3 4 id=a\n0 3,3 0,0;1,1 4 id=b dep=a+50\n5 1,1 2,2 4 dep=a\n",
    );
    let (net, r) = run(&scenario(&p, "text", &[]));
    let rec = records(&net);
    let replay = net.trace.as_ref().unwrap();
    let a = &rec[replay.msg[0].unwrap() as usize];
    let b = &rec[replay.msg[1].unwrap() as usize];
    let c = &rec[replay.msg[2].unwrap() as usize];
    assert_eq!(b.created, a.finished.unwrap() + 50);
    // c: its own cycle 5 is earlier than a's delivery; the default delay 0.
    assert_eq!(c.created, a.finished.unwrap());
    assert_eq!(r.trace.unwrap().released, 3);
    // traffic.trace_delay is the delay of a `dep=` without one.
    let (net, _) = run(&scenario(&p, "text", &["traffic.trace_delay=7"]));
    let rec = records(&net);
    let replay = net.trace.as_ref().unwrap();
    let a = &rec[replay.msg[0].unwrap() as usize];
    assert_eq!(
        rec[replay.msg[2].unwrap() as usize].created,
        a.finished.unwrap() + 7
    );
}

#[test]
fn the_same_trace_and_seed_give_the_same_bits() {
    let (text, _) = random_trace(3, 150);
    let p = write("same.txt", text.as_bytes());
    let sc = scenario(&p, "text", &["traffic.seed=42"]);
    let csv = |net: &Network| {
        let mut v = Vec::new();
        wormcast_sim::network::records::write_csv(net, &mut v).unwrap();
        v
    };
    let (n1, r1) = run(&sc);
    let (n2, r2) = run(&sc);
    assert_eq!(csv(&n1), csv(&n2));
    let json = |r: &wormcast_sim::network::stats::Report| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("wall_seconds");
        v.as_object_mut()
            .unwrap()
            .remove("router_cycles_per_second");
        v
    };
    assert_eq!(json(&r1), json(&r2));
    // Another seed draws other multicast trees: the same trace, other bits
    // somewhere, but the same messages delivered.
    let (n3, r3) = run(&scenario(&p, "text", &["traffic.seed=43"]));
    assert_eq!(r3.trace.as_ref().unwrap().delivered, 150);
    assert_ne!(csv(&n1), csv(&n3));
}

#[test]
fn a_window_shorter_than_the_trace_replays_its_start() {
    let p = write(
        "cut.txt",
        b"0 0,0 1,1 4\n100 1,1 2,2 4 id=x\n900 2,2 3,3 4 dep=x\n",
    );
    let sc = scenario(&p, "text", &["run.cycles=500", "run.drain_cycles=500"]);
    let (_, r) = run(&sc);
    let t = r.trace.unwrap();
    assert_eq!((t.released, t.delivered, t.unreleased), (2, 2, 1));
    assert_eq!(t.completion_cycle, None);
    assert_eq!(r.stop_reason, "drained");
}

/// A netrace trace: 9 → 18 ReadReq, answered after it (ReadResp), a
/// packet to its own node, and a WriteReq that waits for two packets.
fn netrace_packets() -> Vec<NtPacket> {
    let p = |cycle, id, ty, src, dst, deps: &[u32]| NtPacket {
        cycle,
        id,
        ty,
        src,
        dst,
        deps: deps.to_vec(),
    };
    vec![
        p(0, 10, 1, 9, 18, &[11, 14]), // ReadReq, 8 bytes
        p(2, 11, 2, 18, 9, &[14]),     // ReadResp, 72 bytes: waits for 10
        p(3, 12, 1, 63, 63, &[13]),    // to its own node: local
        p(3, 13, 5, 0, 7, &[]),        // WriteResp: waits for 12
        p(5, 14, 4, 9, 0, &[999]),     // WriteReq: waits for 10 and 11
        p(6, 15, 1, 1, 2, &[10]),      // names an earlier packet: ignored
    ]
}

#[test]
fn a_netrace_file_replays_with_netraces_dependencies_sizes_and_nodes() {
    let bytes = netrace_file::file(&NtHeader::default(), &netrace_packets());
    let p = write("small.tra.bz2", &bytes);
    let (net, r) = run(&scenario(&p, "netrace", &[]));
    assert_eq!(r.stop_reason, "trace complete");
    let t = r.trace.as_ref().unwrap();
    assert_eq!(t.benchmark, "unit-test");
    assert_eq!((t.messages, t.delivered, t.local), (6, 6, 1));
    // 10 -> 11, 10 -> 14, 11 -> 14, 12 -> 13; 999 is no packet, 15 -> 10
    // points backwards.
    assert_eq!(t.dependencies, 4);
    let rec = records(&net);
    let replay = net.trace.as_ref().unwrap();
    let msg = |i: usize| &rec[replay.msg[i].expect("sent over the network") as usize];
    // Node n at (n mod 8, n div 8); 8 bytes of 32-bit flits: 2 flits, 72: 18.
    assert_eq!((msg(0).source_x, msg(0).source_y), (1, 1));
    assert_eq!((msg(0).deliveries[0].x, msg(0).deliveries[0].y), (2, 2));
    assert_eq!((msg(0).length, msg(1).length, msg(4).length), (2, 18, 18));
    assert!(
        replay.msg[2].is_none(),
        "a packet to its own node stays off the network"
    );
    let fin = |i: usize| msg(i).finished.unwrap();
    assert!(msg(1).created >= fin(0));
    assert!(msg(4).created >= fin(0).max(fin(1)));
    assert_eq!(
        msg(3).created,
        3,
        "the local packet 12 is delivered at its release"
    );
    // Wider flits, fewer of them: 72 bytes of 64-bit flits are 9.
    let (net, _) = run(&scenario(&p, "netrace", &["network.flit_width=64"]));
    let rec = records(&net);
    assert_eq!(
        rec[net.trace.as_ref().unwrap().msg[1].unwrap() as usize].length,
        9
    );
}

#[test]
fn pbzip2_style_multi_stream_files_are_read_whole() {
    let raw = netrace_file::raw(&NtHeader::default(), &netrace_packets());
    let (a, b) = raw.split_at(100);
    let mut bytes = netrace_file::compress(a);
    bytes.extend(netrace_file::compress(b));
    let p = write("multi.tra.bz2", &bytes);
    let (_, r) = run(&scenario(&p, "netrace", &[]));
    assert_eq!(r.trace.unwrap().delivered, 6);
}

#[test]
fn bad_traces_are_refused_with_the_line_or_packet_and_what_is_allowed() {
    let cases: &[(&str, &[u8], &[&str])] = &[
        ("outside.txt", b"# ok\n0 0,0 1,1 4\n3 0,0 9,9 4\n", &["line 3", "destinations", "9,9", "x < 8"]),
        ("malformed.txt", b"0 0,0 1,1 4\n\n7 0,0 1,1\n", &["line 3", "CYCLE SOURCE DESTS LENGTH"]),
        ("cycle.txt", b"x 0,0 1,1 4\n", &["line 1: cycle", "`x`"]),
        ("length.txt", b"0 0,0 1,1 1\n", &["line 1: length", "`1`", "2 (identity BODY + TAIL)"]),
        ("field.txt", b"0 0,0 1,1 4 after=a\n", &["line 1: field", "after=a", "dep=NAME"]),
        ("unknown.txt", b"0 0,0 1,1 4 id=a\n1 1,1 0,0 4 dep=b\n", &["line 2: dep", "`b`", "id=NAME"]),
        ("dup.txt", b"0 0,0 1,1 4 id=a\n1 1,1 0,0 4 id=a\n", &["line 2: id", "line 1 has it too"]),
        ("self.txt", b"0 0,0 0,0 4\n", &["line 1: destinations", "own destination"]),
        ("twice.txt", b"0 0,0 1,1;1,1 4\n", &["line 1: destinations", "named twice"]),
        ("delay.txt", b"0 0,0 1,1 4 id=a\n0 0,0 1,1 4 dep=a+x\n", &["line 2: dep", "DELAY"]),
        (
            "circle.txt",
            b"0 0,0 1,1 4 id=a dep=c\n0 0,0 1,1 4 id=b dep=a\n0 0,0 1,1 4 id=c dep=b\n0 0,0 1,1 4\n",
            &["dependencies", "3 messages in a cycle", "line 1", "line 2", "line 3"],
        ),
        ("itself.txt", b"0 0,0 1,1 4 id=a dep=a\n", &["line 1: dep", "cannot wait for itself"]),
    ];
    for (name, text, wanted) in cases {
        let p = write(name, text);
        let e = refused(&scenario(&p, "text", &[]));
        for w in *wanted {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
        assert!(e.contains(name), "{name}: the file is named: {e}");
    }
    let e = refused(&scenario(
        &PathBuf::from("/nonexistent/trace.txt"),
        "text",
        &[],
    ));
    assert!(
        e.contains("traffic.trace") && e.contains("/nonexistent/trace.txt"),
        "{e}"
    );
    // A netrace file read as text, and a text file read as netrace.
    let nt = write(
        "as-text.tra.bz2",
        &netrace_file::file(&NtHeader::default(), &netrace_packets()),
    );
    assert!(refused(&scenario(&nt, "text", &[])).contains("trace_format = \"netrace\""));
    let txt = write("as-netrace.txt", b"0 0,0 1,1 4\n");
    let e = refused(&scenario(&txt, "netrace", &[]));
    assert!(e.contains("bzip2"), "{e}");
}

#[test]
fn bad_netrace_files_are_refused_clearly() {
    let pk = netrace_packets();
    let good = netrace_file::raw(&NtHeader::default(), &pk);
    let compressed = netrace_file::file(&NtHeader::default(), &pk);
    let nt = |name: &str, bytes: Vec<u8>, extra: &[&str]| {
        refused(&scenario(&write(name, &bytes), "netrace", extra))
    };
    let h = |f: &dyn Fn(&mut NtHeader)| {
        let mut h = NtHeader::default();
        f(&mut h);
        netrace_file::file(&h, &pk)
    };
    // (file name, bytes, extra --set, what the error says)
    type Case<'a> = (&'a str, Vec<u8>, &'a [&'a str], Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "magic",
            h(&|h| h.magic = 0x1234_5678),
            &[],
            vec!["header: magic", "0x12345678", "0x484a5455"],
        ),
        (
            "version",
            h(&|h| h.version = 2.0),
            &[],
            vec!["header: version", "`2`", "netrace v1"],
        ),
        (
            "regions",
            h(&|h| h.regions = vec![[0; 3]; 101]),
            &[],
            vec!["regions", "101"],
        ),
        (
            "short-header",
            netrace_file::compress(&good[..40]),
            &[],
            vec!["the header", "truncated"],
        ),
        (
            "cut-packet",
            netrace_file::compress(&good[..good.len() - 7]),
            &[],
            vec!["a packet", "truncated"],
        ),
        (
            "missing-packets",
            h(&|h| h.packets = Some(9)),
            &[],
            vec![
                "6 packets",
                "the 9 packets its header announces",
                "truncated",
            ],
        ),
        (
            "cut-stream",
            compressed[..compressed.len() / 2].to_vec(),
            &[],
            vec!["bzip2", "decompressed trace"],
        ),
        (
            "corrupt-stream",
            {
                let mut c = compressed.clone();
                let k = c.len() / 2;
                c[k] ^= 0xff;
                c[k + 1] ^= 0x55;
                c
            },
            &[],
            vec!["bzip2"],
        ),
        // Node 63 is at 7,7: no such node on a 4x4 torus.
        (
            "small-network",
            compressed.clone(),
            &["network.topology=\"torus:4x4\""],
            vec!["packet 12: source", "netrace node 63", "x < 4"],
        ),
        (
            "node-count",
            h(&|h| h.nodes = 16),
            &[],
            vec!["packet 10: destination", "`18`", "node count 16"],
        ),
    ];
    for (name, bytes, extra, wanted) in cases {
        let e = nt(name, bytes, extra);
        for w in wanted {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
        assert!(!e.contains("panicked"), "{e}");
    }
    let mut bad = pk.clone();
    bad[2].ty = 7;
    let e = nt("type", netrace_file::file(&NtHeader::default(), &bad), &[]);
    assert!(e.contains("packet 12: type") && e.contains("`7`"), "{e}");
    let mut dup = pk.clone();
    dup[3].id = 10;
    let e = nt("dup", netrace_file::file(&NtHeader::default(), &dup), &[]);
    assert!(e.contains("packet 10: id"), "{e}");
}

#[test]
fn trace_keys_are_checked_against_the_pattern_and_the_generated_traffic() {
    let p = write("keys.txt", b"0 0,0 1,1 4\n");
    let v = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Scenario::from_toml("", &sets, "test")
            .unwrap()
            .validate()
            .err()
            .map(|e| e.to_string())
    };
    let path = format!("traffic.trace=\"{}\"", p.display());
    let e = v(&["traffic.pattern=\"trace\""]).unwrap();
    assert!(
        e.contains("traffic.trace") && e.contains("path of a trace file"),
        "{e}"
    );
    let e = v(&[&path]).unwrap();
    assert!(
        e.contains("traffic.trace") && e.contains("unless traffic.pattern = \"trace\""),
        "{e}"
    );
    let e = v(&["traffic.trace_format=\"netrace\""]).unwrap();
    assert!(e.contains("traffic.trace_format"), "{e}");
    for (key, value) in [
        ("traffic.rate", "0.01"),
        ("traffic.multicast_fraction", "0.5"),
        ("traffic.length", "8"),
        ("traffic.destinations", "3"),
    ] {
        let set = format!("{key}={value}");
        let e = v(&["traffic.pattern=\"trace\"", &path, &set]).unwrap();
        assert!(
            e.contains(key) && e.contains("its default with pattern = \"trace\""),
            "{e}"
        );
    }
    let e = v(&["traffic.pattern=\"trace\"", &path, "traffic.batch=3"]).unwrap();
    assert!(e.contains("traffic.batch"), "{e}");
    assert_eq!(v(&["traffic.pattern=\"trace\"", &path]), None);
    let sets = vec!["traffic.trace_format=\"pcap\"".to_string()];
    let e = Scenario::from_toml("", &sets, "test")
        .unwrap_err()
        .to_string();
    assert!(e.contains("text, netrace"), "{e}");
}
