//! The one place that maps register names of the native model (`docs/router.md`,
//! `RouterState` fields: `in3_state`, `out5_flit`, `prio`, …) to the paths of
//! the same registers in the rust-hdl hierarchy and the generated Verilog
//! (rust-hdl joins levels with `$`: `top$in_state$3$q`). Mismatch reports,
//! manifests and VCD comparisons use these names.

/// A router register or port, by native name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    InState(usize),
    InReserved(usize),
    InClass(usize),
    InReady(usize),
    InCount(usize),
    OutFlit(usize),
    OutValid(usize),
    OutOwner(usize),
    Prio,
    ErrCount,
    ErrCode,
}

impl Reg {
    /// Native name, as in `docs/router.md` (`inN_state`, `outN_flit`, …).
    pub fn native(self) -> String {
        match self {
            Reg::InState(i) => format!("in{i}_state"),
            Reg::InReserved(i) => format!("in{i}_reserved"),
            Reg::InClass(i) => format!("in{i}_class"),
            Reg::InReady(i) => format!("in{i}_ready"),
            Reg::InCount(i) => format!("in{i}_fifo_count"),
            Reg::OutFlit(o) => format!("out{o}_flit"),
            Reg::OutValid(o) => format!("out{o}_valid"),
            Reg::OutOwner(o) => format!("out{o}_owner"),
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
