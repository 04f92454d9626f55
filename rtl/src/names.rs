//! The one place that maps register names of the native model (`docs/router.md`,
//! `RouterState` fields under their VCD names: `in_px_state`, `out_cons0_flit`, `prio`, …) to the paths of
//! the same registers in the rust-hdl hierarchy and the generated Verilog
//! (rust-hdl joins levels with `$`: `top$in_state$3$q`). Mismatch reports,
//! manifests and VCD comparisons use these names.

use wormcast_sim::ports::{input_name, output_name};

/// A router register or port, by native name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    InState(usize),
    InReserved(usize),
    InClass(usize),
    InReady(usize),
    InCount(usize),
    /// Header setup counter (only with `setup_cycles` > 0).
    InSetup(usize),
    OutFlit(usize),
    OutValid(usize),
    OutOwner(usize),
    Prio,
    ErrCount,
    ErrCode,
}

impl Reg {
    /// Native name: the register under its port's name, exactly as the
    /// native VCD calls it (`in_px_state`, `out_cons0_flit`, …; port names
    /// from `wormcast_sim::ports`, the one naming of ports).
    pub fn native(self) -> String {
        match self {
            Reg::InState(i) => format!("{}_state", input_name(i)),
            Reg::InReserved(i) => format!("{}_reserved", input_name(i)),
            Reg::InClass(i) => format!("{}_class", input_name(i)),
            Reg::InReady(i) => format!("{}_ready", input_name(i)),
            Reg::InCount(i) => format!("{}_count", input_name(i)),
            Reg::InSetup(i) => format!("{}_setup", input_name(i)),
            Reg::OutFlit(o) => format!("{}_flit", output_name(o)),
            Reg::OutValid(o) => format!("{}_valid", output_name(o)),
            Reg::OutOwner(o) => format!("{}_owner", output_name(o)),
            Reg::Prio => "prio".into(),
            Reg::ErrCount => "err_count".into(),
            Reg::ErrCode => "err_code".into(),
        }
    }

    /// Path of the register's output inside the router module (Verilog/VCD).
    pub fn rtl(self) -> String {
        match self {
            Reg::InState(i) => format!("in_state${i}$q"),
            Reg::InReserved(i) => format!("in_reserved${i}$q"),
            Reg::InClass(i) => format!("in_class${i}$q"),
            Reg::InReady(i) => format!("fifo${i}$rdy$q"),
            Reg::InCount(i) => format!("fifo${i}$cnt$q"),
            Reg::InSetup(i) => format!("in_setup${i}$q"),
            Reg::OutFlit(o) => format!("out_flit${o}$q"),
            Reg::OutValid(o) => format!("out_valid${o}$q"),
            Reg::OutOwner(o) => format!("out_owner${o}$q"),
            Reg::Prio => "prio$q".into(),
            Reg::ErrCount => "err_count$q".into(),
            Reg::ErrCode => "err_code$q".into(),
        }
    }
}

/// Router module ports, by direction of the link (Verilog names).
pub fn port_in_flit(i: usize) -> String {
    format!("i_flit${i}")
}
pub fn port_in_valid(i: usize) -> String {
    format!("i_valid${i}")
}
pub fn port_in_ready(i: usize) -> String {
    format!("i_ready${i}")
}
pub fn port_out_flit(o: usize) -> String {
    format!("o_flit${o}")
}
pub fn port_out_valid(o: usize) -> String {
    format!("o_valid${o}")
}
pub fn port_out_ready(o: usize) -> String {
    format!("o_ready${o}")
}
