//! VCD waveforms of the native model (docs/architecture.md §4), for GTKWave and for
//! comparing the native model with the generated Verilog signal by signal.
//!
//! **Hierarchy.** One top scope `fabric`; one scope per dumped router,
//! `r_X_Y`; inside it one variable per router register, named after the
//! register in [`RouterState`] and the port names of [`crate::ports`]:
//!
//! | variable            | width            | register |
//! |---------------------|------------------|----------|
//! | `in_P_state`        | 2                | input state: 0 Idle, 1 Active, 2 Discard, 3 Diverted (native model, local fault information) |
//! | `in_P_reserved`     | outputs          | outputs held by the worm, bit `o` = output `o` |
//! | `in_P_class`        | 2                | class of the worm |
//! | `in_P_count`        | bits of depth    | flits in the input FIFO |
//! | `in_P_ready`        | 1                | registered ready to upstream |
//! | `in_P_setup`        | 8                | header setup counter (only when `setup_cycles` > 0) |
//! | `in_P_strip`        | 1                | deferred strip: the stripped HEAD leaves now (only with `strip_deferred`) |
//! | `out_P_flit`        | flit width       | output register |
//! | `out_P_valid`       | 1                | output register valid |
//! | `out_P_owner`       | 4                | input index holding the output, 0xF = none |
//! | `prio`              | bits of inputs−1 | arbiter: input with the highest priority |
//! | `err_count`         | 16               | malformed worms seen |
//! | `err_code`          | 4                | last malformed case ([`crate::router::RouterError`]) |
//! | `shadow.out_P_msg`  | 32               | **simulation only**: message number of the flit in `out_P_flit`, `x` = none |
//!
//! The link wires need no variables of their own: a link's flit/valid are the
//! upstream router's `out_P_flit/valid` registers and its ready is the
//! downstream `in_P_ready` register. The `shadow` sub-scope is not hardware
//! and has no counterpart in the RTL; it is there because a message number
//! is what one looks for first in GTKWave.
//!
//! **Time.** Timescale 10 ns and **1 cycle = 1 time unit**, the clock period
//! of the generated Verilog's testbench (`testbench/src/vectors.rs`: a 10 ns
//! clock), so GTKWave puts cycle `c` at `10c` ns in both pictures (the
//! Verilog's edge at `10c + 5` ns): the values at time
//! `t` are the registers after clock edge `t` (time 0 = reset), exactly what
//! [`Network::run`](crate::network::Network::run)'s `observe` sees when
//! `cycle() == t`. Only changes are written, so an idle router costs nothing
//! in the file; the first sample of the window writes every variable.
//!
//! **Cost.** Outside the window [`VcdWriter::sample`] is one comparison, so a
//! long run with a short window is as fast as one without a VCD. Inside it,
//! a router whose registers did not change since the last sample is skipped
//! after one struct comparison.

use crate::config::{RouterParams, MAX_OUTPUTS};
use crate::error::{InputError, InputResult};
use crate::fabric::{Fabric, NO_MSG};
use crate::flit::CLASS_BITS;
use crate::ports::{input_name, output_name};
use crate::router::{RouterState, NO_OWNER};
use crate::topology::{NodeId, Topology};
use std::io::{self, Write};
use vcd::{IdCode, TimescaleUnit, VarType};

/// Networks up to this many routers are dumped whole when no router list is
/// given; beyond it a full dump is more than anyone can read in GTKWave and
/// can reach gigabytes, so the user must choose.
pub const DEFAULT_ALL_LIMIT: u32 = 64;

/// Width of the `out_P_owner` variable; its all-ones value means "no owner".
pub const OWNER_BITS: u32 = 4;
/// Width of the `err_count` register.
pub const ERR_COUNT_BITS: u32 = 16;
/// Width of the `err_code` register (codes 1..=11).
pub const ERR_CODE_BITS: u32 = 4;
/// Width of the `in_P_setup` header setup counter (`setup_cycles` ≤ 255).
pub const SETUP_BITS: u32 = 8;
/// One clock cycle in ns, the VCD's timescale: the period of the generated
/// Verilog testbench's clock, so the native and Verilog waveforms line up.
pub const CYCLE_NS: u32 = 10;
/// Width of the shadow message numbers.
pub const MSG_BITS: u32 = 32;

/// Half-open cycle window `[start, end)`; `end == u64::MAX` means "to the end
/// of the run".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: u64,
    pub end: u64,
}

impl Window {
    pub const ALL: Window = Window {
        start: 0,
        end: u64::MAX,
    };

    pub fn contains(&self, t: u64) -> bool {
        t >= self.start && t < self.end
    }
}

/// Parses `--vcd-window`: `A..B` (cycles A to B−1, like a Rust range) or
/// `A..` (from A to the end of the run). `None` is the whole run.
pub fn parse_window(s: Option<&str>) -> InputResult<Window> {
    let Some(s) = s else {
        return Ok(Window::ALL);
    };
    let err = |why: &str| {
        InputError::new(
            "--vcd-window",
            s,
            format!("`A..B` (cycles A to B-1) or `A..` (from A to the end) with integers 0 <= A < B{why}"),
        )
    };
    let (a, b) = s.trim().split_once("..").ok_or_else(|| err(""))?;
    let start: u64 = a.trim().parse().map_err(|_| err(""))?;
    let end: u64 = if b.trim().is_empty() {
        u64::MAX
    } else {
        b.trim().parse().map_err(|_| err(""))?
    };
    if start >= end {
        return Err(err("; the window is empty"));
    }
    Ok(Window { start, end })
}

/// Parses `--vcd-routers`: `all` or a `;`-separated list of `X,Y`. `None`
/// means all routers on networks of at most [`DEFAULT_ALL_LIMIT`] nodes and
/// is an error on larger ones. Returns node ids, sorted, without duplicates.
pub fn parse_routers(topo: &Topology, s: Option<&str>) -> InputResult<Vec<NodeId>> {
    let n = topo.nodes();
    let allowed = format!(
        "`all` or a `;`-separated list of routers `X,Y` with 0 <= X < {} and 0 <= Y < {}, e.g. `0,0;1,0`",
        topo.k, topo.m
    );
    let Some(s) = s else {
        if n <= DEFAULT_ALL_LIMIT {
            return Ok((0..n).collect());
        }
        return Err(InputError::new(
            "--vcd-routers",
            "(not given)",
            format!(
                "{allowed}: this network has {n} routers, more than the {DEFAULT_ALL_LIMIT} dumped by default"
            ),
        ));
    };
    if s.trim() == "all" {
        return Ok((0..n).collect());
    }
    let mut v = Vec::new();
    for item in s.split(';').map(str::trim).filter(|i| !i.is_empty()) {
        let node = topo
            .parse_node(item, "--vcd-routers")
            .map_err(|_| InputError::new("--vcd-routers", s, allowed.clone()))?;
        v.push(node);
    }
    if v.is_empty() {
        return Err(InputError::new("--vcd-routers", s, allowed));
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// Bits needed to hold the values `0..=max` (at least 1).
fn bits_for(max: u64) -> u32 {
    (64 - max.leading_zeros()).max(1)
}

/// One variable: its id, width, whether `NO_MSG` is written as `x`, and the
/// last value written.
struct Sig {
    id: IdCode,
    width: u32,
    /// The shadow message number: `NO_MSG` is shown as `x`.
    msg: bool,
    prev: u64,
}

/// The variables of one router, in the order [`router_values`] produces.
struct RouterSigs {
    node: NodeId,
    sigs: Vec<Sig>,
    /// Registers at the last sample, to skip unchanged routers cheaply.
    last: RouterState,
    last_msg: [u32; MAX_OUTPUTS],
}

/// Writes the registers of chosen routers, inside a cycle window, as VCD.
pub struct VcdWriter<W: Write> {
    w: vcd::Writer<W>,
    routers: Vec<RouterSigs>,
    window: Window,
    params: RouterParams,
    /// Last time sampled; `None` before the first sample in the window.
    last_t: Option<u64>,
    /// The end marker has been written (window passed or finished).
    closed: bool,
    vals: Vec<u64>,
}

/// The register values of one router in variable order.
fn router_values(p: &RouterParams, s: &RouterState, msg: &[u32; MAX_OUTPUTS], v: &mut Vec<u64>) {
    v.clear();
    for i in &s.inp[..p.inputs()] {
        v.push(i.state as u64);
        v.push(i.reserved as u64);
        v.push(i.class as u64);
        v.push(i.fifo.count as u64);
        v.push(i.ready as u64);
        if p.setup_cycles > 0 {
            v.push(i.setup as u64);
        }
        if p.strip_deferred {
            v.push(i.strip as u64);
        }
    }
    for o in &s.out[..p.outputs()] {
        v.push(o.flit);
        v.push(o.valid as u64);
        v.push(if o.owner == NO_OWNER {
            (1 << OWNER_BITS) - 1
        } else {
            o.owner as u64
        });
    }
    v.push(s.prio as u64);
    v.push(s.err_count as u64);
    v.push(s.err_code as u64);
    for &m in &msg[..p.outputs()] {
        v.push(m as u64);
    }
}

impl<W: Write> VcdWriter<W> {
    /// Writes the header for `routers` (node ids) of `fabric` and returns a
    /// writer ready for [`VcdWriter::sample`].
    pub fn new(fabric: &Fabric, routers: &[NodeId], window: Window, out: W) -> io::Result<Self> {
        let p = fabric.params;
        let mut w = vcd::Writer::new(out);
        w.version("wormcast native cycle model")?;
        w.comment("1 time unit = 1 clock cycle = 10 ns (the Verilog testbench's clock); values at time t are the registers after clock edge t (0 = reset)")?;
        w.timescale(CYCLE_NS, TimescaleUnit::NS)?;
        w.add_module("fabric")?;
        let state_bits = 2;
        let count_bits = bits_for(p.depth as u64);
        let prio_bits = bits_for(p.inputs() as u64 - 1);
        let mut rs = Vec::with_capacity(routers.len());
        for &node in routers {
            let (x, y) = fabric.topo.coord(node);
            w.add_module(&format!("r_{x}_{y}"))?;
            let mut sigs = Vec::new();
            let mut add = |w: &mut vcd::Writer<W>, width: u32, name: &str, msg: bool| {
                let id = w.add_var(VarType::Reg, width, name, None)?;
                sigs.push(Sig {
                    id,
                    width,
                    msg,
                    prev: 0,
                });
                io::Result::Ok(())
            };
            for i in 0..p.inputs() {
                let n = input_name(i);
                add(&mut w, state_bits, &format!("{n}_state"), false)?;
                add(&mut w, p.outputs() as u32, &format!("{n}_reserved"), false)?;
                add(&mut w, CLASS_BITS, &format!("{n}_class"), false)?;
                add(&mut w, count_bits, &format!("{n}_count"), false)?;
                add(&mut w, 1, &format!("{n}_ready"), false)?;
                if p.setup_cycles > 0 {
                    add(&mut w, SETUP_BITS, &format!("{n}_setup"), false)?;
                }
                if p.strip_deferred {
                    add(&mut w, 1, &format!("{n}_strip"), false)?;
                }
            }
            for o in 0..p.outputs() {
                let n = output_name(o);
                add(&mut w, p.flit.width, &format!("{n}_flit"), false)?;
                add(&mut w, 1, &format!("{n}_valid"), false)?;
                add(&mut w, OWNER_BITS, &format!("{n}_owner"), false)?;
            }
            add(&mut w, prio_bits, "prio", false)?;
            add(&mut w, ERR_COUNT_BITS, "err_count", false)?;
            add(&mut w, ERR_CODE_BITS, "err_code", false)?;
            w.add_module("shadow")?;
            w.comment("simulation only, not hardware: message number of each output register")?;
            for o in 0..p.outputs() {
                add(&mut w, MSG_BITS, &format!("{}_msg", output_name(o)), true)?;
            }
            w.upscope()?;
            w.upscope()?;
            rs.push(RouterSigs {
                node,
                sigs,
                last: fabric.state[node as usize],
                last_msg: fabric.shadow[node as usize].out,
            });
        }
        w.upscope()?;
        w.enddefinitions()?;
        Ok(VcdWriter {
            w,
            routers: rs,
            window,
            params: p,
            last_t: None,
            closed: false,
            vals: Vec::new(),
        })
    }

    /// Records the registers of `fabric` at time `fabric.cycle`. Call it once
    /// before the run (time 0, reset values) and after every clock edge.
    pub fn sample(&mut self, fabric: &Fabric) -> io::Result<()> {
        let t = fabric.cycle;
        if !self.window.contains(t) {
            if t >= self.window.end && !self.closed {
                self.close()?;
            }
            return Ok(());
        }
        let first = self.last_t.is_none();
        let mut stamped = false;
        for r in self.routers.iter_mut() {
            let s = &fabric.state[r.node as usize];
            let msg = &fabric.shadow[r.node as usize].out;
            if !first && *s == r.last && *msg == r.last_msg {
                continue;
            }
            r.last = *s;
            r.last_msg = *msg;
            router_values(&self.params, s, msg, &mut self.vals);
            for (sig, &v) in r.sigs.iter_mut().zip(&self.vals) {
                if !first && sig.prev == v {
                    continue;
                }
                if !stamped {
                    self.w.timestamp(t)?;
                    stamped = true;
                }
                sig.prev = v;
                let out = self.w.writer();
                if sig.width == 1 {
                    writeln!(out, "{}{}", v, sig.id)?;
                } else if sig.msg && v == NO_MSG as u64 {
                    writeln!(out, "bx {}", sig.id)?;
                } else {
                    writeln!(out, "b{:b} {}", v, sig.id)?;
                }
            }
        }
        self.last_t = Some(t);
        Ok(())
    }

    /// Ends the dump: a final timestamp one cycle after the last sample, so
    /// the last values have a visible extent, then a flush. Called once the
    /// window has passed and by [`VcdWriter::finish`].
    fn close(&mut self) -> io::Result<()> {
        self.closed = true;
        if let Some(t) = self.last_t {
            self.w.timestamp(t + 1)?;
        }
        self.w.flush()
    }

    /// Finishes the file: end marker and flush. Call it however the run
    /// ended (drained, deadlock, interrupted) so the file is complete; to
    /// get an in-memory buffer back, pass `&mut Vec<u8>` as the sink.
    pub fn finish(mut self) -> io::Result<()> {
        if !self.closed {
            self.close()?;
        }
        Ok(())
    }
}
