//! Vector tests of the *generated Verilog* against the native model
//! (docs/architecture.md §2 check 3, §7).
//!
//! rust-hdl's own simulation and the Verilog it emits can disagree silently
//! (docs/architecture.md §2, rust-hdl pitfalls: operator precedence, 32-bit literals, narrowing casts,
//! dynamic part selects), so the lockstep tests of [`crate::lockstep`] do not
//! cover the Verilog. Here the native model is run alone on a stimulus, every
//! cycle's inputs and expected registers are written to hex files, and a
//! generated self-checking testbench replays them under iverilog and
//! Verilator. A mismatch prints
//! `MISMATCH cycle C signal S: expected E, got G` for every differing signal
//! of the first bad cycle, then `$fatal` (nonzero exit); a clean run prints
//! `PASS <top>: N cycles, K signals per cycle`.
//!
//! **Files.** `*.in.hex`: line `c-1` = the inputs driven before clock edge
//! `c` (c = 1..N). `*.exp.hex`: line `c` = every checked signal after edge
//! `c` (line 0 = after the reset edge). Fields are hex, most significant
//! field first, one field per signal, separated by `_` (legal inside a
//! `$readmemh` number), each `ceil(width/4)` digits, so a line can be read by
//! eye against the field list in the testbench.
//!
//! **Time.** One cycle is 10 time units: inputs change at `10c`, the rising
//! edge `c` is at `10c+5`, signals are checked at `10c+9`, the clock falls
//! at `10c+10`. Edge 0 is the reset edge (`rst = 1`, inputs 0). The
//! registers after edge `c` are therefore what the native model holds after
//! cycle `c`, and what its VCD shows at time `c`.
//!
//! The testbench takes the vector files and the cycle count as plusargs
//! (`+vin=… +vexp=… +cycles=N`), so one Verilator build serves several
//! vector sets (the broken-model tests reuse the good build).

use crate::lockstep::RouterStim;
use crate::signals::{router_signals, verilog_instance, Signal};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use wormcast_rtl::names;
use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::router::{self, RouterInputs, RouterState};

/// One field of a vector line: a Verilog signal and its width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Input: a port of the top module. Check: a path relative to the
    /// top-module instance (`o_flit$0`, `r$5.in_state$0.q`).
    pub path: String,
    pub width: u32,
}

impl Field {
    fn digits(&self) -> usize {
        self.width.div_ceil(4) as usize
    }
}

/// Stimulus and expected values for one top module.
#[derive(Debug, Clone, Default)]
pub struct VectorSet {
    /// Top module name.
    pub top: String,
    /// Driven inputs (besides `clock` and `rst`).
    pub inputs: Vec<Field>,
    /// Checked signals.
    pub checks: Vec<Field>,
    /// `stim[c-1]` = input values before edge `c`, one per input field.
    pub stim: Vec<Vec<u64>>,
    /// `expect[c]` = checked values after edge `c`; `expect[0]` after reset.
    pub expect: Vec<Vec<u64>>,
    /// Scopes (relative to `dut`, "" = the top module) whose own wires the
    /// iverilog run dumps with `+vcd=FILE`, one level deep each: the router
    /// registers are wires of the router module (see [`crate::signals`]), so
    /// this is every compared signal at a fraction of a full dump's size.
    pub dump_scopes: Vec<String>,
}

fn hex_line(fields: &[Field], vals: &[u64]) -> String {
    debug_assert_eq!(fields.len(), vals.len());
    let mut s = String::with_capacity(fields.iter().map(|f| f.digits() + 1).sum());
    for (k, (f, &v)) in fields.iter().zip(vals).enumerate() {
        if k > 0 {
            s.push('_');
        }
        let v = if f.width >= 64 {
            v
        } else {
            v & ((1u64 << f.width) - 1)
        };
        write!(s, "{:0w$x}", v, w = f.digits()).unwrap();
    }
    s
}

/// Bit offsets `(hi, lo)` of each field in a memory word (first field on top).
fn layout(fields: &[Field]) -> (usize, Vec<(usize, usize)>) {
    let total: usize = fields.iter().map(|f| 4 * f.digits()).sum();
    let mut hi = total;
    let mut v = Vec::with_capacity(fields.len());
    for f in fields {
        let lo = hi - 4 * f.digits();
        v.push((hi - 1, lo));
        hi = lo;
    }
    (total, v)
}

/// Verilog identifier for a testbench-side register driving `port`.
fn tb_name(port: &str) -> String {
    format!("d_{}", port.replace('$', "_"))
}

impl VectorSet {
    pub fn cycles(&self) -> usize {
        self.stim.len()
    }

    /// Writes `<dir>/<tag>.in.hex` and `<dir>/<tag>.exp.hex`.
    pub fn write_hex(&self, dir: &Path, tag: &str) -> std::io::Result<(PathBuf, PathBuf)> {
        std::fs::create_dir_all(dir)?;
        let vin = dir.join(format!("{tag}.in.hex"));
        let vexp = dir.join(format!("{tag}.exp.hex"));
        let mut s = String::new();
        for row in &self.stim {
            s.push_str(&hex_line(&self.inputs, row));
            s.push('\n');
        }
        std::fs::write(&vin, s)?;
        let mut s = String::new();
        for row in &self.expect {
            s.push_str(&hex_line(&self.checks, row));
            s.push('\n');
        }
        std::fs::write(&vexp, s)?;
        Ok((vin, vexp))
    }

    /// The self-checking testbench (module `tb`, instance `dut`), for at most
    /// `max_cycles` cycles per run.
    pub fn testbench(&self, max_cycles: usize) -> String {
        let (iw, ilay) = layout(&self.inputs);
        let (ew, elay) = layout(&self.checks);
        let mut v = String::new();
        let top = &self.top;
        let nin = self.inputs.len();
        let nchk = self.checks.len();
        writeln!(
            v,
            "// Generated by wormcast-testbench (testbench/src/vectors.rs): replays the\n\
             // native model's vectors on `{top}` and checks {nchk} signals every cycle.\n\
             // Input fields, most significant first:\n\
             //   {}\n\
             // Checked fields, most significant first:\n\
             //   {}\n\
             `timescale 1ns/1ns\n\
             module tb;\n\
             \x20 localparam integer MAXN = {max_cycles};\n\
             \x20 reg [{}:0] vin [0:MAXN-1];\n\
             \x20 reg [{}:0] vexp [0:MAXN];\n\
             \x20 reg [8*512-1:0] fin, fexp, fvcd;\n\
             \x20 integer n, c, bad;\n\
             \x20 reg clock = 1'b0;\n\
             \x20 reg rst = 1'b1;",
            self.inputs
                .iter()
                .map(|f| format!("{}[{}]", f.path, f.width))
                .collect::<Vec<_>>()
                .join(" "),
            self.checks
                .iter()
                .map(|f| format!("{}[{}]", f.path, f.width))
                .collect::<Vec<_>>()
                .join(" "),
            iw.max(1) - 1,
            ew - 1,
        )
        .unwrap();
        for f in &self.inputs {
            writeln!(v, "  reg [{}:0] {} = 0;", f.width - 1, tb_name(&f.path)).unwrap();
        }
        writeln!(
            v,
            "\n  {top} dut(\n    .{}(clock),\n    .{}(rst)",
            names::CLK,
            names::RST
        )
        .unwrap();
        for f in &self.inputs {
            writeln!(v, "    , .{}({})", f.path, tb_name(&f.path)).unwrap();
        }
        writeln!(v, "  );\n").unwrap();
        // The check task: compare every field, report each difference.
        writeln!(v, "  task check;\n    begin").unwrap();
        for (f, (hi, lo)) in self.checks.iter().zip(&elay) {
            writeln!(
                v,
                "      if (dut.{p} !== vexp[c][{hi}:{lo}]) begin\n\
                 \x20       $display(\"MISMATCH cycle %0d signal {e}: expected %h, got %h\", c, vexp[c][{hi}:{lo}], dut.{p});\n\
                 \x20       bad = bad + 1;\n\
                 \x20     end",
                p = f.path,
                e = f.path.replace('"', ""),
            )
            .unwrap();
        }
        writeln!(v, "    end\n  endtask\n").unwrap();
        writeln!(v, "  task drive;\n    begin").unwrap();
        for (f, (_, lo)) in self.inputs.iter().zip(&ilay) {
            writeln!(
                v,
                "      {} = vin[c-1][{}:{}];",
                tb_name(&f.path),
                lo + f.width as usize - 1,
                lo
            )
            .unwrap();
        }
        writeln!(v, "    end\n  endtask\n").unwrap();
        let _ = nin;
        let dumps: String = self
            .dump_scopes
            .iter()
            .map(|d| {
                if d.is_empty() {
                    "      $dumpvars(1, tb.dut);\n".to_string()
                } else {
                    format!("      $dumpvars(1, tb.dut.{d});\n")
                }
            })
            .collect();
        writeln!(
            v,
            "  initial begin\n\
             \x20   if (!$value$plusargs(\"vin=%s\", fin)) $fatal(1, \"missing +vin=FILE\");\n\
             \x20   if (!$value$plusargs(\"vexp=%s\", fexp)) $fatal(1, \"missing +vexp=FILE\");\n\
             \x20   if (!$value$plusargs(\"cycles=%d\", n)) $fatal(1, \"missing +cycles=N\");\n\
             \x20   if (n > MAXN) $fatal(1, \"+cycles=%0d exceeds MAXN=%0d\", n, MAXN);\n\
             \x20   $readmemh(fin, vin, 0, n - 1);\n\
             \x20   $readmemh(fexp, vexp, 0, n);\n\
             `ifdef DUMP\n\
             \x20   if ($value$plusargs(\"vcd=%s\", fvcd)) begin\n\
             \x20     $dumpfile(fvcd);\n\
             \x20     $dumpvars(1, tb);\n\
             {dumps}\
             \x20   end\n\
             `endif\n\
             \x20   bad = 0;\n\
             \x20   c = 0;\n\
             \x20   // Edge 0: synchronous reset.\n\
             \x20   #5 clock = 1'b1;\n\
             \x20   #4 check;\n\
             \x20   if (bad != 0) $fatal(1, \"FAIL {top}: %0d signals differ at cycle %0d\", bad, c);\n\
             \x20   #1 clock = 1'b0;\n\
             \x20   rst = 1'b0;\n\
             \x20   for (c = 1; c <= n; c = c + 1) begin\n\
             \x20     drive;\n\
             \x20     #5 clock = 1'b1;\n\
             \x20     #4 check;\n\
             \x20     if (bad != 0) $fatal(1, \"FAIL {top}: %0d signals differ at cycle %0d\", bad, c);\n\
             \x20     #1 clock = 1'b0;\n\
             \x20   end\n\
             \x20   $display(\"PASS {top}: %0d cycles, {nchk} signals per cycle\", n);\n\
             \x20   $finish;\n\
             \x20 end\n\
             endmodule"
        )
        .unwrap();
        v
    }
}

/// Native single router on the lockstep stimulus ([`RouterStim`]: valid
/// worms, malformed heads, garbage flits, random back-pressure), `cycles`
/// cycles from reset. Ports: `in_P_flit, in_P_valid, out_P_ready` in;
/// every output and, with `internal`, every shared register checked.
pub fn router_vectors(
    top: &str,
    cfg: &RouterConfig,
    params: &RouterParams,
    seed: u64,
    cycles: usize,
    internal: bool,
) -> VectorSet {
    // Stimulus and model are the same parameters here; see
    // [`router_vectors_vs`] for a deliberately different model.
    router_vectors_vs(top, cfg, params, cfg, params, seed, cycles, internal)
}

/// Like [`router_vectors`], but the *expected* values come from a native
/// router with configuration `mcfg` and parameters `mparams`, while the
/// field list (the Verilog under test) follows `params`. With a different
/// model this builds a deliberately wrong expectation.
#[allow(clippy::too_many_arguments)]
pub fn router_vectors_vs(
    top: &str,
    cfg: &RouterConfig,
    params: &RouterParams,
    mcfg: &RouterConfig,
    mparams: &RouterParams,
    seed: u64,
    cycles: usize,
    internal: bool,
) -> VectorSet {
    let sigs = router_signals(params, internal);
    let mut vs = VectorSet {
        top: top.to_string(),
        ..Default::default()
    };
    let w = params.flit.width;
    for i in 0..params.inputs() {
        vs.inputs.push(Field {
            path: names::router_in(i, "flit"),
            width: w,
        });
    }
    for i in 0..params.inputs() {
        vs.inputs.push(Field {
            path: names::router_in(i, "valid"),
            width: 1,
        });
    }
    for o in 0..params.outputs() {
        vs.inputs.push(Field {
            path: names::router_out(o, "ready"),
            width: 1,
        });
    }
    // The one-node top wraps the shared router module: ports are checked
    // at the top, where they carry the native names (so a post-synthesis
    // netlist, which has no hierarchy, is checked the same way), registers
    // inside the instance.
    let inst = wormcast_rtl::generate::NODE_INSTANCE;
    vs.checks = sigs
        .iter()
        .map(|s| Field {
            path: if s.port {
                s.native.clone()
            } else {
                format!("{inst}.{}", s.verilog)
            },
            width: s.width,
        })
        .collect();
    let _ = cfg;
    // The registers live in the instance; a netlist (ports only) has none.
    vs.dump_scopes = vec![String::new()];
    if internal {
        vs.dump_scopes.push(inst.to_string());
    }
    let mut stim = RouterStim::new(mcfg, mparams, seed);
    let mut cur = RouterState::reset();
    let mut next = RouterState::reset();
    vs.expect.push(sigs.iter().map(|s| s.value(&cur)).collect());
    for _ in 0..cycles {
        let io: RouterInputs = stim.inputs(&cur);
        router::step(mcfg, mparams, &cur, &io, &mut next);
        std::mem::swap(&mut cur, &mut next);
        let mut row = Vec::with_capacity(vs.inputs.len());
        row.extend((0..params.inputs()).map(|i| io.flit[i]));
        row.extend((0..params.inputs()).map(|i| io.valid[i] as u64));
        row.extend((0..params.outputs()).map(|o| io.ready[o] as u64));
        vs.stim.push(row);
        vs.expect.push(sigs.iter().map(|s| s.value(&cur)).collect());
    }
    vs
}

/// Expectations from the rust-hdl router with a deliberate `fault`
/// (e.g. [`Fault::ArbiterPriority`](wormcast_rtl::Fault)), on the very
/// stimulus of [`router_vectors`] with the same seed (the stimulus follows
/// the native model's `ready`). A semantically wrong model: it agrees with
/// the native one until the faulty rule first matters.
pub fn router_vectors_rtl_fault<const W: usize>(
    top: &str,
    cfg: &RouterConfig,
    params: &RouterParams,
    fault: wormcast_rtl::Fault,
    seed: u64,
    cycles: usize,
    internal: bool,
) -> VectorSet {
    use crate::signals::rtl_value;
    let mut vs = router_vectors(top, cfg, params, seed, cycles, internal);
    let sigs = router_signals(params, internal);
    let mut dut = wormcast_rtl::drive::RouterDut::<W>::new(cfg, params, fault);
    vs.expect[0] = sigs.iter().map(|s| rtl_value(s, &dut.uut)).collect();
    let mut stim = RouterStim::new(cfg, params, seed);
    let mut cur = RouterState::reset();
    let mut next = RouterState::reset();
    for c in 1..=cycles {
        let io = stim.inputs(&cur);
        router::step(cfg, params, &cur, &io, &mut next);
        std::mem::swap(&mut cur, &mut next);
        dut.set_inputs(&io);
        dut.tick();
        vs.expect[c] = sigs.iter().map(|s| rtl_value(s, &dut.uut)).collect();
    }
    vs
}

/// What a fabric vector run covered.
#[derive(Debug, Clone, Default)]
pub struct FabricVectorStats {
    pub messages: usize,
    pub multicasts: usize,
    pub delivered: u64,
}

/// Native 4×4 (or any) DSTM fabric under real traffic from the native
/// [`Network`](wormcast_sim::network::Network): the NI ports are driven
/// (`inj_flit/inj_valid/cons_ready`) and checked (`inj_ready`,
/// `cons_flit/cons_valid`), and inside every router instance `r$N` every
/// signal of [`router_signals`] (links, error register and, with
/// `internal`, the shared registers).
///
/// `observe(net)` is called at cycle 0 and after every edge (e.g. to write
/// the native VCD of the same run).
pub fn fabric_vectors(
    top: &str,
    scenario: &wormcast_sim::scenario::Scenario,
    cycles: usize,
    internal: bool,
    observe: &mut dyn FnMut(&wormcast_sim::network::Network),
) -> (VectorSet, FabricVectorStats) {
    let mut net = wormcast_sim::network::Network::new(scenario).expect("valid network");
    let p = net.fabric.params;
    let n = net.fabric.topo.nodes() as usize;
    let sigs: Vec<Signal> = router_signals(&p, internal);
    let mut vs = VectorSet {
        top: top.to_string(),
        ..Default::default()
    };
    let w = p.flit.width;
    // NI port k = node × channels + channel.
    let ni = |k: usize, inj: bool, sig: &str| {
        let c = if inj { p.injection } else { p.consumption };
        names::ni_port((k / c) as u32, inj, (k % c) as u32, sig)
    };
    let ninj = n * p.injection;
    let ncons = n * p.consumption;
    for k in 0..ninj {
        vs.inputs.push(Field {
            path: ni(k, true, "flit"),
            width: w,
        });
    }
    for k in 0..ninj {
        vs.inputs.push(Field {
            path: ni(k, true, "valid"),
            width: 1,
        });
    }
    for k in 0..ncons {
        vs.inputs.push(Field {
            path: ni(k, false, "ready"),
            width: 1,
        });
    }
    for k in 0..ninj {
        vs.checks.push(Field {
            path: ni(k, true, "ready"),
            width: 1,
        });
    }
    for k in 0..ncons {
        vs.checks.push(Field {
            path: ni(k, false, "flit"),
            width: w,
        });
        vs.checks.push(Field {
            path: ni(k, false, "valid"),
            width: 1,
        });
    }
    vs.dump_scopes.push(String::new());
    vs.dump_scopes
        .extend((0..n).map(|r| verilog_instance(r as u32)));
    for r in 0..n {
        for s in &sigs {
            vs.checks.push(Field {
                path: format!("{}.{}", verilog_instance(r as u32), s.verilog),
                width: s.width,
            });
        }
    }
    let row = |net: &wormcast_sim::network::Network| {
        let mut v = Vec::with_capacity(ninj + 2 * ncons + n * sigs.len());
        for r in 0..n {
            for k in 0..p.injection {
                v.push(net.fabric.state[r].inp[4 + k].ready as u64);
            }
        }
        for r in 0..n {
            for c in 0..p.consumption {
                let o = &net.fabric.state[r].out[4 + c];
                v.push(o.flit);
                v.push(o.valid as u64);
            }
        }
        for r in 0..n {
            for s in &sigs {
                v.push(s.value(&net.fabric.state[r]));
            }
        }
        v
    };
    observe(&net);
    vs.expect.push(row(&net));
    for _ in 0..cycles {
        let mut inp = Vec::with_capacity(vs.inputs.len());
        let mut valid = Vec::with_capacity(ninj);
        for u in 0..n {
            for s in &net.nis[u].senders {
                inp.push(s.out_flit);
                valid.push(s.out_valid as u64);
            }
        }
        inp.extend(valid);
        // The native NIs always accept (`Network::step`); driven explicitly.
        inp.extend(std::iter::repeat_n(1u64, ncons));
        vs.stim.push(inp);
        net.step();
        observe(&net);
        vs.expect.push(row(&net));
    }
    assert_eq!(net.score, Default::default(), "native scoreboard");
    let st = FabricVectorStats {
        messages: net.msgs.len(),
        multicasts: net.msgs.iter().filter(|m| m.is_multicast()).count(),
        delivered: net.msgs.iter().map(|m| m.done_count as u64).sum(),
    };
    (vs, st)
}

/// A Verilog simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simulator {
    Icarus,
    Verilator,
}

impl std::fmt::Display for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Simulator::Icarus => "iverilog",
            Simulator::Verilator => "verilator",
        })
    }
}

/// Writes a generated module into `dir` as `TOP.v` and returns that path:
/// the device under test of a vector bench.
pub fn write_dut(g: &wormcast_rtl::generate::Generated, dir: &Path) -> PathBuf {
    let dut = dir.join(format!("{}.v", g.top));
    std::fs::write(&dut, &g.verilog)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", dut.display()));
    dut
}

/// The generated fabric of a scenario, written out as a device under test.
pub struct FabricDut {
    pub module: wormcast_rtl::generate::Generated,
    pub file: PathBuf,
    pub topo: wormcast_sim::topology::Topology,
    pub params: RouterParams,
}

/// Generates the Verilog of the fabric a scenario describes (same topology,
/// parameters and per-router tables as the native `Network`) and writes it
/// into `dir`.
pub fn write_fabric_dut(sc: &wormcast_sim::scenario::Scenario, dir: &Path) -> FabricDut {
    write_fabric_dut_as(sc, dir, wormcast_rtl::generate::Instances::Shared)
}

/// [`write_fabric_dut`] with the routers instantiated as `inst` says (the
/// per-node form the synthesis flow reads must be the same logic).
pub fn write_fabric_dut_as(
    sc: &wormcast_sim::scenario::Scenario,
    dir: &Path,
    inst: wormcast_rtl::generate::Instances,
) -> FabricDut {
    let net = wormcast_sim::network::Network::new(sc).unwrap_or_else(|e| panic!("{e}"));
    let (topo, params) = (net.fabric.topo, net.fabric.params);
    let module = wormcast_rtl::generate::fabric_module_as(
        &topo,
        &params,
        &net.fabric.cfg,
        wormcast_rtl::Fault::None,
        inst,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let file = write_dut(&module, dir);
    FabricDut {
        module,
        file,
        topo,
        params,
    }
}

/// Panics with an install hint when `cmd` is missing: the vector tests are
/// the only check of the generated Verilog, so a missing tool must fail the
/// suite loudly rather than skip (`bash scripts/test.sh` installs them).
pub fn require_tool(cmd: &str, package: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {cmd}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "`{cmd}` not found: the Verilog vector tests need it. Install the Debian package \
         `{package}` (`sudo apt-get install {package}`), or run `bash scripts/test.sh`, \
         which installs every tool the suite needs."
    );
}

/// Verilator's options for the testbench build.
///
/// The warnings: Verilator may print them for rust-hdl's output; the vector
/// build is not the lint (that is `scripts/lint.sh`, with named waivers),
/// so it only must not stop on them.
///
/// `--output-split-cfuncs`: the 4×4 fabric's model is otherwise one C++
/// file of 2.5 MB that a single compiler job works through; split into
/// small functions it builds in 49 s of CPU instead of 64 (28.7 s wall
/// instead of 37.5 with `-j 2`), and its 2 000-cycle run, which reading the
/// vector files dominates, takes the same 1.2 s (docs/decisions.md, "CI
/// time").
const VERILATOR_BUILD_FLAGS: &[&str] = &[
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
    "--output-split-cfuncs",
    "500",
];

/// A compiled testbench.
#[derive(Debug, Clone)]
pub struct Built {
    pub sim: Simulator,
    /// `vvp` image or Verilator binary.
    pub exe: PathBuf,
    pub seconds: f64,
}

/// Result of one simulation run.
#[derive(Debug, Clone)]
pub struct Run {
    pub ok: bool,
    pub exit: Option<i32>,
    pub stdout: String,
    pub seconds: f64,
}

impl Run {
    /// `MISMATCH …` lines printed by the testbench.
    pub fn mismatches(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.contains("MISMATCH cycle"))
            .collect()
    }
}

fn run_cmd(c: &mut Command, what: &str) -> std::process::Output {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Compiles `tb.v` + `dut.v` in `dir` with `sim`.
pub fn build(sim: Simulator, dir: &Path, tb: &Path, dut: &Path) -> Built {
    let t0 = Instant::now();
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let exe = match sim {
        Simulator::Icarus => {
            require_tool("iverilog", "iverilog");
            let exe = dir.join("tb.vvp");
            run_cmd(
                Command::new("iverilog")
                    .args(["-g2012", "-DDUMP", "-s", "tb", "-o"])
                    .arg(&exe)
                    .arg(tb)
                    .arg(dut),
                "iverilog",
            );
            exe
        }
        Simulator::Verilator => {
            require_tool("verilator", "verilator");
            let mdir = dir.join("obj_dir");
            run_cmd(
                Command::new("verilator")
                    .args(["--binary", "--timing", "--top-module", "tb", "-j", "2"])
                    .args(VERILATOR_BUILD_FLAGS)
                    // The C++ of a 4×4 fabric is large; -O1 halves the
                    // compile time for a few percent of run time.
                    .args(["-CFLAGS", "-O1", "-Mdir"])
                    .arg(&mdir)
                    .arg(tb)
                    .arg(dut),
                "verilator",
            );
            mdir.join("Vtb")
        }
    };
    Built {
        sim,
        exe,
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// Runs a built testbench on vector files; `vcd` dumps a waveform
/// (iverilog only).
pub fn run(b: &Built, vin: &Path, vexp: &Path, cycles: usize, vcd: Option<&Path>) -> Run {
    let t0 = Instant::now();
    let mut c = match b.sim {
        Simulator::Icarus => {
            require_tool("vvp", "iverilog");
            let mut c = Command::new("vvp");
            c.arg("-n").arg(&b.exe);
            c
        }
        Simulator::Verilator => Command::new(&b.exe),
    };
    c.arg(format!("+vin={}", vin.display()))
        .arg(format!("+vexp={}", vexp.display()))
        .arg(format!("+cycles={cycles}"));
    if let Some(v) = vcd {
        c.arg(format!("+vcd={}", v.display()));
    }
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", b.sim));
    let stdout =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let ok = out.status.success()
        && stdout.contains("PASS ")
        && !stdout.contains("MISMATCH")
        && !stdout.contains("FATAL");
    Run {
        ok,
        exit: out.status.code(),
        stdout,
        seconds: t0.elapsed().as_secs_f64(),
    }
}
