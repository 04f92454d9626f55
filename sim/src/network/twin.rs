//! A twin of the fabric checked at the NI boundary every cycle:
//! the generated Verilog of the whole fabric under Verilator
//! (`wormcast run --engine verilator`, `wormcast_rtl::verilated`).
//!
//! Why at the NI boundary: that is everything the NIs see of the fabric
//! (consumption flits and valids, injection readies) and everything they
//! drive (injection flits and valids; consumption is always ready). The
//! twin gets the NIs' inputs of each cycle and must show, before each clock
//! edge, exactly the NI-side outputs the native fabric's registers hold;
//! the NIs act on those values only after that check, so a run that
//! finishes took every value the NIs used from both models, equal. The
//! first difference stops the run and names the cycle, node and port.

use crate::fabric::Fabric;
use crate::flit::Flit;

/// The NIs' drive of one injection channel: flit and valid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InjDrive {
    pub flit: Flit,
    pub valid: bool,
}

pub trait FabricTwin: Send {
    /// One cycle: compare the twin's NI-side outputs with `fabric`'s
    /// registers (before this cycle's edge), then drive `inj` (index node ×
    /// injection channels + channel) and clock one edge. `Err` names the
    /// first difference.
    fn cycle(&mut self, cycle: u64, fabric: &Fabric, inj: &[InjDrive]) -> Result<(), String>;
}
