//! Command-line tests of `wormcast verilog`: one `.v` per top plus a
//! manifest, deterministic bytes, clear errors for bad flags.

use std::path::Path;
use std::process::Command;

mod common;
use common::wormcast as run;

/// Runs `wormcast verilog ARGS --out DIR` into two fresh directories named
/// after `tag`, asserts `file` is byte-identical in both (determinism), and
/// returns the manifest and the file.
fn generate_twice(tag: &str, args: &[&str], file: &str) -> (serde_json::Value, Vec<u8>) {
    let (a, b) = (tmp(&format!("{tag}_a")), tmp(&format!("{tag}_b")));
    for d in [&a, &b] {
        let o = run(&[&["verilog"], args, &["--out", d]].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let va = std::fs::read(Path::new(&a).join(file)).unwrap();
    let vb = std::fs::read(Path::new(&b).join(file)).unwrap();
    assert_eq!(va, vb, "{tag}: same flags, same bytes");
    let m = std::fs::read(Path::new(&a).join("manifest.json")).unwrap();
    (serde_json::from_slice(&m).unwrap(), va)
}

/// Exit code 2, the message names `field`, no panic.
fn rejects_field(args: &[&str], field: &str) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(field), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn tmp(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("wormcast_cli_verilog_{name}"));
    let _ = std::fs::remove_dir_all(&d);
    d.display().to_string()
}

#[test]
fn router_files_manifest_and_determinism() {
    let (m, _) = generate_twice(
        "router",
        &["--router", "--topology", "torus:4x4", "--node", "1,2"],
        "wormcast_router_n9.v",
    );
    assert_eq!(m["top"], "wormcast_router_n9");
    assert_eq!(m["files"][0], "wormcast_router_n9.v");
    assert_eq!(m["parameters"]["node"], 9);
    assert_eq!(m["parameters"]["flit_width"], 32);
    let ports = m["ports"].as_array().unwrap();
    assert!(ports
        .iter()
        .any(|p| p["name"] == "out_cons1_flit" && p["width"] == 32 && p["direction"] == "output"));
    // Conventional names only: no rust-hdl `$` separators at the top.
    assert!(ports
        .iter()
        .all(|p| !p["name"].as_str().unwrap().contains('$')));
    assert!(ports.iter().any(|p| p["name"] == "clk"));
}

#[test]
fn fabric_files() {
    let d = tmp("fabric");
    let o = run(&[
        "verilog",
        "--topology",
        "torus:3x3",
        "--construction",
        "dstm2",
        "--out",
        &d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&d).join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["top"], "wormcast_torus_3x3");
    assert_eq!(m["kind"], "fabric");
    let v = std::fs::read_to_string(Path::new(&d).join("wormcast_torus_3x3.v")).unwrap();
    assert!(v.contains("module wormcast_torus_3x3("));
    // The file list names the one Verilog file by its absolute path, so
    // that a simulator reads it from any working directory.
    assert_eq!(m["filelist"], "wormcast_torus_3x3.f");
    let f = std::fs::read_to_string(Path::new(&d).join("wormcast_torus_3x3.f")).unwrap();
    let abs = std::fs::canonicalize(&d)
        .unwrap()
        .join("wormcast_torus_3x3.v");
    assert_eq!(f, format!("{}\n", abs.display()));
    // ... and iverilog compiles the fabric through it from elsewhere
    // (scripts/test.sh installs iverilog).
    let elsewhere = std::env::temp_dir();
    let o = Command::new("iverilog")
        .current_dir(&elsewhere)
        .args(["-g2012", "-o"])
        .arg(Path::new(&d).join("a.vvp"))
        .arg("-c")
        .arg(Path::new(&d).join("wormcast_torus_3x3.f"))
        .output()
        .expect("iverilog runs (apt-get install iverilog)");
    assert!(
        o.status.success(),
        "iverilog -c from {}: {}",
        elsewhere.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    // The relative list names the file by bare name, for `verilator -F`
    // (paths relative to the list): it survives moving the folder, where
    // the absolute list does not.
    assert_eq!(m["filelist_relative"], "wormcast_torus_3x3.rel.f");
    let rel = std::fs::read_to_string(Path::new(&d).join("wormcast_torus_3x3.rel.f")).unwrap();
    assert_eq!(rel, "wormcast_torus_3x3.v\n");
    let moved = format!("{d}_moved");
    let _ = std::fs::remove_dir_all(&moved);
    std::fs::rename(&d, &moved).unwrap();
    let verilator = |flag: &str, list: &str| {
        Command::new("verilator")
            .current_dir(&elsewhere)
            .args([
                "--lint-only",
                "-Wno-fatal",
                "--top-module",
                "wormcast_torus_3x3",
                flag,
            ])
            .arg(Path::new(&moved).join(list))
            .output()
            .expect("verilator runs (apt-get install verilator)")
    };
    let o = verilator("-F", "wormcast_torus_3x3.rel.f");
    assert!(
        o.status.success(),
        "verilator -F from {} after moving the folder: {}",
        elsewhere.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let o = verilator("-f", "wormcast_torus_3x3.f");
    assert!(
        !o.status.success(),
        "the absolute list still names the old folder"
    );
    std::fs::rename(&moved, &d).unwrap();
    // NI ports by node and channel (docs/hardware.md section 0).
    let ports = m["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 2 + 9 * 3 + 9 * 2 * 3);
    for name in [
        "clk",
        "rst",
        "n8_inj0_flit",
        "n8_inj0_ready",
        "n4_cons1_valid",
    ] {
        assert!(ports.iter().any(|p| p["name"] == name), "{name}");
    }
    // One router module, instantiated once per node.
    assert_eq!(v.matches("module wormcast_router(").count(), 1);
    assert_eq!(v.matches("    wormcast_router r$").count(), 9);
}

#[test]
fn bad_flags_are_clear_errors() {
    for (args, field) in [
        (
            vec!["verilog", "--router", "--node", "9,9", "--out", "/tmp/x"],
            "node",
        ),
        (
            vec!["verilog", "--topology", "mesh:4x4", "--out", "/tmp/x"],
            "topology",
        ),
        (
            vec!["verilog", "--flit-width", "24", "--out", "/tmp/x"],
            "flit_width",
        ),
        (
            vec!["verilog", "--buffer-depth", "9", "--out", "/tmp/x"],
            "buffer_depth",
        ),
        (
            vec!["verilog", "--construction", "nope", "--out", "/tmp/x"],
            "nope",
        ),
        (
            vec!["verilog", "--routing", "xy", "--out", "/tmp/x"],
            "routing",
        ),
        (
            vec!["verilog", "--setup-cycles", "256", "--out", "/tmp/x"],
            "setup_cycles",
        ),
        (
            vec![
                "verilog",
                "--routing",
                "spam",
                "--topology",
                "mesh:4x4",
                "--out",
                "/tmp/x",
            ],
            "topology",
        ),
        (
            vec!["verilog", "--fault-info", "local", "--out", "/tmp/x"],
            "fault_info",
        ),
        (
            vec!["verilog", "--faulty-link", "1,1,+z", "--out", "/tmp/x"],
            "faulty_link",
        ),
        (
            vec![
                "verilog",
                "--faulty-link",
                "1,1,+x",
                "--fault-info",
                "nearby",
                "--out",
                "/tmp/x",
            ],
            "fault_info",
        ),
        (
            vec![
                "verilog",
                "--routing",
                "spam",
                "--faulty-link",
                "1,1,+x",
                "--out",
                "/tmp/x",
            ],
            "faulty_link",
        ),
    ] {
        rejects_field(&args, field);
    }
}

#[test]
fn faulty_link_with_local_information_sets_the_diversion_constants() {
    // Link (1,1)+x of the 4×4 DSTM-1 torus: its end routers, node 5 (port
    // +x, bit 0) and node 6 (port −x, bit 1), divert; no other router does.
    let (m, v) = generate_twice(
        "divert",
        &[
            "--topology",
            "torus:4x4",
            "--faulty-link",
            "1,1,+x",
            "--fault-info",
            "local",
        ],
        "wormcast_torus_4x4.v",
    );
    let dv: Vec<u64> = m["parameters"]["divert_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let mut want = vec![0u64; 16];
    want[5] = 1;
    want[6] = 2;
    assert_eq!(dv, want);
    assert_eq!(m["parameters"]["fault_info"], "local");
    // Global information changes the routers only by the unclassed link.
    let (g, gv) = generate_twice(
        "global",
        &["--topology", "torus:4x4", "--faulty-link", "1,1,+x"],
        "wormcast_torus_4x4.v",
    );
    assert!(g["parameters"]["divert_out"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x == 0));
    assert_ne!(v, gv, "the diversion constants are in the Verilog");
}

#[test]
fn spam_router_manifest_records_routing_and_setup() {
    let (m, va) = generate_twice(
        "spam",
        &[
            "--router",
            "--routing",
            "spam",
            "--setup-cycles",
            "2",
            "--node",
            "5",
        ],
        "wormcast_router_n5.v",
    );
    assert_eq!(m["parameters"]["routing"], "spam");
    assert_eq!(m["parameters"]["setup_cycles"], 2);
    assert_eq!(m["parameters"]["classes"], 1);
    assert_eq!(m["parameters"]["construction"], "bfs");
    // The tree router of the same node is a different circuit.
    let t = tmp("spam_tree");
    let o = run(&["verilog", "--router", "--node", "5", "--out", &t]);
    assert!(o.status.success());
    let vt = std::fs::read(Path::new(&t).join("wormcast_router_n5.v")).unwrap();
    assert_ne!(va, vt);
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&t).join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["parameters"]["routing"], "tree");
    assert_eq!(m["parameters"]["setup_cycles"], 0);
}

/// `--strip-deferred`: recorded in the manifest, a different circuit (it
/// has the `in_strip` registers), deterministic; off by default.
#[test]
fn strip_deferred_router_manifest_and_registers() {
    let (m, v) = generate_twice(
        "strip_deferred",
        &[
            "--router",
            "--setup-cycles",
            "1",
            "--strip-deferred",
            "--node",
            "5",
        ],
        "wormcast_router_n5.v",
    );
    assert_eq!(m["parameters"]["strip_deferred"], true);
    assert_eq!(m["parameters"]["setup_cycles"], 1);
    let text = String::from_utf8(v).unwrap();
    for i in 0..5 {
        assert!(text.contains(&format!("in_strip${i}$q")), "in_strip${i}");
    }
    let t = tmp("strip_default");
    let o = run(&["verilog", "--router", "--node", "5", "--out", &t]);
    assert!(o.status.success());
    let d = std::fs::read_to_string(Path::new(&t).join("wormcast_router_n5.v")).unwrap();
    assert!(!d.contains("in_strip"));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&t).join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["parameters"]["strip_deferred"], false);
}

/// `--hop fast`: recorded in the manifest, a different circuit
/// (the FIFO bypass's `byp` signals), deterministic; `standard` by default,
/// and a name that is neither is refused, naming the flag and the value.
#[test]
fn fast_hop_router_manifest_and_logic() {
    let (m, v) = generate_twice(
        "fast_hop",
        &["--router", "--hop", "fast", "--node", "5"],
        "wormcast_router_n5.v",
    );
    assert_eq!(m["parameters"]["hop"], "fast");
    let text = String::from_utf8(v).unwrap();
    for i in 0..5 {
        assert!(text.contains(&format!("byp${i} =")), "byp${i}");
    }
    // The bypass multiplexers of the four link inputs are kept for yosys
    // (docs/hardware.md, the fast hop), the injection input's flit is not.
    for i in 0..4 {
        let kept = format!("(* keep *) reg  [31:0] xbar$flit${i};");
        assert!(text.contains(&kept), "{kept}");
    }
    assert_eq!(text.matches("(* keep *)").count(), 4);
    let t = tmp("hop_default");
    let o = run(&["verilog", "--router", "--node", "5", "--out", &t]);
    assert!(o.status.success());
    let d = std::fs::read_to_string(Path::new(&t).join("wormcast_router_n5.v")).unwrap();
    assert!(!d.contains("byp$"));
    assert!(!d.contains("(* keep *)"));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&t).join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["parameters"]["hop"], "standard");
    let t = tmp("hop_bad");
    common::rejects(
        &["verilog", "--router", "--hop", "warp", "--out", &t],
        "hop",
        "warp",
    );
}

#[test]
fn mesh_router_and_fabric_manifest_records_routing() {
    for kind in ["hamiltonian", "dor", "negative_first"] {
        let (m, _) = generate_twice(
            kind,
            &[
                "--router",
                "--routing",
                kind,
                "--topology",
                "mesh:4x4",
                "--node",
                "1,1",
            ],
            "wormcast_router_n5.v",
        );
        assert_eq!(m["parameters"]["routing"], kind);
        assert_eq!(m["parameters"]["topology"], "mesh:4x4");
        assert_eq!(
            m["parameters"]["classes"],
            if kind == "hamiltonian" { 2 } else { 1 }
        );
    }
    let d = tmp("mesh_fabric");
    let o = run(&[
        "verilog",
        "--topology",
        "mesh:3x2",
        "--routing",
        "dor",
        "--out",
        &d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&d).join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["top"], "wormcast_mesh_3x2");
    assert_eq!(m["parameters"]["routing"], "dor");
    // Bad combinations: a torus with a mesh routing function, trees with
    // mesh routing.
    for (args, field) in [
        (
            vec!["verilog", "--routing", "dor", "--out", "/tmp/x"],
            "routing",
        ),
        (
            vec![
                "verilog",
                "--routing",
                "hamiltonian",
                "--topology",
                "mesh:4x4",
                "--construction",
                "dstm1",
                "--out",
                "/tmp/x",
            ],
            "construction",
        ),
    ] {
        rejects_field(&args, field);
    }
}

#[test]
fn fpga_top_files_manifest_and_errors() {
    let args = [
        "--fpga-top",
        "--topology",
        "torus:2x2",
        "--flit-width",
        "16",
        "--gen-rate",
        "40",
        "--gen-messages",
        "100",
    ];
    let (m, v) = generate_twice("fpga", &args, "wormcast_fpga_torus_2x2.v");
    let v = String::from_utf8(v).unwrap();
    assert_eq!(m["kind"], "fpga_top");
    assert_eq!(m["top"], "wormcast_fpga_torus_2x2");
    assert_eq!(m["board_top"], "wormcast_fpga_board");
    assert_eq!(m["parameters"]["gen_rate_per_256"], 40);
    assert_eq!(m["parameters"]["gen_messages"], 100);
    let ports: Vec<&str> = m["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        ports,
        [
            "clk",
            "rst",
            "pass",
            "done",
            "stall",
            "mismatch",
            "heartbeat",
            "err_count",
            "sent",
            "expected",
            "received"
        ]
    );
    // One generator and ROM per node, one checker per consumption channel,
    // the fabric with its one router module.
    assert_eq!(v.matches("    wc_gen #(").count(), 4);
    assert_eq!(v.matches("    wc_chk #(").count(), 8);
    assert_eq!(v.matches("\nmodule wc_rom_n").count(), 4);
    assert_eq!(v.matches("\nmodule wormcast_router(").count(), 1);
    let dir = std::env::temp_dir().join("wormcast_cli_verilog_fpga_a");
    let pcf = std::fs::read_to_string(Path::new(&dir).join("ice40_hx8k_breakout.pcf")).unwrap();
    assert!(pcf.contains("set_io clk J3"));
    let f = std::fs::read_to_string(Path::new(&dir).join("wormcast_fpga_torus_2x2.f")).unwrap();
    let abs = std::fs::canonicalize(&dir).unwrap();
    assert_eq!(
        f,
        format!(
            "{}\n{}\n",
            abs.join("wormcast_fpga_torus_2x2.v").display(),
            abs.join("wormcast_fpga_board.v").display()
        )
    );
    let out = |extra: &[&str]| {
        let mut a = vec!["verilog", "--fpga-top", "--flit-width", "16"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--out", "/tmp/wormcast_cli_verilog_fpga_bad"]);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    for (extra, field) in [
        (&["--gen-entries", "12"][..], "gen_entries"),
        (&["--gen-rate", "300"][..], "gen_rate"),
        (&["--gen-length", "1"][..], "gen_length"),
        (&["--gen-multicast", "1.5"][..], "gen_multicast"),
        (&["--gen-messages", "70000"][..], "gen_messages"),
        (&["--faulty-link", "0,0,+x"][..], "faulty_link"),
        (&["--router"][..], "fpga_top"),
        (&["--topology", "torus:1x1"][..], "topology"),
    ] {
        let a = out(extra);
        let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
        rejects_field(&a, field);
    }
}
