//! Port names: the one place that turns a router port index into a name.
//!
//! The deadlock report, the VCD writer and (later) the generated RTL all name
//! ports through these functions, so a waveform from the native model, a
//! waveform from the Verilog and a deadlock report talk about the same
//! `in_px` / `out_cons0`. The names are plain identifiers (letters, digits,
//! `_`) because they end up in VCD references and Verilog signal names, where
//! the paper's `+x` is not a legal character sequence.
//!
//! | index | input        | output        |
//! |-------|--------------|---------------|
//! | 0     | `in_px` (+X) | `out_px` (+X) |
//! | 1     | `in_mx` (−X) | `out_mx` (−X) |
//! | 2     | `in_py` (+Y) | `out_py` (+Y) |
//! | 3     | `in_my` (−Y) | `out_my` (−Y) |
//! | 4+k   | `in_injK` (injection channel K) | `out_consK` (consumption channel K) |

use crate::config::{MAX_INPUTS, MAX_OUTPUTS};
use crate::topology::Dir;

const INPUTS: [&str; MAX_INPUTS] = [
    "in_px", "in_mx", "in_py", "in_my", "in_inj0", "in_inj1", "in_inj2", "in_inj3",
];
const OUTPUTS: [&str; MAX_OUTPUTS] = [
    "out_px",
    "out_mx",
    "out_py",
    "out_my",
    "out_cons0",
    "out_cons1",
    "out_cons2",
    "out_cons3",
];

/// Identifier-safe name of a link direction (`+x` → `px`, `−x` → `mx`).
pub fn dir_ident(d: Dir) -> &'static str {
    ["px", "mx", "py", "my"][d.index()]
}

/// Name of input port `i`: link ports by direction, then injection channels.
///
/// Panics if `i >= MAX_INPUTS`, which no router configuration allows.
pub fn input_name(i: usize) -> &'static str {
    INPUTS[i]
}

/// Name of output port `o`: link ports by direction, then consumption channels.
///
/// Panics if `o >= MAX_OUTPUTS`, which no router configuration allows.
pub fn output_name(o: usize) -> &'static str {
    OUTPUTS[o]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MAX_LOCAL;

    #[test]
    fn names_follow_the_port_order() {
        for d in Dir::ALL {
            assert_eq!(input_name(d.index()), format!("in_{}", dir_ident(d)));
            assert_eq!(output_name(d.index()), format!("out_{}", dir_ident(d)));
        }
        for k in 0..MAX_LOCAL {
            assert_eq!(input_name(4 + k), format!("in_inj{k}"));
            assert_eq!(output_name(4 + k), format!("out_cons{k}"));
        }
    }

    #[test]
    fn names_are_identifiers() {
        for n in INPUTS.iter().chain(OUTPUTS.iter()) {
            assert!(n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        }
    }
}
