//! Gate-level equivalence: what yosys makes of the
//! generated Verilog is checked too, not only the Verilog itself.
//!
//! One router (node 5 of the 4×4 DSTM-1 torus, the design of
//! `scripts/synth.sh`) goes through `yosys synth_ice40` and `write_verilog`;
//! the netlist of SB_LUT4 / SB_DFF* / SB_CARRY cells runs under iverilog
//! with the cell models that ship with yosys
//! (`$(yosys-config --datdir)/ice40/cells_sim.v`, Debian: `/usr/share/yosys`)
//! and the router vector
//! testbench, and must equal the native router at every port on every
//! cycle. The netlist of a deliberately broken router (the arbiter's
//! priority rule, `Fault::ArbiterPriority`) must fail the same vectors.
//! Only ports are compared: synthesis flattens the design and renames its
//! registers.

use std::path::{Path, PathBuf};
use std::process::Command;
use wormcast_rtl::fabric_cfg::dstm_configs;
use wormcast_rtl::generate::{router_module_fault, Generated};
use wormcast_rtl::Fault;
use wormcast_sim::config::{Hop, RouterParams};
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
use wormcast_testbench::gate::{
    first_difference, fpga_netlist_run, gate_cycles, native_lines, onchip_plan,
};

/// The iCE40 board design's network: a 2×2 torus with 16-bit flits.
const TOP_2X2_W16: [&str; 2] = ["network.topology=torus:2x2", "network.flit_width=16"];
use wormcast_testbench::vectors::{build, require_tool, router_vectors, run, Simulator};

/// Cycles of stimulus: valid worms, malformed heads, garbage flits and
/// random back-pressure (the lockstep stimulus), enough for every routing
/// case of node 5 and for the broken arbiter to show.
const CYCLES: usize = 3_000;

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `synth_ice40` netlist of `g`, with the iCE40 cell models appended, in
/// one file ready for a simulator.
fn netlist(g: &Generated, dir: &Path, tag: &str) -> PathBuf {
    netlist_with(g, dir, tag, "synth_ice40")
}

/// [`netlist`] with the synthesis command `synth` (e.g. `synth_ice40 -abc9`,
/// the bitstream flow of `scripts/synth.sh`).
fn netlist_with(g: &Generated, dir: &Path, tag: &str, synth: &str) -> PathBuf {
    let rtl = dir.join(format!("{tag}_rtl.v"));
    std::fs::write(&rtl, &g.verilog).unwrap();
    let net = dir.join(format!("{tag}_netlist.v"));
    let script = format!(
        "read_verilog {}; {synth} -top {}; write_verilog -noattr {}",
        rtl.display(),
        g.top,
        net.display()
    );
    let t0 = std::time::Instant::now();
    let o = yosys(&script, tag);
    assert!(
        o.status.success(),
        "yosys failed on {tag}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!(
        "{tag}: synth_ice40 + write_verilog in {:.1}s",
        t0.elapsed().as_secs_f64()
    );
    let cells = yosys_datdir().join("ice40/cells_sim.v");
    // iverilog does not take default values on input ports, which the
    // cell models add unless told not to.
    let mut text = String::from("`define NO_ICE40_DEFAULT_ASSIGNMENTS\n");
    text.push_str(&std::fs::read_to_string(&net).unwrap());
    text.push_str(&std::fs::read_to_string(&cells).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the iCE40 cell models ship with yosys)",
            cells.display()
        )
    }));
    let sim = dir.join(format!("{tag}_gates.v"));
    std::fs::write(&sim, text).unwrap();
    sim
}

/// Runs `yosys -q -p script`, again (at most three runs in all) when the
/// ABC it calls dies of a signal. Debian's yosys 0.23 with its
/// berkeley-abc aborted once (return code 134) on the fast-hop router in a
/// CI run, and never in 50 runs of the same input on the same packages
/// here, where every run wrote the same netlist; a crash of the tool is not
/// a verdict on the design, a netlist that differs is, and every netlist
/// still goes through the vectors.
fn yosys(script: &str, tag: &str) -> std::process::Output {
    let mut runs = 0;
    loop {
        runs += 1;
        let o = Command::new("yosys")
            .args(["-q", "-p", script])
            .output()
            .expect("yosys runs");
        let err = String::from_utf8_lossy(&o.stderr);
        let abc_crashed = !o.status.success()
            && err.contains("ABC: execution of command")
            && (err.contains("return code 134") || err.contains("return code 139"));
        if !abc_crashed || runs == 3 {
            return o;
        }
        eprintln!("{tag}: yosys's ABC died of a signal (run {runs} of 3), running again: {err}");
    }
}

/// yosys's data directory: `yosys-config --datdir` where the Debian
/// package `yosys-dev` provides it, else the `yosys` package's own
/// `/usr/share/yosys` (the cell models are in `yosys`, not `yosys-dev`).
fn yosys_datdir() -> PathBuf {
    Command::new("yosys-config")
        .arg("--datdir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_else(|| PathBuf::from("/usr/share/yosys"))
}

#[test]
fn synthesised_router_netlist_equals_native_and_a_broken_one_is_caught() {
    router_gate_check(
        "gate_level",
        &RouterParams::default(),
        Fault::ArbiterPriority,
        11,
    );
}

/// The fast-hop router (`Hop::Fast`) at gate level: its `synth_ice40`
/// netlist equals the native fast model, and the netlist built with the
/// standard contract does not.
#[test]
fn synthesised_fast_hop_router_netlist_equals_native() {
    let p = RouterParams {
        hop: Hop::Fast,
        ..RouterParams::default()
    };
    router_gate_check("gate_level_fast", &p, Fault::StandardHop, 12);
}

/// Node 5's router of the 4×4 DSTM-1 torus with `p`, synthesised with
/// `synth_ice40` and simulated with the iCE40 cell models under iverilog,
/// against the native model's vectors for `CYCLES` cycles (stimulus
/// `seed`); the netlist of the router built with `fault` must fail.
fn router_gate_check(name: &str, p: &RouterParams, fault: Fault, seed: u64) {
    require_tool("yosys", "yosys");
    require_tool("iverilog", "iverilog");
    let dir = out_dir(name);
    let p = *p;
    let topo = Topology::torus(4, 4).unwrap();
    let cfg = dstm_configs(&topo, Named::Dstm1, &p).unwrap();
    let node = 5;
    let good = router_module_fault(&p, &cfg[node], Fault::None).unwrap();
    let bad = router_module_fault(&p, &cfg[node], fault).unwrap();
    assert_ne!(good.verilog, bad.verilog, "the fault changes the logic");

    let vs = router_vectors(&good.top, &cfg[node], &p, seed, CYCLES, false);
    let (vin, vexp) = vs.write_hex(&dir, "native").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, vs.testbench(CYCLES)).unwrap();

    let gates = netlist(&good, &dir, "good");
    let b = build(Simulator::Icarus, &dir.join("good"), &tb, &gates);
    let r = run(&b, &vin, &vexp, CYCLES, None);
    eprintln!(
        "gate-level router: {CYCLES} cycles in {:.1}s: {}",
        r.seconds,
        r.stdout.lines().last().unwrap_or("")
    );
    assert!(
        r.ok,
        "the synthesised netlist differs from the native model:\n{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains(&format!("PASS {}: {CYCLES} cycles", good.top)));

    let gates_bad = netlist(&bad, &dir, "bad");
    let b = build(Simulator::Icarus, &dir.join("bad"), &tb, &gates_bad);
    let r = run(&b, &vin, &vexp, CYCLES, None);
    let m = r.mismatches();
    eprintln!(
        "gate-level broken router: exit {:?}, first report: {}",
        r.exit,
        m.first().unwrap_or(&"none")
    );
    assert!(!r.ok, "the netlist of the router with {fault:?} passed");
    assert!(
        !m.is_empty() && m[0].contains("cycle ") && m[0].contains("signal "),
        "a mismatch must name cycle and signal:\n{}",
        r.stdout
    );
}

/// The self-checking FPGA top of `scripts/synth.sh` (2×2 DSTM-1 torus,
/// 16-bit flits) through the bitstream flow's `synth_ice40 -abc9`: the
/// netlist's outputs equal the native model's at every cycle (`pass`
/// rising at the first epoch check, cycle 16 384), and the netlist of the
/// top built from a broken router (`ReadyBeforeEdge`) fails its own
/// checks. About 6 minutes (two synthesis runs): run by
/// `scripts/synth.sh`, not in CI.
#[test]
#[ignore]
fn fpga_top_netlist_equals_native_and_a_broken_one_fails() {
    use wormcast_rtl::fpga_top::fpga_top;
    use wormcast_sim::onchip::{GenOptions, EPOCH};
    require_tool("yosys", "yosys");
    require_tool("iverilog", "iverilog");
    let cycles = gate_cycles(20_000);
    let dir = out_dir("gate_level_fpga");
    let plan = onchip_plan(&TOP_2X2_W16, GenOptions::default());
    let want = native_lines(plan.clone(), cycles);
    let last: Vec<&str> = want.last().unwrap().split(' ').collect();
    assert_eq!(
        (last[1], last[5]),
        ("1", "0"),
        "the native run passes: {last:?}"
    );
    let rose = want.iter().position(|l| l.split(' ').nth(1) == Some("1"));
    assert_eq!(rose, Some(EPOCH as usize), "pass rises at the first check");
    let good = fpga_top(&plan, Fault::None).unwrap();
    let gates = netlist_with(&good, &dir, "good", "synth_ice40 -abc9");
    let got = fpga_netlist_run(&dir, "good", &[gates], &["-g2005".into()], &good.top, &want);
    let diff = first_difference(&want, &got);
    assert_eq!(diff, None, "(native, netlist) at the first differing cycle");
    eprintln!(
        "gate-level FPGA top: {cycles} cycles equal; last {}",
        want.last().unwrap()
    );

    let bad = fpga_top(&plan, Fault::ReadyBeforeEdge).unwrap();
    let gates = netlist_with(&bad, &dir, "bad", "synth_ice40 -abc9");
    let got = fpga_netlist_run(&dir, "bad", &[gates], &["-g2005".into()], &bad.top, &want);
    let (w, g) =
        first_difference(&want, &got).expect("the broken netlist matched the native model");
    eprintln!("broken router: first difference native `{w}` netlist `{g}`");
    // On chip, without the native model: a failure shows (a checker
    // error, a stall or a mismatch) and `pass` never rises.
    let failed = got.iter().find(|l| failure(l));
    eprintln!("broken router: first failure: {failed:?}");
    assert!(failed.is_some(), "the broken netlist passed its own checks");
    assert!(
        got.iter().all(|l| l.split(' ').nth(1) == Some("0")),
        "the broken netlist raised pass"
    );
}

/// A line of `gate::fpga_tb` (cycle, pass, done, stall, heartbeat,
/// err_count, sent, expected, received, mismatch) that shows a failure.
fn failure(line: &str) -> bool {
    let f: Vec<&str> = line.split(' ').collect();
    f[3] == "1" || f[5] != "0" || f[9] == "1"
}

/// The same top built from a router that drops one branch of every
/// multicast (`Fault::DropBranch`), sending for ever, at gate level: no
/// checker error at any cycle, `pass` never rises, and `mismatch` is set by
/// the first epoch check (cycle 16 384) while about a thousand deliveries went
/// through. About 8 minutes on the loaded 2-core VM (one synthesis, 5 min;
/// 16 400 cycles of gate-level simulation, 2.6 min): run by
/// `scripts/synth.sh`, not in CI.
#[test]
#[ignore]
fn fpga_top_netlist_dropping_a_multicast_branch_fails_the_epoch_check() {
    use wormcast_rtl::fpga_top::fpga_top;
    use wormcast_sim::onchip::{GenOptions, EPOCH};
    require_tool("yosys", "yosys");
    require_tool("iverilog", "iverilog");
    let dir = out_dir("gate_level_fpga_drop");
    let plan = onchip_plan(&TOP_2X2_W16, GenOptions::default());
    let cycles = EPOCH as u64 + 16;
    let want = native_lines(plan.clone(), cycles);
    let bad = fpga_top(&plan, Fault::DropBranch).unwrap();
    let gates = netlist_with(&bad, &dir, "drop", "synth_ice40 -abc9");
    let got = fpga_netlist_run(&dir, "drop", &[gates], &["-g2005".into()], &bad.top, &want);
    assert_eq!(got.len(), want.len(), "one line per cycle");
    let diff = first_difference(&want, &got);
    eprintln!("dropping router: first difference (native, netlist) {diff:?}");
    assert!(
        diff.is_some(),
        "the dropping netlist matched the native model"
    );
    let field = |l: &str, i: usize| l.split(' ').nth(i).unwrap().to_string();
    for l in &got {
        assert_eq!(field(l, 1), "0", "pass: {l}");
        assert_eq!(field(l, 5), "0", "a checker error: {l}");
    }
    let mismatch_at = got.iter().position(|l| field(l, 9) == "1");
    let stall_at = got.iter().position(|l| field(l, 3) == "1");
    let at = &got[EPOCH as usize];
    eprintln!(
        "dropping router: stall at {stall_at:?}, mismatch at {mismatch_at:?}; at the check: {at}"
    );
    assert_eq!(mismatch_at, Some(EPOCH as usize));
    // Traffic kept flowing (at the default rate 16/256: about a thousand
    // deliveries in the epoch), and far more are missing than a good run
    // ever has in flight.
    let (exp, rec): (u64, u64) = (field(at, 7).parse().unwrap(), field(at, 8).parse().unwrap());
    assert!(rec > 500 && exp - rec > 100, "{at}");
}

/// The board bitstream's own netlist: the finite-run FPGA top
/// (`--gen-messages`) in its iCE40-HX8K board wrapper through `synth_ice40
/// -abc9`, `nextpnr-ice40 --hx8k --package ct256` with the breakout
/// `.pcf`, then `icebox_vlog`, which turns the placed-and-routed `.asc`
/// back into Verilog. Under iverilog its eight LED pins must equal, at
/// every cycle, what the native model's outputs put on them after the
/// wrapper's 16 power-on reset cycles, past the first epoch check (where
/// `pass` lights). About 5 minutes: run by `scripts/synth.sh`, not in CI.
#[test]
#[ignore]
fn fpga_board_post_place_and_route_equals_native() {
    use wormcast_rtl::fpga_top::{board_wrapper, fpga_top, BOARD_MODULE, BREAKOUT_PCF};
    use wormcast_sim::onchip::{GenOptions, OnChip, EPOCH};
    for t in ["yosys", "nextpnr-ice40", "icebox_vlog", "iverilog"] {
        require_tool(
            t,
            if t == "icebox_vlog" {
                "fpga-icestorm"
            } else {
                t
            },
        );
    }
    const POR: u64 = 16;
    let cycles: u64 = EPOCH as u64 + 200;
    let dir = out_dir("post_pnr_fpga");
    let opts = GenOptions {
        rate: 64,
        messages: 60,
        ..GenOptions::default()
    };
    let plan = onchip_plan(&TOP_2X2_W16, opts);
    // The LEDs the native model's outputs light, cycle by cycle.
    let mut native = OnChip::new(plan.clone());
    let mut want = Vec::new();
    let mut done_at = None;
    let mut pass_at = None;
    for c in 0..cycles {
        let o = native.outputs();
        if o.done && done_at.is_none() {
            done_at = Some(c);
        }
        if o.pass && pass_at.is_none() {
            pass_at = Some(c);
        }
        let led = (o.heartbeat as u32)
            | (o.pass as u32) << 1
            | (o.done as u32) << 2
            | (o.stall as u32) << 3
            | ((o.err_count != 0) as u32) << 4
            | (o.mismatch as u32) << 5
            | (o.err_count & 3) << 6;
        want.push(led);
        native.step();
    }
    let done_at = done_at.expect("the native run finishes within the window");
    assert_eq!(
        pass_at,
        Some(EPOCH as u64),
        "pass lights at the first check"
    );
    let top = fpga_top(&plan, Fault::None).unwrap();
    let rtl = dir.join("top.v");
    std::fs::write(&rtl, format!("{}{}", top.verilog, board_wrapper(&top))).unwrap();
    let pcf = dir.join("board.pcf");
    std::fs::write(&pcf, BREAKOUT_PCF).unwrap();
    let json = dir.join("board.json");
    let asc = dir.join("board.asc");
    let step = |what: &str, cmd: &mut Command| {
        let t0 = std::time::Instant::now();
        let o = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            o.status.success(),
            "{what} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        eprintln!("{what}: {:.1}s", t0.elapsed().as_secs_f64());
        o.stdout
    };
    step(
        "yosys synth_ice40 -abc9",
        Command::new("yosys").args([
            "-q",
            "-p",
            &format!(
                "read_verilog {}; synth_ice40 -abc9 -top {BOARD_MODULE} -json {}",
                rtl.display(),
                json.display()
            ),
        ]),
    );
    step(
        "nextpnr-ice40",
        Command::new("nextpnr-ice40")
            .args([
                "--hx8k",
                "--package",
                "ct256",
                "--freq",
                "12",
                "--seed",
                "1",
                "-q",
            ])
            .arg("--json")
            .arg(&json)
            .arg("--pcf")
            .arg(&pcf)
            .arg("--asc")
            .arg(&asc),
    );
    let post = step(
        "icebox_vlog",
        Command::new("icebox_vlog")
            .args(["-d", "ct256", "-n", BOARD_MODULE, "-p"])
            .arg(&pcf)
            .arg(&asc),
    );
    let net = dir.join("post_pnr.v");
    std::fs::write(&net, post).unwrap();
    let leds: Vec<String> = (0..8).map(|i| format!("\\led[{i}] ")).collect();
    let tb = format!(
        "`timescale 1ns/1ps\nmodule tb;\n  reg clk = 0;\n  wire [7:0] led;\n  \
         {BOARD_MODULE} dut(.clk(clk), {});\n  integer c;\n  initial begin\n    \
         for (c = 0; c < {}; c = c + 1) begin\n      #1 clk = 1; #1 clk = 0;\n      \
         #1 $display(\"%0d %0d\", c + 1, led);\n    end\n    $finish;\n  end\nendmodule\n",
        leds.iter()
            .enumerate()
            .map(|(i, l)| format!(".{l}(led[{i}])"))
            .collect::<Vec<_>>()
            .join(", "),
        cycles + POR
    );
    let tbf = dir.join("tb.v");
    std::fs::write(&tbf, tb).unwrap();
    let exe = dir.join("post.vvp");
    step(
        "iverilog",
        Command::new("iverilog")
            .arg("-o")
            .arg(&exe)
            .arg(&tbf)
            .arg(&net),
    );
    let out = step("vvp", Command::new("vvp").arg("-n").arg(&exe));
    let got: Vec<(u64, u32)> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| {
            let (a, b) = l.split_once(' ')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect();
    assert_eq!(got.len() as u64, cycles + POR, "one line per edge");
    // After edge POR the wrapper's reset is over: edge POR + c shows the
    // native outputs after c cycles.
    for &(edge, led) in got.iter().filter(|(e, _)| (POR..POR + cycles).contains(e)) {
        let c = (edge - POR) as usize;
        assert_eq!(
            led, want[c],
            "edge {edge} (native cycle {c}): LEDs {led:08b}, native {:08b}",
            want[c]
        );
    }
    eprintln!(
        "post-P&R board netlist: {} cycles equal on the LEDs; done (led 2) at native cycle {done_at}, \
         pass (led 1) at {pass_at:?}",
        cycles
    );
}
