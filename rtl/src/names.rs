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
    /// Deferred strip pending (only with `strip_deferred`).
    InStrip(usize),
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
            Reg::InStrip(i) => format!("{}_strip", input_name(i)),
            Reg::OutFlit(o) => format!("{}_flit", output_name(o)),
            Reg::OutValid(o) => format!("{}_valid", output_name(o)),
            Reg::OutOwner(o) => format!("{}_owner", output_name(o)),
            Reg::Prio => "prio".into(),
            Reg::ErrCount => "err_count".into(),
            Reg::ErrCode => "err_code".into(),
        }
    }

    /// Path of the register's output inside the router module (Verilog/VCD);
    /// for the fill, the FIFO's `count` port (its registers are a
    /// thermometer, `crate::fifo`).
    pub fn rtl(self) -> String {
        match self {
            Reg::InState(i) => format!("in_state${i}$q"),
            Reg::InReserved(i) => format!("in_reserved${i}$q"),
            Reg::InClass(i) => format!("in_class${i}$q"),
            Reg::InReady(i) => format!("fifo${i}$rdy$q"),
            Reg::InCount(i) => format!("fifo${i}$count"),
            Reg::InSetup(i) => format!("in_setup${i}$q"),
            Reg::InStrip(i) => format!("in_strip${i}$q"),
            Reg::OutFlit(o) => format!("out_flit${o}$q"),
            Reg::OutValid(o) => format!("out_valid${o}$q"),
            Reg::OutOwner(o) => format!("out_owner${o}$q"),
            Reg::Prio => "prio$q".into(),
            Reg::ErrCount => "err_count$q".into(),
            Reg::ErrCode => "err_code$q".into(),
        }
    }
}

/// Clock of every generated top: registers load on its rising edge.
pub const CLK: &str = "clk";
/// Reset of every generated top: active high, synchronous (sampled on the
/// rising edge of [`CLK`]; one edge with it high puts every register in
/// `RouterState::reset()`).
pub const RST: &str = "rst";

/// Port `sig` (`flit`, `valid`, `ready`) of router input `i` on a one-router
/// top: `in_px_flit`, `in_inj0_valid`, … (the native VCD's port names).
pub fn router_in(i: usize, sig: &str) -> String {
    format!("{}_{sig}", input_name(i))
}

/// Port `sig` of router output `o`: `out_px_flit`, `out_cons1_ready`, …
pub fn router_out(o: usize, sig: &str) -> String {
    format!("{}_{sig}", output_name(o))
}

/// A fabric's NI port: `n<node>_inj<ch>_<sig>` (injection channel `ch` of
/// `node`, `sig` = `flit`, `valid` in, `ready` out) or
/// `n<node>_cons<ch>_<sig>` (consumption: `flit`, `valid` out, `ready` in).
pub fn ni_port(node: u32, inj: bool, ch: u32, sig: &str) -> String {
    let k = if inj { "inj" } else { "cons" };
    format!("n{node}_{k}{ch}_{sig}")
}

/// The inverse of [`ni_port`]: (node, injection?, channel, signal).
pub fn parse_ni_port(name: &str) -> Option<(u32, bool, u32, &str)> {
    let rest = name.strip_prefix('n')?;
    let (node, rest) = rest.split_once('_')?;
    let (chan, sig) = rest.split_once('_')?;
    let (inj, ch) = if let Some(c) = chan.strip_prefix("inj") {
        (true, c)
    } else {
        (false, chan.strip_prefix("cons")?)
    };
    Some((node.parse().ok()?, inj, ch.parse().ok()?, sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ni_port_names_round_trip() {
        assert_eq!(ni_port(12, true, 0, "flit"), "n12_inj0_flit");
        assert_eq!(ni_port(3, false, 1, "ready"), "n3_cons1_ready");
        assert_eq!(parse_ni_port("n12_inj0_flit"), Some((12, true, 0, "flit")));
        assert_eq!(
            parse_ni_port("n3_cons1_ready"),
            Some((3, false, 1, "ready"))
        );
        assert_eq!(parse_ni_port("clk"), None);
        assert_eq!(parse_ni_port("n3_x1_ready"), None);
        assert_eq!(router_in(1, "flit"), "in_mx_flit");
        assert_eq!(router_out(5, "valid"), "out_cons1_valid");
    }
}
