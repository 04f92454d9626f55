//! Register widths and encodings shared by every RTL block, derived from the
//! one definition of each contract in `wormcast-sim` (docs/architecture.md §1): the
//! flit layout of `sim/src/flit.rs`, the port counts of `sim/src/config.rs`,
//! the state and error encodings of `sim/src/router/`.

use rust_hdl::prelude::*;
use wormcast_sim::config::{MAX_INPUTS, MAX_OUTPUTS};
use wormcast_sim::flit;
use wormcast_sim::router::InState;

/// Output masks (`reserved`, requests): one bit per output.
pub const MASK_W: usize = MAX_OUTPUTS;
/// Consumption channels (outputs 4..4 + CONS_W).
pub const CONS_W: usize = wormcast_sim::config::MAX_LOCAL;
/// `in_state`: Idle / Active / Discard / Diverted.
pub const STATE_W: usize = 2;
/// Class field and `in_class`.
pub const CLASS_W: usize = flit::CLASS_BITS as usize;
/// Kind field.
pub const KIND_W: usize = flit::KIND_BITS as usize;
/// O1..O4 field.
pub const O_W: usize = 4;
/// `out_owner`: an input number, all ones = no owner (`NO_OWNER` natively).
pub const OWNER_W: usize = 4;
/// `out_sel`: the owner of an output, one-hot over the inputs.
pub const SEL_W: usize = MAX_INPUTS;
/// `prio`: an input number.
pub const PRIO_W: usize = 3;
/// `in_setup`, the header setup counter (`setup_cycles` is 0..=255); the
/// native VCD's `in_P_setup` width.
pub const SETUP_W: usize = wormcast_sim::waves::SETUP_BITS as usize;
/// `err_count` (saturating).
pub const ERR_COUNT_W: usize = 16;
/// `err_code` (`RouterError` codes 1..=11).
pub const ERR_CODE_W: usize = 4;

const _: () = assert!(MAX_INPUTS <= 1 << PRIO_W);
const _: () = assert!(MAX_INPUTS < (1 << OWNER_W) - 1);

/// The RTL encoding of "no owner".
pub const NO_OWNER_RTL: u64 = (1 << OWNER_W) - 1;

pub fn state_code(s: InState) -> Bits<STATE_W> {
    (s as u8 as u64).into()
}

/// Native `out.owner` (`NO_OWNER` = 0xFF) in the RTL's 4-bit encoding.
pub fn owner_rtl(native: u8) -> u64 {
    if native == wormcast_sim::router::NO_OWNER {
        NO_OWNER_RTL
    } else {
        native as u64
    }
}
