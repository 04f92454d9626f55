//! The boards the self-checking FPGA top ships constraints for
//! (`wormcast verilog --fpga-top --board …`, docs/fpga.md).
//!
//! Every board gets the same wrapper (`fpga_top::board_wrapper`: a
//! power-on reset, `clk` in, eight LEDs out), so that only the pin file
//! differs: the wrapper's behaviour is proven once, at gate level, and a
//! board is a table of pins here.

use crate::fpga_top::BREAKOUT_PCF;
use wormcast_sim::{InputError, InputResult};

/// A board with a constraint file for [`crate::fpga_top::board_wrapper`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Lattice iCE40-HX8K breakout board (ICE40HX8K-B-EVN): 12 MHz clock,
    /// LEDs D2–D9; the open flow is Debian's yosys, nextpnr-ice40 and
    /// icestorm.
    Hx8kBreakout,
    /// Radiona ULX3S with the LFE5U-85F (CABGA381): 25 MHz clock, LEDs
    /// D0–D7; the open flow is yosys, nextpnr-ecp5 and ecppack (YoWASP's
    /// packages on PyPI).
    Ulx3s85f,
}

/// Pins of the ULX3S (its published constraint file, board revisions
/// 3.0 and later): the 25 MHz oscillator on G2 and the eight user LEDs,
/// 3.3 V LVCMOS.
const ULX3S_LPF: &str = "\
# Radiona ULX3S, LFE5U-85F-6BG381C: wormcast_fpga_board (docs/fpga.md).
# clk is the board's 25 MHz oscillator; led[0] heartbeat, led[1] pass,
# led[2] done, led[3] stall, led[4] any error, led[5] mismatch,
# led[7:6] err_count[1:0].
LOCATE COMP \"clk\" SITE \"G2\";
IOBUF PORT \"clk\" PULLMODE=NONE IO_TYPE=LVCMOS33;
FREQUENCY PORT \"clk\" 25 MHZ;
LOCATE COMP \"led[0]\" SITE \"B2\";
LOCATE COMP \"led[1]\" SITE \"C2\";
LOCATE COMP \"led[2]\" SITE \"C1\";
LOCATE COMP \"led[3]\" SITE \"D2\";
LOCATE COMP \"led[4]\" SITE \"D1\";
LOCATE COMP \"led[5]\" SITE \"E2\";
LOCATE COMP \"led[6]\" SITE \"E1\";
LOCATE COMP \"led[7]\" SITE \"H3\";
IOBUF PORT \"led[0]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[1]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[2]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[3]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[4]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[5]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[6]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
IOBUF PORT \"led[7]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;
";

impl Board {
    /// Every board, in the order the command line lists them.
    pub const ALL: [Board; 2] = [Board::Hx8kBreakout, Board::Ulx3s85f];

    /// The name `--board` takes.
    pub fn name(self) -> &'static str {
        match self {
            Board::Hx8kBreakout => "hx8k-breakout",
            Board::Ulx3s85f => "ulx3s-85f",
        }
    }

    pub fn parse(s: &str) -> InputResult<Board> {
        let t = s.trim();
        Board::ALL
            .into_iter()
            .find(|b| b.name() == t)
            .ok_or_else(|| {
                let names: Vec<&str> = Board::ALL.iter().map(|b| b.name()).collect();
                InputError::new("board", s, format!("one of {}", names.join(", ")))
            })
    }

    /// The FPGA family, as the synthesis scripts name it (`synth_<family>`).
    pub fn family(self) -> &'static str {
        match self {
            Board::Hx8kBreakout => "ice40",
            Board::Ulx3s85f => "ecp5",
        }
    }

    /// The board's oscillator, MHz.
    pub fn clock_mhz(self) -> u32 {
        match self {
            Board::Hx8kBreakout => 12,
            Board::Ulx3s85f => 25,
        }
    }

    /// The constraint file's name in the output folder.
    pub fn constraint_file(self) -> &'static str {
        match self {
            Board::Hx8kBreakout => "ice40_hx8k_breakout.pcf",
            Board::Ulx3s85f => "ulx3s_85f.lpf",
        }
    }

    /// The constraint file's text.
    pub fn constraints(self) -> &'static str {
        match self {
            Board::Hx8kBreakout => BREAKOUT_PCF,
            Board::Ulx3s85f => ULX3S_LPF,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_refused() {
        for b in Board::ALL {
            assert_eq!(Board::parse(b.name()).unwrap(), b);
        }
        let e = Board::parse("ulx3s").unwrap_err().to_string();
        assert!(e.contains("board") && e.contains("ulx3s-85f"), "{e}");
    }

    #[test]
    fn every_led_and_the_clock_have_a_pin() {
        for b in Board::ALL {
            let c = b.constraints();
            assert!(c.contains("clk"), "{b:?}");
            for i in 0..8 {
                assert!(c.contains(&format!("led[{i}]")), "{b:?} led[{i}]");
            }
        }
    }
}
