//! The table of router signals compared between the native model and the
//! generated Verilog (docs/architecture.md §2, §4), under the names of
//! `rtl/src/names.rs`, the one place for them.
//!
//! Three names per signal:
//! - the native VCD variable of `sim/src/waves.rs` (`in_px_state`, inside
//!   scope `fabric.r_X_Y`);
//! - the Verilog name inside the router module (`in_state$0$q`). Every DFF
//!   and sub-block is a module instance in rust-hdl's Verilog, and the parent
//!   declares one wire per port of each instance, named `inst$port` with `$`
//!   also between array index and port (`in_state$0$q` is the `q` port of
//!   instance `in_state$0`). These wires live in the router module itself,
//!   so they are reachable as `dut.r$5.in_state$0$q` and a VCD dumped one
//!   level deep per router holds them all (scope `tb.dut.r$5`, variable
//!   `in_state$0$q`, which iverilog writes escaped as `\in_state$0$q`);
//! - the value, read from a native [`RouterState`].
//!
//! The vector tests ([`crate::vectors`]) compare the Verilog against these
//! values every cycle, and the waveform test compares the two VCD files with
//! the same table, so the two checks cannot drift apart. `docs/waveforms.md`
//! prints this table.

use wormcast_rtl::decode::SETUP_W;
use wormcast_rtl::fifo::COUNT_W;
use wormcast_rtl::hw::{CLASS_W, ERR_CODE_W, ERR_COUNT_W, MASK_W, OWNER_W, PRIO_W, STATE_W};
use wormcast_sim::config::RouterParams;
use wormcast_sim::router::{RouterState, NO_OWNER};

/// Which register of a router: the one enum of `rtl/src/names.rs`.
pub use wormcast_rtl::names::Reg as Kind;

/// One router signal under its two names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    pub kind: Kind,
    /// Variable name in the native VCD (inside `fabric.r_X_Y`).
    pub native: String,
    /// Wire of the Verilog router module (`o_flit$0`, `in_state$0$q`).
    pub verilog: String,
    /// Bits compared (the wider of the two encodings; values are numbers).
    pub width: u32,
    /// A module port (visible at the router's boundary) rather than an
    /// internal register.
    pub port: bool,
}

impl Signal {
    /// The native value of this signal in `s`.
    pub fn value(&self, s: &RouterState) -> u64 {
        match self.kind {
            Kind::InState(i) => s.inp[i].state as u64,
            Kind::InReserved(i) => s.inp[i].reserved as u64,
            Kind::InClass(i) => s.inp[i].class as u64,
            Kind::InCount(i) => s.inp[i].fifo.count as u64,
            Kind::InSetup(i) => s.inp[i].setup as u64,
            Kind::InStrip(i) => s.inp[i].strip as u64,
            Kind::InReady(i) => s.inp[i].ready as u64,
            Kind::OutFlit(o) => s.out[o].flit,
            Kind::OutValid(o) => s.out[o].valid as u64,
            Kind::OutOwner(o) => {
                // The RTL encodes "no owner" as all ones in OWNER_W bits.
                if s.out[o].owner == NO_OWNER {
                    (1 << OWNER_W) - 1
                } else {
                    s.out[o].owner as u64
                }
            }
            Kind::Prio => s.prio as u64,
            Kind::ErrCount => s.err_count as u64,
            Kind::ErrCode => s.err_code as u64,
        }
    }
}

/// Every compared signal of one router, in a fixed order: the module's
/// outputs first (output flit/valid, input ready, error register), then the
/// internal registers the two models share (`RouterState` field by field).
/// With `internal = false` only the ports. The native names and the
/// registers' Verilog paths are `rtl/src/names.rs`'s (`Reg::native`,
/// `Reg::rtl`); a port is compared at the router module's own port.
pub fn router_signals(p: &RouterParams, internal: bool) -> Vec<Signal> {
    let mut v = Vec::new();
    // `port`: the module port to compare at; `None` for a register.
    let mut add = |kind: Kind, port: Option<String>, width: usize| {
        v.push(Signal {
            kind,
            native: kind.native(),
            verilog: port.clone().unwrap_or_else(|| kind.rtl()),
            width: width as u32,
            port: port.is_some(),
        })
    };
    let w = p.flit.width as usize;
    for o in 0..p.outputs() {
        add(Kind::OutFlit(o), Some(format!("o_flit${o}")), w);
        add(Kind::OutValid(o), Some(format!("o_valid${o}")), 1);
    }
    for i in 0..p.inputs() {
        add(Kind::InReady(i), Some(format!("i_ready${i}")), 1);
    }
    add(Kind::ErrCount, Some("err_count_o".into()), ERR_COUNT_W);
    add(Kind::ErrCode, Some("err_code_o".into()), ERR_CODE_W);
    if internal {
        for i in 0..p.inputs() {
            add(Kind::InState(i), None, STATE_W);
            add(Kind::InReserved(i), None, MASK_W);
            add(Kind::InClass(i), None, CLASS_W);
            add(Kind::InCount(i), None, COUNT_W);
            // The setup counter exists in both models only in use: with
            // `setup_cycles` = 0 it is constant 0 (and absent from the
            // native VCD), so it is compared only when it counts.
            if p.setup_cycles > 0 {
                add(Kind::InSetup(i), None, SETUP_W);
            }
            // Likewise the deferred strip's register.
            if p.strip_deferred {
                add(Kind::InStrip(i), None, 1);
            }
        }
        for o in 0..p.outputs() {
            add(Kind::OutOwner(o), None, OWNER_W);
        }
        add(Kind::Prio, None, PRIO_W);
    }
    v
}

/// Scope of router `node` in the native VCD (`sim/src/waves.rs`).
pub fn native_scope(x: u32, y: u32) -> String {
    format!("fabric.r_{x}_{y}")
}

/// Instance of router `node` inside the generated fabric module.
pub fn verilog_instance(node: u32) -> String {
    format!("r${node}")
}

/// The value of `s` in the rust-hdl router `u` (after `simulate`), for
/// expectations taken from the rust-hdl model instead of the native one.
pub fn rtl_value<const W: usize>(s: &Signal, u: &wormcast_rtl::Router<W>) -> u64 {
    match s.kind {
        Kind::InState(i) => u.in_state[i].q.val().to_u64(),
        Kind::InReserved(i) => u.in_reserved[i].q.val().to_u64(),
        Kind::InClass(i) => u.in_class[i].q.val().to_u64(),
        Kind::InCount(i) => u.fifo[i].count.val().to_u64(),
        Kind::InSetup(i) => u.in_setup[i].q.val().to_u64(),
        Kind::InStrip(i) => u.in_strip.get(i).map_or(0, |r| r.q.val() as u64),
        Kind::InReady(i) => u.i_ready[i].val() as u64,
        Kind::OutFlit(o) => u.o_flit[o].val().to_u64(),
        Kind::OutValid(o) => u.o_valid[o].val() as u64,
        Kind::OutOwner(o) => u.out_owner[o].q.val().to_u64(),
        Kind::Prio => u.prio.q.val().to_u64(),
        Kind::ErrCount => u.err_count_o.val().to_u64(),
        Kind::ErrCode => u.err_code_o.val().to_u64(),
    }
}
